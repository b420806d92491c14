"""The review desk while a session loads (issue 13, defect 10): keys are kept, progress is shown, rows come first.

The load is held at `Store.load_session` until the test lets it go, so keys are
typed while the session is still being rebuilt, as on a 100,000-entry session.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from cutline.app.screens.session_review import ReviewScreen
from cutline.app.widgets.message_list import MessageList
from cutline.core.store import Store
from cutline.core.workbench.entries import StoredEntries
from tests.support.keys import type_keys
from tests.support.pi_compactions import write_pi_session
from tests.support.tui_app import settle_pilot as settle
from tests.support.tui_app import test_app

SIZE = (160, 45)


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Hold every `Store.load_session` until the returned event is set."""
    gate = threading.Event()
    load = Store.load_session

    def held_load(self: Store, ref: str) -> Any:
        assert gate.wait(30), "the test never let the load go"
        return load(self, ref)

    monkeypatch.setattr(Store, "load_session", held_load)
    return gate


async def review_screen(pilot: Pilot[None]) -> ReviewScreen:
    for _ in range(50):
        if isinstance(pilot.app.screen, ReviewScreen):
            return pilot.app.screen
        await pilot.pause()
    raise AssertionError("the review screen never opened")


def status(screen: ReviewScreen) -> str:
    return str(screen.query_one("#status-text", Static).render())


async def test_keys_typed_while_the_session_loads_take_effect_in_order(
    tmp_path: Path, ledger: Path, held: threading.Event
) -> None:
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        screen = await review_screen(pilot)
        await type_keys(pilot, "]].")
        assert screen.session is None, "the load is still held"
        assert "3 keys kept" in status(screen)
        held.set()
        await settle(pilot)
        message_list = screen.query_one(MessageList)
        assert screen.settings.keepRecentTokens == 7000
        assert screen.plan is not None and screen.plan.keepRecentTokens == 7000
        # `.` was typed after the brackets: the cursor is on the cut they moved
        assert message_list.marks is not None and message_list.cursor == message_list.marks.first_kept
        assert "kept" not in status(screen)


async def test_a_long_session_shows_its_stored_rows_and_progress_while_it_loads(
    tmp_path: Path, ledger: Path, held: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ReviewScreen, "PREVIEW_ENTRIES", 10)  # the 49-entry session counts as long
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        screen = await review_screen(pilot)
        message_list = screen.query_one(MessageList)
        for _ in range(50):  # the rows and the status line's progress come in two messages: both are waited for
            if message_list.row_count and "reading" in status(screen):
                break
            await pilot.pause()
        assert isinstance(message_list.entries, StoredEntries) and screen.session is None
        assert message_list.row_count == 49 and message_list.cursor == 48
        assert "reading 49 entries" in status(screen) and "rows shown as stored" in status(screen)
        await type_keys(pilot, "kk")  # the list moves at once; nothing waits for the load
        assert message_list.cursor == 46
        held.set()
        await settle(pilot)
        assert screen.session is not None and not isinstance(message_list.entries, StoredEntries)
        assert message_list.cursor == 46, "the full load keeps the cursor where the person put it"
        assert not screen.query_one("#run-progress").has_class("-running")


def test_stored_entries_read_a_window_at_a_time() -> None:
    reads: list[tuple[int, int]] = []

    def fetch(start: int, stop: int) -> list[Any]:
        reads.append((start, stop))
        return [f"entry {i}" for i in range(start, stop)]

    entries = StoredEntries(300, fetch, windows=2)
    assert entries.cached(5) is None and reads == []
    assert entries[5] == "entry 5" and entries[-1] == "entry 299"
    assert reads == [(0, 128), (256, 300)]
    assert entries.cached(130) is None
    entries.load_window(1)
    assert entries.cached(130) == "entry 130"
    assert entries.cached(5) is None, "the least recently used window was dropped"
    with pytest.raises(IndexError):
        entries[300]


async def test_a_very_long_session_is_planned_from_stored_facts_without_being_rebuilt(
    tmp_path: Path, ledger: Path, held: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cutline.core.engine.plan import plan
    from cutline.core.engine.rules.choice import evidence
    from cutline.core.store.token_counts import count_entries

    monkeypatch.setattr(ReviewScreen, "LAZY_ENTRIES", 10)  # the 49-entry session counts as very long
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        screen = await review_screen(pilot)
        await settle(pilot)  # the session's rebuild is held: a load that needed it would not finish
        message_list = screen.query_one(MessageList)
        assert screen.plan is not None and screen.session is not None and not screen.session.entries
        assert isinstance(message_list.entries, StoredEntries) and message_list.row_count == 50
        await type_keys(pilot, "]]")
        await settle(pilot)  # the re-plan is made in a worker (the rebuild it does not need is still held)
        assert screen.plan.keepRecentTokens == 7000
        store = app.store  # type: ignore[attr-defined]
        held.set()
        session = store.load_session(screen.session.id)  # the whole session, rebuilt, planned as before
        path, counts = session.active_path(), count_entries(store, session, "chars4")
        rules = evidence(path, session.format, session.version)
        whole = plan(path, screen.settings, "chars4", [counts.get(e.id, 0) for e in path], rules=rules)
        assert screen.plan.model_dump(exclude={"entryTokens"}) == whole.model_dump(exclude={"entryTokens"})
        await type_keys(pilot, "r")  # the run rebuilds the session in its worker
        await settle(pilot)
        assert screen.proposal is not None and screen.proposal.firstKeptEntryId == whole.firstKeptEntryId


async def test_a_run_on_a_very_long_session_reads_a_window_of_it_not_the_whole_session(
    tmp_path: Path, held: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run summarizes from the path after the latest compaction: the rebuild stays held and the proposal is the whole load's."""
    from cutline.core.engine.compact import compact
    from cutline.core.summarizers import summarizer_for

    session_file = write_pi_session(tmp_path / "long.jsonl", turns=80, every=50)
    monkeypatch.setattr(ReviewScreen, "LAZY_ENTRIES", 10)
    app = test_app(tmp_path / "store.db", str(session_file))
    async with app.run_test(size=SIZE) as pilot:
        screen = await review_screen(pilot)
        await settle(pilot)
        assert screen.session is not None and not screen.session.entries
        await type_keys(pilot, "[" * 10)  # keep less: the turns since the last compaction get summarized
        await settle(pilot)  # the re-plan is made in a worker
        assert screen.plan is not None and screen.plan.messagesToSummarize > 0, screen.plan.keepRecentTokens
        await type_keys(pilot, "r")  # a run that rebuilt the session would wait on the held load
        await settle(pilot)
        made = screen.proposal
        assert made is not None, "the run waited for the whole session"
        held.set()
        store = app.store  # type: ignore[attr-defined]
        whole = store.load_session(screen.session.id)
        expected = await compact(
            screen.plan,
            whole,
            summarizer_for(screen.settings),
            screen.settings,
            today=screen.desk.clock().date(),
        )
    fields = {"id", "createdAt", "created_at", "timings", "entryId"}  # made anew for each proposal
    assert made.model_dump(exclude=fields) == expected.model_dump(exclude=fields)


async def test_while_a_very_long_sessions_plan_is_pending_gauge_and_why_say_so_with_the_step(
    tmp_path: Path, ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27 item 10: the rows come first; until the plan is made the gauge and Why say "plan pending" and where the loading is."""
    from cutline.app.widgets.gauge import BudgetGauge
    from cutline.app.widgets.plan_why import PlanWhy
    from cutline.core.store.sessions import Sessions

    gate = threading.Event()
    facts = Sessions.path_facts

    def held_facts(self: Sessions, *args: Any, **kwargs: Any) -> Any:
        assert gate.wait(30), "the test never let the plan go"
        return facts(self, *args, **kwargs)

    monkeypatch.setattr(Sessions, "path_facts", held_facts)
    monkeypatch.setattr(ReviewScreen, "LAZY_ENTRIES", 10)  # the 49-entry session counts as very long
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        screen = await review_screen(pilot)
        message_list = screen.query_one(MessageList)
        for _ in range(50):
            if message_list.row_count:
                break
            await pilot.pause()
        await type_keys(pilot, "w")  # the Why tab, while the plan is pending
        gauge = str(screen.query_one(BudgetGauge).render())
        why = str(screen.query_one("#why-text", Static).render())
        assert screen.plan is None and message_list.row_count == 49  # the stored rows, shown first
        assert "plan pending · indexing the path (step 3 of 5)" in gauge, gauge
        assert "plan pending · indexing the path (step 3 of 5)" in why, why
        gate.set()
        await settle(pilot)
        assert screen.plan is not None
        assert "pending" not in str(screen.query_one(BudgetGauge).render())
        assert "why:" in str(screen.query_one(PlanWhy).lines)
