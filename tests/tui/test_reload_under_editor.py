"""A reload under the summary editor (the file changed on disk while the person types) keeps the editor's focus,
the active tab and the typed text: letters typed after it never run as commands (issue 27 item 9, pilot)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import TabbedContent, TextArea

from cutline.app.screens.session_review import ReviewScreen
from tests.support.tui_app import SIZE, settle, test_app, write_session


async def _until(app, pilot, condition, attempts: int = 300) -> None:  # type: ignore[no-untyped-def]
    for _ in range(attempts):
        if condition():
            return
        await pilot.pause(0.02)
        await settle(app, pilot)
    raise AssertionError("condition never became true")


def _append_user_line(session: Path, text: str) -> None:
    """What an agent (or `cutline undo` rewriting the file) does under the open desk: the file changes on disk."""
    last = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])
    line = {
        "type": "message",
        "id": "0000f011",
        "parentId": last["id"],
        "timestamp": last["timestamp"],
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
    }
    with open(session, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")


async def test_typing_in_the_editor_survives_a_reload_from_disk(
    tmp_path: Path, cutline_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (cutline_home / "config.toml").write_text("[compaction]\nkeepRecentTokens = 5000\n", encoding="utf-8")
    session = write_session(tmp_path / "ledger.jsonl")
    monkeypatch.setattr(ReviewScreen, "FOLLOW_SECONDS", 0.05)
    app = test_app(tmp_path / "store.db", str(session))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await pilot.press("r")
        await settle(app, pilot)
        assert screen.proposal is not None and screen.proposal_status == "open"
        await pilot.press("e")
        await settle(app, pilot)
        editor = screen.query_one("#summary-editor", TextArea)
        assert screen.focused is editor
        editor.move_cursor((0, 0))
        await pilot.press(*"Checked ")
        before = len(screen.path)
        _append_user_line(session, "Typed while the desk was open")
        await _until(app, pilot, lambda: len(screen.path) == before + 1)
        # the keys a person goes on typing: each would run a command if the editor had lost the focus
        await pilot.press(*"raxs")
        await settle(app, pilot)
        assert app.screen is screen, "a letter ran as a command and opened a dialog"
        assert screen.focused is editor
        assert screen.query_one(TabbedContent).active == "tab-summary"
        assert editor.text.startswith("Checked raxs"), editor.text[:40]
        assert screen.proposal_status == "open"


async def test_a_decision_made_elsewhere_keeps_the_editor_focused_and_read_only(
    tmp_path: Path, cutline_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cutline accept --write-back` from a shell while the person types: the reload finds the proposal accepted."""
    from cutline.core import workbench
    from cutline.core.store import Store

    (cutline_home / "config.toml").write_text("[compaction]\nkeepRecentTokens = 5000\n", encoding="utf-8")
    session = write_session(tmp_path / "ledger.jsonl")
    monkeypatch.setattr(ReviewScreen, "FOLLOW_SECONDS", 0.05)
    app = test_app(tmp_path / "store.db", str(session))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await pilot.press("r")
        await settle(app, pilot)
        assert screen.proposal is not None
        proposal_id = screen.proposal.id
        await pilot.press("e")
        await settle(app, pilot)
        editor = screen.query_one("#summary-editor", TextArea)
        editor.move_cursor((0, 0))
        await pilot.press(*"Checked ")
        with Store(tmp_path / "store.db") as other:  # another process's connection, as the CLI has
            workbench.accept(other, proposal_id, write_back=True)
        await _until(app, pilot, lambda: screen.proposal_status == "accepted")
        await pilot.press(*"raxs")
        await settle(app, pilot)
        assert app.screen is screen, "a letter ran as a command and opened a dialog"
        assert not screen.running
        assert screen.focused is editor and editor.read_only
        assert screen.query_one(TabbedContent).active == "tab-summary"
        assert screen.proposal is not None and screen.proposal.id == proposal_id
