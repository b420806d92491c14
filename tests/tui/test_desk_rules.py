"""The desk names the planner rule set in its gauge, and its settings panel can force another."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Select

from cutline.app.screens.session_review import ReviewScreen
from tests.support.tui_app import SIZE, rendered_text, settle, test_app, write_session


async def test_the_gauge_names_the_rules_and_the_settings_panel_forces_them(tmp_path: Path) -> None:
    session = write_session(tmp_path / "ledger.jsonl")
    app = test_app(tmp_path / "store.db", str(session))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert screen.plan.rules == "pi"  # nothing in the file tells: the default, current pi
        assert "rules pi ·" in rendered_text(screen.query_one("#budget").content, 200)
        await pilot.press("s")
        await pilot.pause()
        select = screen.query_one("#setting-rules", Select)
        assert select.value == "session"
        select.value = "pi-0.73"
        await settle(app, pilot)
        assert screen.plan.rules == "pi-0.73"
        assert "rules pi-0.73 ·" in rendered_text(screen.query_one("#budget").content, 200)
        select.value = "session"
        await settle(app, pilot)
        assert screen.plan.rules == "pi"
