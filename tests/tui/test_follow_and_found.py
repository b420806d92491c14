"""The desk follows a session the agent is still writing, and lists every agent's sessions on this machine (pilot)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cutline.app.screens.found import FoundSessionsScreen
from cutline.app.screens.session_review import ReviewScreen
from cutline.app.widgets.message_list import MessageList
from tests.support.tui_app import SIZE, settle, test_app

CORPUS = Path(__file__).parent.parent / "fixtures" / "corpus"


async def _until(app, pilot, condition, attempts: int = 300) -> None:  # type: ignore[no-untyped-def]
    for _ in range(attempts):
        if condition():
            return
        await pilot.pause(0.02)
        await settle(app, pilot)
    raise AssertionError("condition never became true")


async def test_a_line_the_agent_appends_appears_in_the_open_desk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = tmp_path / "session.jsonl"
    shutil.copyfile(CORPUS / "pi-0.87" / "main" / "session.jsonl", session)
    monkeypatch.setattr(ReviewScreen, "FOLLOW_SECONDS", 0.05)
    app = test_app(tmp_path / "store.db", str(session))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        before = len(screen.path)
        last = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])
        line = {
            "type": "message",
            "id": "0000f011",
            "parentId": last["id"],
            "timestamp": last["timestamp"],
            "message": {"role": "user", "content": [{"type": "text", "text": "Typed while the desk was open"}]},
        }
        with open(session, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")
        await _until(app, pilot, lambda: len(screen.path) == before + 1)
        assert screen.path[-1].id == "0000f011"
        assert screen.query_one(MessageList).entries[-1].id == "0000f011"
        stored = app.store.sessions.rows_for_path(str(session.resolve()))
        assert len(stored) == 1


async def test_sessions_on_this_machine_open_into_the_desk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    target = home / ".pi" / "agent" / "sessions" / "--tmp-work--" / "2026-11-24T23-48-46-601Z_b.jsonl"
    target.parent.mkdir(parents=True)
    shutil.copyfile(CORPUS / "pi-0.87" / "main" / "session.jsonl", target)
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR", "OPENCLAW_STATE_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    app = test_app(tmp_path / "store.db")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("m")
        await settle(app, pilot)
        assert isinstance(app.screen, FoundSessionsScreen)
        assert app.screen.query_one("#found-table").row_count == 1
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ReviewScreen)
        assert app.screen.session is not None and app.screen.session.source_path == str(target.resolve())
