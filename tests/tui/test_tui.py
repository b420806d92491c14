"""Workflows on the review desk, driven with Textual's pilot."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widgets import Input, Static, TextArea

from cutline.app.screens.modals import AcceptScreen, ErrorScreen
from cutline.app.screens.session_review import ReviewScreen
from cutline.app.screens.sessions import SessionsScreen
from cutline.app.widgets.message_list import MessageList
from tests.support.tui_app import MARKUP_TEXT, SIZE, rendered_text, sample_copy, settle, test_app, write_session


def strip_text(message_list: MessageList, y: int) -> str:
    """The text of one visible row of the list, as painted."""
    return message_list.render_line(y).text


async def wait_until(app, pilot, condition, attempts: int = 200, *, join_workers: bool = True) -> None:
    """Let the app run (timers included) until `condition()` holds; fail if it never does.

    `join_workers=False` when a worker is meant to fail: joining it re-raises its error in the test.
    """
    for _ in range(attempts):
        if condition():
            return
        await pilot.pause(0.02)
        if join_workers:
            await app.workers.wait_for_complete()
    raise AssertionError("condition never became true")


def visible_rows(message_list: MessageList) -> list[str]:
    return [strip_text(message_list, y) for y in range(message_list.scrollable_content_region.height)]


async def test_changing_keep_recent_tokens_moves_the_cut_line(tmp_path: Path, cutline_home: Path) -> None:
    (cutline_home / "config.toml").write_text('[compaction]\nrules = "pi-0.73"\n', encoding="utf-8")  # pi 0.73's cut
    session = write_session(tmp_path / "ledger.jsonl")
    app = test_app(tmp_path / "store.db", str(session))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        message_list = screen.query_one(MessageList)
        before = message_list.marks.first_kept
        assert before is not None and screen.plan.keepRecentTokens == 20000

        await pilot.press("s")
        field = screen.query_one("#setting-keepRecentTokens", Input)
        field.focus()
        await pilot.press("end", *["backspace"] * 8, *"5000")
        await settle(app, pilot)  # the re-plan is made in a worker
        assert field.value == "5000"
        assert screen.settings.keepRecentTokens == 5000
        after = message_list.marks.first_kept
        assert after is not None and after > before, "keeping fewer tokens must move the cut towards the end"

        # the cut line is painted right above the first kept entry
        await pilot.press("escape")
        await pilot.press(".")
        await pilot.pause()
        rows = visible_rows(message_list)
        cut_rows = [i for i, row in enumerate(rows) if "✂" in row]
        assert len(cut_rows) == 1
        kept_id = screen.path[after].id
        assert kept_id in rows[cut_rows[0]]

        # the bracket keys nudge keepRecentTokens and the panel follows
        await pilot.press("right_square_bracket", "right_square_bracket")
        await settle(app, pilot)
        assert screen.settings.keepRecentTokens == 7000
        assert field.value == "7000"
        assert message_list.marks.first_kept < after


async def test_markup_and_escapes_in_messages_are_shown_literally(tmp_path: Path) -> None:
    session = write_session(tmp_path / "ledger.jsonl")
    app = test_app(tmp_path / "store.db", str(session))
    async with app.run_test(size=(220, 42)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        message_list = screen.query_one(MessageList)
        index = next(i for i, e in enumerate(screen.path) if e.message and MARKUP_TEXT in e.message.text())
        message_list.cursor = index
        await pilot.pause()
        y = message_list.display_row(index) - round(message_list.scroll_y)
        row = strip_text(message_list, y)
        assert "[bold]this[/bold]" in row
        assert "[link=https://example.com]that[/link]" in row
        assert "\x1b" not in row and "␛[31mred␛[0m" in row
        # no segment of the row carries a link or bold coming from the text
        for segment in message_list.render_line(y):
            if "this" in segment.text:
                assert not (segment.style and segment.style.link)
        text = rendered_text(screen.query_one("#detail-body").content)
        assert "[bold]this[/bold]" in text and "␛[31m" in text and "\x1b" not in text


async def test_run_edit_accept_writes_the_entry_to_the_session_file(tmp_path: Path) -> None:
    session_file = sample_copy(tmp_path)
    original = session_file.read_text(encoding="utf-8")
    app = test_app(tmp_path / "store.db", str(session_file))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        first_kept = screen.plan.firstKeptEntryId
        await pilot.press("r")
        await settle(app, pilot)
        assert screen.proposal is not None, "the run must produce a proposal"
        assert screen.proposal.validation.ok
        await pilot.press("e")
        editor = screen.query_one("#summary-editor", TextArea)
        assert editor.has_focus
        assert "\x1b" not in "".join(strip.text for strip in editor.render_lines(editor.region.reset_offset))
        editor.move_cursor((0, 0))
        await pilot.press(*"REVIEWED BY A HUMAN. ")
        await pilot.press("escape")
        await pilot.press("a")
        await settle(app, pilot)
        confirm = app.screen
        assert isinstance(confirm, AcceptScreen)
        assert "REVIEWED BY A HUMAN." in confirm.body
        assert session_file.name in confirm.intro
        await pilot.press("j")  # the exact line, on request
        body = confirm.query_one("#confirm-body", Static)
        shown = body.render_lines(Region(0, 0, body.size.width, body.size.height))
        assert "".join(strip.text.strip() for strip in shown).startswith('{"type":"compaction"')
        await pilot.press("y")
        await settle(app, pilot)
        assert screen.proposal_status == "accepted"
        await pilot.press("H")
        await settle(app, pilot)
        table = app.screen.query_one("#history-table")
        history = "\n".join(table.render_line(y).text for y in range(table.size.height))
        assert screen.proposal.id[:8] in history and "accepted" in history
        table.move_cursor(row=table.row_count - 1)
        await pilot.pause()
        detail = str(app.screen.query_one("#history-detail").content)
        assert screen.proposal.id in detail and session_file.name in detail, "where it was written"
        await pilot.press("escape")

    written = session_file.read_text(encoding="utf-8")
    assert written.startswith(original), "accepting only appends"
    last = json.loads(written.splitlines()[-1])
    assert last["type"] == "compaction"
    assert last["summary"].startswith("REVIEWED BY A HUMAN. ")
    assert last["firstKeptEntryId"] == first_kept
    assert confirm.line == written.splitlines()[-1], "the confirmation showed exactly the line that was written"


def keep_recent(home: Path, tokens: int) -> None:
    """Configure keepRecentTokens in the test's CUTLINE_HOME (the small fixed session needs less than 20000 to cut)."""
    (home / "config.toml").write_text(f"[compaction]\nkeepRecentTokens = {tokens}\n", encoding="utf-8")


async def test_quitting_in_the_middle_of_an_edit_keeps_the_edit(tmp_path: Path, cutline_home: Path) -> None:
    keep_recent(cutline_home, 5000)
    session = write_session(tmp_path / "ledger.jsonl")
    store = tmp_path / "store.db"
    app = test_app(store, str(session))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        await pilot.press("e")
        await pilot.press("end", *"ZQX-unsaved-edit")
        # quit at once: the debounce timer has not fired yet
        await pilot.press("ctrl+q")
    again = test_app(store, str(session))
    async with again.run_test(size=SIZE) as pilot:
        await settle(again, pilot)
        screen = again.screen
        assert isinstance(screen, ReviewScreen)
        assert screen.proposal is not None
        assert screen.versions[-1].origin == "edited"
        assert "ZQX-unsaved-edit" in screen.query_one("#summary-editor", TextArea).text


async def test_edits_are_saved_as_versions_while_typing(tmp_path: Path, cutline_home: Path) -> None:
    keep_recent(cutline_home, 5000)
    session = write_session(tmp_path / "ledger.jsonl")
    app = test_app(tmp_path / "store.db", str(session), autosave_seconds=0.05)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        screen = app.screen
        assert [v.origin for v in screen.versions] == ["generated"]
        await pilot.press("e", "end", *"!!")
        editor = screen.query_one("#summary-editor", TextArea)
        await wait_until(app, pilot, lambda: screen.pending_text is None and "!!" in screen.versions[-1].text)
        assert screen.versions[-1].origin == "edited" and screen.versions[-1].text == editor.text
        # revert to the generated version from the diff screen: a new version, nothing lost
        await pilot.press("escape", "v")
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        assert screen.versions[-1].origin == "reverted"
        assert screen.versions[-1].text == screen.versions[0].text
        assert screen.query_one("#summary-editor", TextArea).text == screen.versions[0].text


async def test_errors_open_a_modal_and_the_app_keeps_running(tmp_path: Path) -> None:
    app = test_app(tmp_path / "store.db", "no-such-session")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert "no-such-session" in app.screen.message
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, SessionsScreen)


async def test_sessions_screen_filters_as_you_type_and_opens(tmp_path: Path) -> None:
    from cutline.core.store import Store

    store_path = tmp_path / "store.db"
    with Store(store_path) as store:
        store.import_file(write_session(tmp_path / "ledger-alpha.jsonl"))
        store.import_file(write_session(tmp_path / "payments-beta.jsonl", turns=3))
    app = test_app(store_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        table = screen.query_one("#sessions-table")
        assert table.row_count == 2
        await pilot.press("slash", *"beta")
        await pilot.pause()
        assert table.row_count == 1
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ReviewScreen)
        assert len(app.screen.path) < 30


async def test_keys_are_remappable_from_config(tmp_path: Path) -> None:
    session = write_session(tmp_path / "ledger.jsonl")
    app = test_app(tmp_path / "store.db", str(session), keys={"review.keep_more": "plus"})
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        await pilot.press("plus")
        await pilot.pause()
        assert screen.settings.keepRecentTokens == 21000
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert screen.settings.keepRecentTokens == 21000, "the old key no longer applies"


async def test_import_prompt_completes_paths_and_opens_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_session(tmp_path / "ledger-import.jsonl")
    monkeypatch.chdir(tmp_path)
    app = test_app(tmp_path / "store.db")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("i")
        await pilot.pause()
        await pilot.press(*"ledger-i")
        await settle(app, pilot)
        await pilot.press("tab")
        field = app.screen.query_one("#path-input", Input)
        assert field.value == "ledger-import.jsonl", "tab completes from the filesystem"
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ReviewScreen)
        assert len(app.screen.path) == 49


async def test_palette_and_help_list_the_actions(tmp_path: Path) -> None:
    from textual.command import CommandPalette

    from cutline.app.screens.modals import HelpScreen

    session = write_session(tmp_path / "ledger.jsonl")
    app = test_app(tmp_path / "store.db", str(session))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        review = app.screen
        await pilot.press("f1")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        ids = {binding_id for _, _, binding_id in help_screen.rows}
        assert {"review.run", "review.accept", "review.edit", "review.diff", "review.history", "app.quit"} <= ids
        await pilot.press("escape")
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        palette = app.screen
        await pilot.press(*"keepRecentTokens + 1000")
        from textual.command import CommandList

        commands = palette.query_one(CommandList)
        await wait_until(app, pilot, lambda: commands.option_count > 0)
        assert "keepRecentTokens + 1000" in str(commands.get_option_at_index(0).prompt)
        await pilot.press("down", "enter")
        await settle(app, pilot)
        assert app.screen is review
        assert review.settings.keepRecentTokens == 21000, "the palette ran the keep-more action"


def test_tui_config_reads_keys_and_rejects_bad_values(tmp_path: Path) -> None:
    from cutline.app.config import load_tui_config
    from cutline.core.errors import SettingsError

    config = tmp_path / "config.toml"
    config.write_text(
        '[compaction]\nkeepRecentTokens = 5000\n[keys]\n"review.run" = "R, f5"\n[tui]\ntheme = "cutline-light"\n'
    )
    loaded = load_tui_config(config)
    assert loaded.keys == {"review.run": "R,f5"} and loaded.theme == "cutline-light"
    config.write_text('[keys]\n"review.run" = 5\n')
    with pytest.raises(SettingsError, match=re.escape("keys.review.run")):
        load_tui_config(config)
    config.write_text('[tui]\ntheme = "neon"\n')
    with pytest.raises(SettingsError, match=re.escape("tui.theme")):
        load_tui_config(config)
    assert load_tui_config(tmp_path / "missing.toml").keys == {}


async def test_switching_the_counter_recounts_and_replans(tmp_path: Path) -> None:
    session = write_session(tmp_path / "ledger.jsonl")
    app = test_app(tmp_path / "store.db", str(session))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        message_list = screen.query_one(MessageList)
        chars4 = list(message_list.tokens)
        await pilot.press("c")
        await settle(app, pilot)
        assert screen.counter == "tiktoken" and screen.plan.counter == "tiktoken"
        assert list(message_list.tokens) != chars4
        assert "[tiktoken]" in rendered_text(screen.query_one("#budget").content)
        await pilot.press("c")
        await settle(app, pilot)
        assert screen.counter == "calibrated"
        ratio = screen.calibration_ratio
        assert ratio != 1.0
        assert list(message_list.tokens) == [math.ceil(t * ratio - 1e-9) if t else 0 for t in chars4]


async def test_a_run_can_be_cancelled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cutline_home: Path) -> None:
    import asyncio

    import cutline.core.summarizers
    from cutline.core.summarizers.base import Summarizer, SummaryRequest

    started = asyncio.Event()

    class Waiting(Summarizer):
        name = "waiting"

        async def summarize(self, request: SummaryRequest) -> str:
            started.set()
            await asyncio.Event().wait()
            return ""

    monkeypatch.setattr(cutline.core.summarizers, "get_summarizer", lambda name, **kw: Waiting())
    keep_recent(cutline_home, 5000)
    session = write_session(tmp_path / "ledger.jsonl")
    app = test_app(tmp_path / "store.db", str(session))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        await pilot.press("r")
        await asyncio.wait_for(started.wait(), 60)
        assert screen.running
        assert "running" in rendered_text(screen.query_one("#status-text").content)
        await pilot.press("ctrl+x")
        await wait_until(app, pilot, lambda: not screen.running)
        assert screen.proposal is None
        assert "cancelled" in rendered_text(screen.query_one("#status-text").content)
        assert isinstance(app.screen, ReviewScreen), "no error modal for a cancel"


async def test_hooks_from_config_run_when_the_desk_compacts(
    tmp_path: Path, cutline_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hooks_dir = tmp_path / "hooks"
    hooks_dir.mkdir()
    record = tmp_path / "hook-calls.jsonl"
    (hooks_dir / "desk_hook_probe.py").write_text(
        "import json\n"
        f"RECORD = {str(record)!r}\n"
        "def before(event):\n"
        "    with open(RECORD, 'a') as f: f.write(json.dumps(['before', event]) + '\\n')\n"
        "async def after(event):\n"
        "    with open(RECORD, 'a') as f: f.write(json.dumps(['after', event]) + '\\n')\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(hooks_dir))
    (cutline_home / "config.toml").write_text(
        "[compaction]\nkeepRecentTokens = 5000\n"
        '[hooks]\nbefore_compaction = ["desk_hook_probe:before"]\nafter_compaction = ["desk_hook_probe:after"]\n',
        encoding="utf-8",
    )
    session = write_session(tmp_path / "ledger.jsonl")
    app = test_app(tmp_path / "store.db", str(session))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        await pilot.press("r")
        await settle(app, pilot)
        assert screen.proposal is not None and not screen.running
    calls = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert [name for name, _ in calls] == ["before", "after"]
    assert calls[1][1]["compactedCount"] == screen.proposal.summarizedCount


async def test_a_run_shows_its_time_left_and_stops_at_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cutline_home: Path
) -> None:
    import asyncio

    import cutline.core.summarizers
    from cutline.core.summarizers.base import Summarizer, SummaryRequest

    started = asyncio.Event()

    class Silent(Summarizer):
        name = "silent"

        async def summarize(self, request: SummaryRequest) -> str:
            started.set()
            await asyncio.Event().wait()
            return ""

    monkeypatch.setattr(cutline.core.summarizers, "get_summarizer", lambda name, **kw: Silent())
    (cutline_home / "config.toml").write_text(
        "[compaction]\nkeepRecentTokens = 5000\ntimeoutSeconds = 90\n", encoding="utf-8"
    )
    session = write_session(tmp_path / "ledger.jsonl")
    app = test_app(tmp_path / "store.db", str(session))  # its clock stands still: the time left stays 1:30
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        await pilot.press("r")
        await asyncio.wait_for(started.wait(), 60)
        await pilot.pause()
        status = rendered_text(screen.query_one("#status-text").content)
        assert status.startswith("running: ") and "· 1:30 left (ctrl+x cancels)" in status
        await pilot.press("ctrl+x")
        await wait_until(app, pilot, lambda: not screen.running)
        screen.settings = screen.settings.with_overrides(timeoutSeconds=0.2)
        await pilot.press("r")
        await wait_until(
            app, pilot, lambda: isinstance(app.screen, ErrorScreen) and app.screen.is_mounted, join_workers=False
        )
        assert "did not finish within its 0.2 s deadline" in str(app.screen.message)
        assert "compaction failed" in rendered_text(screen.query_one("#status-text").content)
