"""A settings change is planned as it is typed and drawn in the frames that follow: the cut moves on screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from cutline.app.screens.session_review import ReviewScreen
from cutline.app.tui import CutlineApp
from cutline.app.widgets.gauge import BudgetGauge
from cutline.app.widgets.message_list import MessageList
from tests.support.drawn_screen import DrawnScreen, rendered_now
from tests.support.tui_app import SIZE, settle, test_app, write_session


def _cut_lines(lines: list[str], message_list: MessageList) -> list[int]:
    """Screen rows of the list that show the cut line."""
    region = message_list.content_region
    return [y for y in range(region.y, region.bottom) if "✂" in lines[y][region.x : region.right]]


def _desk(tmp_path: Path, cutline_home: Path) -> CutlineApp:
    (cutline_home / "config.toml").write_text('[compaction]\nrules = "pi-0.73"\n', encoding="utf-8")  # pi 0.73's cut
    return test_app(tmp_path / "store.db", str(write_session(tmp_path / "ledger.jsonl")))


@pytest.mark.parametrize("inline", [True, False], ids=["cheap-plan-inline", "worker"])
async def test_an_edit_of_keep_recent_tokens_is_planned_as_the_field_changes(
    tmp_path: Path, cutline_home: Path, monkeypatch: pytest.MonkeyPatch, inline: bool
) -> None:
    if not inline:
        monkeypatch.setattr(ReviewScreen, "INLINE_PLAN_S", 0.0)  # as a re-plan that last cost more does
    app = _desk(tmp_path, cutline_home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        message_list = screen.query_one(MessageList)
        before = message_list.marks.first_kept if message_list.marks else None
        await pilot.press("s")
        field = screen.query_one("#setting-keepRecentTokens", Input)
        field.value = "5000"
        # no message round trip: the settings are new before the next frame can be drawn, and either the new plan
        # is drawn already (a cheap re-plan, made in the handler) or the gauge says it is pending (a worker makes it)
        gauge = screen.query_one(BudgetGauge)
        assert screen.settings.keepRecentTokens == 5000
        if inline:
            assert not screen.replanning and screen.plan is not None and screen.plan.keepRecentTokens == 5000
            assert message_list.marks is not None and message_list.marks.first_kept != before
        else:
            assert screen.replanning and "plan pending · keepRecentTokens 5,000" in str(gauge.render())
        await settle(app, pilot)
        assert screen.plan is not None and screen.plan.keepRecentTokens == 5000
        assert message_list.marks is not None and message_list.marks.first_kept != before
        assert gauge.budget is not None and gauge.budget.keep_recent == 5000 and "pending" not in str(gauge.render())


async def test_the_drawn_screen_shows_the_moved_cut_after_typing_and_after_a_nudge(
    tmp_path: Path, cutline_home: Path
) -> None:
    app = _desk(tmp_path, cutline_home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        message_list = screen.query_one(MessageList)
        drawn = DrawnScreen(app)
        screen.refresh()  # one full frame to start from
        await pilot.press("s")
        await settle(app, pilot)
        old_cut = _cut_lines(drawn.lines(), message_list)
        assert len(old_cut) == 1

        field = screen.query_one("#setting-keepRecentTokens", Input)
        field.focus()
        await pilot.press("end", *["backspace"] * 8, *"5000")
        await settle(app, pilot)
        # what the partial repaints left on screen is what a full repaint draws: the cut moved, no stale row
        assert drawn.lines() == rendered_now(app)
        typed_cut = _cut_lines(drawn.lines(), message_list)
        assert len(typed_cut) == 1 and typed_cut != old_cut

        await pilot.press("escape", "right_square_bracket")
        await settle(app, pilot)
        assert screen.settings.keepRecentTokens == 6000
        assert drawn.lines() == rendered_now(app)
        nudged_cut = _cut_lines(drawn.lines(), message_list)
        assert len(nudged_cut) == 1 and nudged_cut != typed_cut
