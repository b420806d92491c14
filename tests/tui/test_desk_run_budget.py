"""The run's budget on big sessions (issue 27 item 3): the deadline covers everything and the run gives up by itself.

The run's synchronous work (on a 100,000-entry session: reading and rebuilding its path)
is stood in for by a `workbench.propose` that blocks its thread; the desk's clock is
moved past the deadline as the countdown would see it.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import cutline.core.workbench
from cutline.app.config import TuiConfig
from cutline.app.screens.modals import ErrorScreen
from cutline.app.screens.session_review import ReviewScreen
from cutline.app.tui import create_app
from cutline.app.widgets.message_list import MessageList
from tests.support.keys import type_keys
from tests.support.tui_app import FIXED_NOW, SIZE, rendered_text, settle, write_session


async def test_a_run_stuck_in_synchronous_work_gives_up_by_itself_at_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cutline_home: Path
) -> None:
    (cutline_home / "config.toml").write_text(
        "[compaction]\nkeepRecentTokens = 5000\ntimeoutSeconds = 30\n", encoding="utf-8"
    )
    entered, release = threading.Event(), threading.Event()

    def stuck(*args: Any, **kwargs: Any) -> None:
        entered.set()
        release.wait(60)  # the run's thread busy in work that never awaits
        return None

    monkeypatch.setattr(cutline.core.workbench, "propose", stuck)
    now = [FIXED_NOW]
    app = create_app(
        tmp_path / "store.db",
        str(write_session(tmp_path / "ledger.jsonl")),
        clock=lambda: now[0],
        cursor_blink=False,
        config=TuiConfig(keys={}),
        autosave_seconds=3600.0,
    )
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            screen = app.screen
            assert isinstance(screen, ReviewScreen)
            await type_keys(pilot, "r")
            assert entered.wait(30)
            await pilot.pause()
            assert "0:30 left" in rendered_text(screen.query_one("#status-text").content)
            now[0] = FIXED_NOW + timedelta(seconds=31)  # the deadline passed; the thread is still busy
            for _ in range(300):  # the countdown looks once a second
                if not screen.running:
                    break
                await pilot.pause(0.02)
            assert not screen.running, "the run went on past its deadline"
            status = rendered_text(screen.query_one("#status-text").content)
            assert "stopped at its deadline" in status and "nothing stored" in status
            assert isinstance(app.screen, ErrorScreen)
            assert "did not finish within its 30 s deadline" in str(app.screen.message)
            await type_keys(pilot, "\r")  # the error dismissed: the list answers at once, the thread still busy
            message_list = screen.query_one(MessageList)
            before = message_list.cursor
            await type_keys(pilot, "k")
            assert message_list.cursor == before - 1
            release.set()  # the thread ends before the app does
    finally:
        release.set()
