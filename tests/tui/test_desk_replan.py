"""A settings change re-plans in a worker (issue 24): the screen answers keys meanwhile, stale plans are dropped;
one whose kind was cheap last time is planned in the key's own handler, its cut in the key's frame.

The planner is held at `workbench.plan_on` until the test lets it go (as test_desk_loading
holds the load), so keys are typed while a re-plan is being made, as on a 100,000-entry
session where one takes 0.1-0.25 s. Every wait is for a state, never a sleep.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from cutline.app.screens.session_review import ReviewScreen
from cutline.app.widgets.gauge import BudgetGauge
from cutline.app.widgets.message_list import MessageList
from cutline.app.widgets.plan_why import PlanWhy
from cutline.core import workbench
from cutline.core.engine.compaction_plan import CompactionPlan
from tests.support.cli import run
from tests.support.keys import SIZE, type_keys
from tests.support.tui_app import settle_pilot as settle
from tests.support.tui_app import test_app


class HeldPlanner:
    """`workbench.plan_on`, held once `hold()` is called: each call then waits until `release()`.

    `entered` is set when a held call has begun; `made` lists the keepRecentTokens of every plan
    made; `on_loop` counts the calls made on the event loop's thread (the main one).
    """

    def __init__(self) -> None:
        self.real = workbench.plan_on
        self.gate = threading.Event()
        self.gate.set()
        self.entered = threading.Event()
        self.made: list[int] = []
        self.on_loop = 0

    def hold(self) -> None:
        self.gate.clear()
        self.entered.clear()

    def release(self) -> None:
        self.gate.set()

    def __call__(self, index: Any, settings: Any, *args: Any, **kwargs: Any) -> CompactionPlan:
        if threading.current_thread() is threading.main_thread():
            self.on_loop += 1  # never held there: a wait on the event loop would hold the test itself
        else:
            self.entered.set()
            assert self.gate.wait(30), "the test never let the plan go"
        plan = self.real(index, settings, *args, **kwargs)
        self.made.append(plan.keepRecentTokens)
        return plan


@pytest.fixture
def planner(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldPlanner]:
    """The planner held, every re-plan made in a worker (as one that last cost over `INLINE_PLAN_S` is)."""
    held = HeldPlanner()
    monkeypatch.setattr(workbench, "plan_on", held)
    monkeypatch.setattr(ReviewScreen, "INLINE_PLAN_S", 0.0)
    yield held
    held.release()


async def review_screen(pilot: Pilot[None]) -> ReviewScreen:
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen) and screen.plan is not None
    return screen


async def until_entered(pilot: Pilot[None], planner: HeldPlanner) -> None:
    """Wait (for the state, not a time) until a re-plan's worker is inside the held planner."""
    for _ in range(500):
        if planner.entered.is_set():
            return
        await pilot.pause()
    raise AssertionError("no re-plan reached the planner")


def gauge_text(screen: ReviewScreen) -> str:
    return str(screen.query_one(BudgetGauge).render())


async def test_keys_are_handled_while_a_re_plan_is_made_and_the_gauge_says_it_is_pending(
    tmp_path: Path, ledger: Path, planner: HeldPlanner
) -> None:
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        screen = await review_screen(pilot)
        message_list = screen.query_one(MessageList)
        old_cut = message_list.marks.first_kept if message_list.marks else None
        planner.hold()
        planner.on_loop = 0
        await type_keys(pilot, "]")
        await until_entered(pilot, planner)
        assert planner.on_loop == 0, "the re-plan ran on the event loop"
        # the key's handler has returned: the settings are new, the plan pending, the old cut still drawn
        assert screen.settings.keepRecentTokens == 6000 and screen.plan.keepRecentTokens == 5000
        assert "plan pending · keepRecentTokens 6,000" in gauge_text(screen), gauge_text(screen)
        cursor = message_list.cursor
        await type_keys(pilot, "kk")  # the list moves while the planner is still held
        assert message_list.cursor == cursor - 2 and not planner.gate.is_set()
        await type_keys(pilot, ".")  # the cut is about to move: the jump waits for the new one
        assert message_list.cursor == cursor - 2
        assert "1 key kept" in str(screen.query_one("#status-text", Static).render())
        planner.release()
        await settle(pilot)
        assert screen.plan.keepRecentTokens == 6000 and not screen.replanning
        assert "pending" not in gauge_text(screen)
        assert message_list.marks is not None and message_list.marks.first_kept != old_cut
        assert message_list.cursor == message_list.marks.first_kept, "`.` ran on the new plan's cut"
        assert "kept" not in str(screen.query_one("#status-text", Static).render())


async def test_a_superseded_re_plan_is_never_drawn(tmp_path: Path, ledger: Path, planner: HeldPlanner) -> None:
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        screen = await review_screen(pilot)
        drawn: list[int] = []  # every plan drawn (the Why view is given each one)
        why = screen.query_one(PlanWhy)
        show = why.show

        def spy(plan: CompactionPlan) -> None:
            drawn.append(plan.keepRecentTokens)
            show(plan)

        why.show = spy  # type: ignore[method-assign]
        planner.hold()
        planner.made.clear()
        await type_keys(pilot, "]")
        await until_entered(pilot, planner)  # the first re-plan (6,000) is being made…
        await type_keys(pilot, "]")  # …when a second change asks for 7,000
        assert "plan pending · keepRecentTokens 7,000" in gauge_text(screen)
        planner.release()
        await settle(pilot)
        assert planner.made == [6000, 7000], "the first plan was made, then the second"
        assert drawn == [7000], "the superseded plan was dropped, not drawn"
        assert screen.plan.keepRecentTokens == 7000
        # a stale plan arriving late (after the newer one is drawn) is dropped too
        from cutline.app.screens.session_review.messages import Planned

        stale = planner.real(screen._path_index, screen.settings.with_overrides(keepRecentTokens=2000), None)
        screen.post_message(Planned(1, stale, screen.settings, None))
        await settle(pilot)
        assert drawn == [7000] and screen.plan.keepRecentTokens == 7000


@pytest.mark.parametrize("lazy", [False, True], ids=["whole", "stored-facts"])
async def test_the_cut_after_settings_changes_is_the_cli_plan_for_the_same_settings(
    tmp_path: Path,
    ledger: Path,
    planner: HeldPlanner,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lazy: bool,
) -> None:
    """Changes typed while a re-plan is held (nudges, a counter switch): the plan drawn is `cutline plan --json`'s."""
    if lazy:
        monkeypatch.setattr(ReviewScreen, "LAZY_ENTRIES", 10)  # the 49-entry session planned from stored facts
    store = tmp_path / "store.db"
    app = test_app(store, str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        screen = await review_screen(pilot)
        assert screen.session is not None
        session_id = screen.session.id
        planner.hold()
        await type_keys(pilot, "]]]")
        await until_entered(pilot, planner)
        await type_keys(pilot, "[c")  # keepRecentTokens 7,000, counted with tiktoken
        planner.release()
        await settle(pilot)
        assert screen.counter == "tiktoken" and screen.settings.keepRecentTokens == 7000
        drawn = screen.plan.model_dump(mode="json", exclude={"entryTokens"})
        cut = screen.query_one(MessageList).marks
    assert cut is not None and cut.first_kept == drawn["firstKeptPathIndex"]
    flags = ["--json", "--keep-recent-tokens", "7000", "--counter", "tiktoken", "--db", str(store)]
    code, out, err = run(capsys, "plan", *flags, session_id)
    assert code == 0, err
    cli = json.loads(out)
    assert drawn["firstKeptEntryId"] == cli["firstKeptEntryId"]
    assert {key: value for key, value in cli.items() if key in drawn} == drawn


@pytest.mark.parametrize("lazy", [False, True], ids=["whole", "stored-facts"])
async def test_a_cheap_re_plan_is_drawn_by_the_key_handler_itself_and_is_the_cli_plan(
    tmp_path: Path, ledger: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], lazy: bool
) -> None:
    """Once a plan of this index and kind was cheap, a settings key re-plans on the event loop: when its handler
    returns, the new cut is drawn already (no pending state, no worker, no second frame); a counter switch (a new
    index) goes to a worker again, and the next change after it is inline again."""
    if lazy:
        monkeypatch.setattr(ReviewScreen, "LAZY_ENTRIES", 10)
    held = HeldPlanner()
    monkeypatch.setattr(workbench, "plan_on", held)
    store = tmp_path / "store.db"
    app = test_app(store, str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        screen = await review_screen(pilot)
        assert screen.session is not None
        session_id = screen.session.id
        message_list = screen.query_one(MessageList)
        old_cut = message_list.marks.first_kept if message_list.marks else None
        held.on_loop = 0
        screen.action_keep_more()  # what `]` runs: no pause after it
        assert held.on_loop == 1, "the re-plan was not made in the handler"
        assert not screen.replanning and screen.plan.keepRecentTokens == 6000
        assert "pending" not in gauge_text(screen)
        assert message_list.marks is not None and message_list.marks.first_kept != old_cut
        for _ in range(3):
            screen.action_keep_more()
        assert held.on_loop == 4 and screen.plan.keepRecentTokens == 9000
        await type_keys(pilot, "c")  # another counter: a new index, planned in a worker first
        await settle(pilot)
        assert screen.counter == "tiktoken" and held.on_loop == 4 and screen.plan.counter == "tiktoken"
        screen.action_keep_less()
        assert held.on_loop == 5 and screen.plan.keepRecentTokens == 8000
        await settle(pilot)
        drawn = screen.plan.model_dump(mode="json", exclude={"entryTokens"})
        cut = message_list.marks
    assert cut is not None and cut.first_kept == drawn["firstKeptPathIndex"]
    flags = ["--json", "--keep-recent-tokens", "8000", "--counter", "tiktoken", "--db", str(store)]
    code, out, err = run(capsys, "plan", *flags, session_id)
    assert code == 0, err
    cli = json.loads(out)
    assert {key: value for key, value in cli.items() if key in drawn} == drawn
