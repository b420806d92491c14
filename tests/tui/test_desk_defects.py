"""The review desk as a person finds it (issue 13): each defect of the hands-on pass, driven by typed characters.

Keys are sent the way a terminal sends them: the characters go through Textual's
xterm parser (the same parser the Linux driver runs on stdin) and the resulting
events through the driver, so a binding on a key name the parser never produces
(`period` instead of `full_stop`) fails here as it fails for a person.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from textual._xterm_parser import XTermParser
from textual.events import Key
from textual.widgets import Static

from cutline.app.screens.session_review import ReviewScreen
from cutline.app.widgets.message_list import MessageList
from cutline.core.summarizers.base import Summarizer, SummaryRequest
from tests.support.keys import SIZE, SMALL, type_keys
from tests.support.tui_app import settle_pilot as settle
from tests.support.tui_app import test_app, write_session


def test_typed_characters_become_the_key_names_textual_uses() -> None:
    """The key names the desk binds are the ones the parser produces for the typed characters."""
    parser = XTermParser()
    names = [event.key for char in ".[]?" for event in parser.feed(char) if isinstance(event, Key)]
    assert names == ["full_stop", "left_square_bracket", "right_square_bracket", "question_mark"]


# -- 1: `.` jumps to the cut ------------------------------------------------------------


async def test_full_stop_typed_jumps_to_the_cut(tmp_path: Path, ledger: Path) -> None:
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        message_list = screen.query_one(MessageList)
        cut = message_list.marks.first_kept if message_list.marks else None
        assert cut is not None and cut > 0
        await type_keys(pilot, "g")
        assert message_list.cursor == 0
        await type_keys(pilot, ".")
        assert message_list.cursor == cut


async def test_full_stop_is_shown_as_the_character_in_help(tmp_path: Path) -> None:
    from cutline.app.screens.modals import HelpScreen

    session = write_session(tmp_path / "ledger.jsonl")
    app = test_app(tmp_path / "store.db", str(session))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_keys(pilot, "?")
        assert isinstance(app.screen, HelpScreen)
        shown = {row[2]: row[0] for row in app.screen.rows}
        assert shown["list.jump_cut"] == "."
        assert "period" not in " ".join(shown.values()) and "full_stop" not in " ".join(shown.values())


# -- 4: a run does not block the desk; ctrl+x cancels at once and stores nothing ---------


class _Blocking(Summarizer):
    """Blocks its thread (as CPU-bound summarizing does) until released; notes where it ran."""

    name = "blocking"

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.threads: list[bool] = []

    async def summarize(self, request: SummaryRequest) -> str:
        self.threads.append(threading.current_thread() is threading.main_thread())
        self.started.set()
        self.release.wait(timeout=10)
        return "## Goal\nsummary"


async def test_a_run_leaves_the_desk_live_and_ctrl_x_stores_nothing(
    tmp_path: Path, ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cutline.core.summarizers
    from cutline.core import review

    blocking = _Blocking()
    monkeypatch.setattr(cutline.core.summarizers, "get_summarizer", lambda name, **kw: blocking)
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await type_keys(pilot, "r")
        assert await asyncio.to_thread(blocking.started.wait, 10)
        assert blocking.threads == [False], "the summarizer must run in a worker thread, not on the event loop"
        assert screen.running
        # the desk answers keys while the summarizer works
        message_list = screen.query_one(MessageList)
        await type_keys(pilot, "g")
        assert message_list.cursor == 0
        await type_keys(pilot, "\x18")  # ctrl+x
        assert not screen.running, "ctrl+x cancels at once"
        status = str(screen.query_one("#status-text", Static).render())
        assert "cancelled" in status
        blocking.release.set()
        await settle(pilot)
        assert screen.proposal is None
        assert review.list_proposals(app.store, screen.session.id) == [], "a cancelled run stores nothing"


# -- 5: the cut on the list and the open proposal agree, or the desk says they do not -----


async def test_accepting_a_proposal_whose_cut_is_not_on_the_list_says_so(tmp_path: Path, ledger: Path) -> None:
    from cutline.app.screens.modals import ConfirmScreen

    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await type_keys(pilot, "r")
        await settle(pilot)
        assert screen.proposal is not None
        made_at = screen.proposal.firstKeptEntryId
        await type_keys(pilot, "]" * 10)
        await settle(pilot)  # the re-plan is made in a worker
        assert screen.settings.keepRecentTokens == 15000
        assert screen.plan.firstKeptEntryId != made_at
        status = str(screen.query_one("#status-text", Static).render())
        assert "not the open proposal's cut" in status
        await type_keys(pilot, "a")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        assert "not the one on the list" in dialog.confirm_title
        assert f"keeps from entry {made_at}" in dialog.intro


async def test_reopening_shows_the_open_proposals_cut(tmp_path: Path, ledger: Path) -> None:
    store = tmp_path / "store.db"
    app = test_app(store, str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_keys(pilot, "]]]")
        await type_keys(pilot, "r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.proposal is not None
        made_at = screen.proposal.firstKeptEntryId
    again = test_app(store, str(ledger))
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = again.screen
        assert isinstance(screen, ReviewScreen) and screen.proposal is not None
        assert screen.settings.keepRecentTokens == 8000, "the settings the open proposal was made with"
        assert screen.plan.firstKeptEntryId == made_at
        assert screen.cut_disagreement() is None


# -- 6: at 80x24 every pane is on screen ---------------------------------------------------


async def test_at_80x24_the_side_pane_and_the_gauge_lines_are_on_screen(tmp_path: Path, ledger: Path) -> None:
    from textual.widgets import TabbedContent

    from cutline.app.widgets.gauge import BudgetGauge

    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        side = screen.query_one("#side", TabbedContent).region
        listed = screen.query_one(MessageList).region
        for region in (side, listed):
            assert region.width >= 40 and region.height >= 5, region
            assert region.right <= SMALL[0] and region.bottom <= SMALL[1], region
        gauge = screen.query_one(BudgetGauge)
        lines = gauge._content().plain.split("\n")
        assert len(lines) == 3 and all(len(line) <= gauge.size.width for line in lines)
        assert lines[2].startswith("pi · keep"), "the plan line (rules first) stays"


async def test_at_80x24_the_audit_panes_keep_their_height(tmp_path: Path) -> None:
    from cutline.core.store import Store
    from tests.support.audit_builders import audit_demo_session

    store = tmp_path / "store.db"
    with Store(store) as s:
        s.import_session(audit_demo_session())
    app = test_app(store, "audit-demo")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await type_keys(pilot, "A")
        await settle(pilot)
        for pane in ("#audit-warnings-box", "#audit-why-box", "#audit-lost", "#audit-source-box", "#audit-plot"):
            assert app.screen.query_one(pane).size.height >= 4, pane


# -- 7: after accepting, the gauge shows the context the agent now has ----------------------


async def test_after_accepting_the_gauge_shows_summary_plus_kept(tmp_path: Path, ledger: Path) -> None:
    from cutline.app.widgets.gauge import BudgetGauge

    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await type_keys(pilot, "r")
        await settle(pilot)
        assert screen.proposal is not None
        before, after = screen.proposal.tokensBefore, screen.proposal.tokensAfter
        await type_keys(pilot, "a")
        await settle(pilot)
        await type_keys(pilot, "y")
        await settle(pilot)
        assert screen.proposal_status == "accepted" and screen.plan.alreadyCompacted
        budget = screen.query_one(BudgetGauge).budget
        assert budget is not None
        assert budget.tokens_before < before / 2, "not the usage recorded before the compaction"
        assert abs(budget.tokens_before - after) <= after // 10, (budget.tokens_before, after)
        assert "summary + kept" in screen.query_one(BudgetGauge)._content().plain


# -- 8: key repeat keeps the settings field, the settings and the plan together -------------


async def test_a_late_echo_of_a_nudge_is_not_taken_for_an_edit(tmp_path: Path, ledger: Path) -> None:
    """Under key repeat the field's Changed for 6,000 can arrive after `]` has set 7,000: it must not win."""
    from textual.widgets import Input

    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await type_keys(pilot, "s")  # the settings tab; the list keeps the focus
        field = screen.query_one("#setting-keepRecentTokens", Input)
        await type_keys(pilot, "]]")
        await settle(pilot)
        assert field.value == "7000" and screen.settings.keepRecentTokens == 7000
        field.post_message(Input.Changed(field, "6000"))  # the echo of the first `]`, delivered late
        await settle(pilot)
        assert screen.settings.keepRecentTokens == 7000
        assert screen.plan.keepRecentTokens == 7000
        assert field.value == "7000"
        # a person's own edit still applies
        field.focus()  # selects the value: typing replaces it
        await pilot.pause()
        await type_keys(pilot, "700")
        await settle(pilot)
        assert field.value == "700"
        assert screen.settings.keepRecentTokens == 700


# -- 12: q quits; a stray Esc does not leave; going back keeps the tuning -------------------


async def test_q_quits(tmp_path: Path, ledger: Path) -> None:
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_keys(pilot, "q")
        assert app._exit, "q quits the desk"


async def test_q_in_a_text_field_is_a_character(tmp_path: Path, ledger: Path) -> None:
    from textual.widgets import Input

    from cutline.app.screens.sessions import SessionsScreen

    store = tmp_path / "store.db"
    app = test_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        await type_keys(pilot, "/q")
        assert not app._exit
        assert app.screen.query_one("#sessions-filter", Input).value == "q"


async def test_esc_on_the_list_asks_first_and_going_back_keeps_the_tuning(tmp_path: Path, ledger: Path) -> None:
    from cutline.app.screens.sessions import SessionsScreen

    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        review = app.screen
        assert isinstance(review, ReviewScreen)
        await type_keys(pilot, "]]")
        await pilot.press("escape")
        assert app.screen is review, "one Esc on the list does not leave"
        assert "Esc again" in str(review.query_one("#status-text", Static).render())
        await type_keys(pilot, "j")
        await pilot.press("escape")
        assert app.screen is review, "another key in between disarms it"
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        app.screen.open_session(review.session.id)
        await settle(pilot)
        assert app.screen is review, "the same screen comes back, not a reload"
        assert review.settings.keepRecentTokens == 7000


# -- 2: a pi v1 session is known not to take a write-back before anything is pressed ------


async def test_a_pi_v1_session_says_what_write_back_does_before_accepting(tmp_path: Path, cutline_home: Path) -> None:
    import shutil

    from cutline.app.screens.modals import ConfirmScreen
    from cutline.app.screens.sessions import SessionsScreen
    from tests.support.paths import SAMPLES

    sample = tmp_path / "legacy.jsonl"
    shutil.copyfile(SAMPLES / "pi-v1-legacy.jsonl", sample)
    (cutline_home / "config.toml").write_text("[compaction]\nkeepRecentTokens = 40\n", encoding="utf-8")
    app = test_app(tmp_path / "store.db", str(sample))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert "pi v1" in screen.sub_title, "worded as `cutline ls` words it"
        await type_keys(pilot, "r")
        await settle(pilot)
        assert screen.proposal is not None
        await type_keys(pilot, "a")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        assert "pi v1 file" in dialog.intro, "the dialog says what the write does to a v1 file, before it happens"
        await type_keys(pilot, "n")
        await pilot.press("escape", "escape")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        row = [str(cell) for cell in app.screen.query_one("#sessions-table").get_row_at(0)]
        assert "pi v1" in row and "yes (migrates v1)" in row


async def test_accept_store_only_leaves_the_file_alone(tmp_path: Path, ledger: Path) -> None:
    from cutline.app.screens.modals import ConfirmScreen

    original = ledger.read_bytes()
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await type_keys(pilot, "r")
        await settle(pilot)
        await type_keys(pilot, "K")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "not written" in app.screen.intro
        await type_keys(pilot, "y")
        await settle(pilot)
        assert screen.proposal_status == "accepted"
        assert ledger.read_bytes() == original


def test_a_refused_write_back_makes_no_backups_folder(tmp_path: Path, cutline_home: Path) -> None:
    import asyncio as aio

    from cutline.core import review
    from cutline.core.config.settings import CompactionSettings
    from cutline.core.engine.compact import compact
    from cutline.core.engine.plan import plan
    from cutline.core.errors import CutlineError
    from cutline.core.store import Store
    from cutline.core.summarizers import get_summarizer

    session_file = write_session(tmp_path / "ledger.jsonl")
    session_file.write_bytes(session_file.read_bytes().rstrip(b"\n"))  # an incomplete last line: pi would repair it
    with Store(tmp_path / "store.db") as store:
        report = store.import_file(session_file)
        session = store.load_session(report.session_id)
        settings = CompactionSettings(keepRecentTokens=5000)
        the_plan = plan(session.active_path(), settings, "chars4")
        proposal = aio.run(compact(the_plan, session, get_summarizer("extractive"), settings))
        review.save_proposal(store, proposal)
        with pytest.raises(CutlineError, match="refused"):
            review.accept(store, proposal.id, write_back=True)
    assert not (cutline_home / "backups").exists()


# -- 9: nothing to audit is a notice, not empty panes ----------------------------------------


async def test_audit_with_nothing_to_audit_is_a_notice(tmp_path: Path, ledger: Path) -> None:
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await type_keys(pilot, "A")
        await settle(pilot)
        assert app.screen is screen, "no empty audit screen"
        notes = [n.message for n in app._notifications]
        assert any("run one (r)" in note for note in notes)
        assert not any("--proposal" in note for note in notes)


# -- 13: words and numbers a person reads ---------------------------------------------------


async def test_unknown_binding_ids_and_key_collisions_in_keys_are_reported(tmp_path: Path, ledger: Path) -> None:
    from cutline.app.screens.modals import ErrorScreen

    app = test_app(tmp_path / "store.db", str(ledger), keys={"review.nosuch": "z", "review.run": "e"})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert "keys.review.nosuch: no binding has this id" in app.screen.message
        assert "e: both review.run and review.edit on ReviewScreen" in app.screen.message


async def test_the_palette_shows_keys_as_typed(tmp_path: Path, ledger: Path) -> None:
    from cutline.app.tui import CutlineCommands

    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        provider = CutlineCommands(app.screen)
        helps = {help_text for _title, help_text, _callback in provider._actions()}
        assert any(h.startswith("]  ·  review.keep_more") for h in helps), helps
        assert not any("square_bracket" in h for h in helps)


async def test_rejecting_says_what_happened_once(tmp_path: Path, ledger: Path) -> None:
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        await type_keys(pilot, "r")
        await settle(pilot)
        await type_keys(pilot, "x")
        await settle(pilot)
        await type_keys(pilot, "y")
        await settle(pilot)
        status = str(screen.query_one("#status-text", Static).render())
        assert status == "proposal rejected: nothing written to the session file"


def test_counts_agree_with_their_nouns() -> None:
    from cutline.app.widgets.labels import plural

    assert plural(1, "entry", "entries") == "1 entry"
    assert plural(12_345, "entry", "entries") == "12,345 entries"


# -- "nothing to summarize" is a notice with advice --------------------------------------------


async def test_nothing_to_summarize_is_a_notice_with_advice(tmp_path: Path, cutline_home: Path) -> None:
    from cutline.app.screens.modals import ErrorScreen

    (cutline_home / "config.toml").write_text("[compaction]\nkeepRecentTokens = 150000\n", encoding="utf-8")
    session = write_session(tmp_path / "ledger.jsonl")  # 150,000 keeps all of it
    app = test_app(tmp_path / "store.db", str(session))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        await type_keys(pilot, "r")
        await settle(pilot)
        assert app.screen is screen and not isinstance(app.screen, ErrorScreen)
        notes = [n for n in app._notifications if n.title == "Nothing to summarize"]
        assert notes and "press [" in notes[0].message, [(n.title, n.message) for n in app._notifications]


# -- 3: the rebuilt context shows every column, and what a tool-call-only message does -------
# (this test was lost in a merge of the desk branch; restored)


def test_the_rebuilt_context_keeps_its_columns_and_names_tool_calls() -> None:
    import io

    from rich.console import Console

    from cutline.app.widgets.proposal_view import context_table
    from cutline.core.engine.compact import Proposal
    from cutline.core.models import Message

    calls_only = Message.model_validate(
        {
            "role": "assistant",
            "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "pytest -q"}}],
        }
    )
    said = Message.model_validate({"role": "user", "content": [{"type": "text", "text": "please run the tests " * 20}]})
    proposal = Proposal(
        id="p",
        session_id="s",
        created_at="",
        mode="pi",
        summary="",
        context=[said, calls_only],
        context_entry_ids=["a0000001", "a0000002"],
    )
    console = Console(width=70, file=io.StringIO(), record=True, color_system=None)
    console.print(context_table(proposal))
    lines = console.export_text().splitlines()
    assert "role" in lines[0] and "from" in lines[0]
    assert "user" in lines[1] and "a0000001" in lines[1] and "please run" in lines[1]
    assert "assistant" in lines[2] and "a0000002" in lines[2] and "⚒ bash pytest -q" in lines[2]
