"""Issue 13's "why": the review screen shows the plan's explanation, opens with the cut in view and keeps it there."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static, TabbedContent

from cutline.app.screens.session_review import ReviewScreen
from cutline.app.widgets.message_list import MessageList
from cutline.app.widgets.plan_why import PlanWhy
from cutline.core.engine.plan_text import plan_lines
from tests.support.keys import SIZE, SMALL, type_keys
from tests.support.tui_app import rendered_text, test_app, write_session
from tests.support.tui_app import settle_pilot as settle


@pytest.fixture
def long_ledger(tmp_path: Path, cutline_home: Path) -> Path:
    """A session long enough that the list scrolls, with the cut far from both ends."""
    (cutline_home / "config.toml").write_text("[compaction]\nkeepRecentTokens = 9000\n", encoding="utf-8")
    return write_session(tmp_path / "ledger.jsonl", turns=24, body_lines=20)


def _cut_visible(message_list: MessageList) -> bool:
    cut = message_list.cut_row
    top = round(message_list.scroll_y)
    return cut is not None and top <= cut < top + message_list.scrollable_content_region.height


def _why_text(screen: ReviewScreen) -> str:
    body = screen.query_one("#why-text", Static)
    return rendered_text(body.content, width=max(body.content_region.width, 40))


@pytest.mark.parametrize("size", [SIZE, SMALL])
async def test_the_review_screen_opens_with_the_cut_in_view(
    tmp_path: Path, long_ledger: Path, size: tuple[int, int]
) -> None:
    app = test_app(tmp_path / "store.db", str(long_ledger))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        message_list = screen.query_one(MessageList)
        assert message_list.marks is not None and message_list.marks.first_kept is not None
        assert message_list.marks.first_kept < len(message_list.entries) - 5  # the cut is not at the end
        assert message_list.cursor == message_list.marks.first_kept
        assert _cut_visible(message_list)


async def test_w_shows_the_plans_explanation_and_it_follows_each_replan(tmp_path: Path, long_ledger: Path) -> None:
    app = test_app(tmp_path / "store.db", str(long_ledger))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await type_keys(pilot, "w")
        assert screen.query_one(TabbedContent).active == "tab-why"
        first = _why_text(screen)
        assert ("why:" in first and "keepRecentTokens" in first) or "walked back" in first
        assert screen.query_one(PlanWhy).lines == plan_lines(screen.plan)
        await type_keys(pilot, "]]]")
        await settle(pilot)
        assert screen.settings.keepRecentTokens == 12000
        assert screen.query_one(PlanWhy).lines == plan_lines(screen.plan)
        assert _why_text(screen) != first


async def test_brackets_keep_the_cut_in_view(tmp_path: Path, long_ledger: Path) -> None:
    app = test_app(tmp_path / "store.db", str(long_ledger))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        message_list = screen.query_one(MessageList)
        await type_keys(pilot, "[[[[[[")  # the cursor sat on the cut: it follows it
        await settle(pilot)
        assert message_list.cursor == message_list.marks.first_kept  # type: ignore[union-attr]
        assert _cut_visible(message_list)
        await type_keys(pilot, "g")  # the cursor elsewhere: the list scrolls to the cut anyway
        await type_keys(pilot, "]]]]]]]]]]]]")
        await settle(pilot)
        assert message_list.cursor == 0
        assert _cut_visible(message_list)


# -- 5: `s` focuses the first choice (the mode; keepRecentTokens above it, issue 27 item 8); a mode's overrides show in the settings ------------


async def test_s_focuses_the_first_setting(tmp_path: Path, long_ledger: Path) -> None:
    app = test_app(tmp_path / "store.db", str(long_ledger))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await type_keys(pilot, "s")
        assert isinstance(app.screen, ReviewScreen)
        assert app.screen.query_one(TabbedContent).active == "tab-settings"
        assert app.focused is not None and app.focused.id == "setting-mode"


async def test_safeguards_reserve_floor_shows_in_the_settings(tmp_path: Path, cutline_home: Path) -> None:
    from cutline.core.engine.modes import reserve_for

    (cutline_home / "config.toml").write_text(
        '[compaction]\nmode = "safeguard"\nreserveTokens = 1000\n', encoding="utf-8"
    )
    session = write_session(tmp_path / "ledger.jsonl")
    app = test_app(tmp_path / "store.db", str(session))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_keys(pilot, "s")
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        floor = reserve_for(screen.settings)
        assert floor > 1000
        note = str(screen.query_one("#setting-mode-note", Static).render())
        assert f"reserve {floor:,} used, not reserveTokens 1,000" in note


# -- 2: the legend of the list's glyphs and the gauge's colours in the help ---------------


async def test_help_explains_the_glyphs_and_the_gauge(tmp_path: Path, long_ledger: Path) -> None:
    from textual.widgets import DataTable

    from cutline.app.screens.modals import HelpScreen

    app = test_app(tmp_path / "store.db", str(long_ledger))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await type_keys(pilot, "?")
        assert isinstance(app.screen, HelpScreen)
        table = app.screen.query_one(DataTable)
        cells = [str(cell) for row in range(table.row_count) for cell in table.get_row_at(row)]
        shown = " ".join(cells)
        for glyph in ("┊", "┃", "╭◆ ╰↳", "❯", "◆", "↳", "✻", "✂", "≡", "▣", "✗", "░"):
            assert glyph in cells or any(cell.startswith(glyph) for cell in cells), glyph
        assert "threshold" in shown and "summarize" in shown and "Legend" in shown
