"""Focus you can see, keys to every pane, help always reachable at 80x24 (issue 27 items 6 and 8, pilot).

Keys are typed as a terminal sends them (tests/support/keys.py); what is checked is what the
screen draws (rendered afresh), as a person reads it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, TabbedContent, TextArea

from cutline.app.screens.audit import AuditScreen
from cutline.app.screens.modals import HelpScreen
from cutline.app.screens.session_review import ReviewScreen
from cutline.app.screens.sessions import SessionsScreen
from cutline.app.widgets.message_list import MessageList
from cutline.core.store import Store
from tests.support.audit_builders import audit_demo_session
from tests.support.drawn_screen import rendered_now
from tests.support.keys import SIZE, SMALL, type_keys
from tests.support.tui_app import settle_pilot as settle
from tests.support.tui_app import test_app

F1 = "\x1bOP"  # what a terminal sends for F1
F2 = "\x1bOQ"


def _footer(app) -> str:  # type: ignore[no-untyped-def]
    return rendered_now(app)[-1]


def _line_with(app, text: str) -> str:  # type: ignore[no-untyped-def]
    return next((line for line in rendered_now(app) if text in line), "")


# -- item 8: help and quit never cut from the footer; the rest in help and the palette --------------


@pytest.mark.parametrize("size", [SMALL, SIZE])
async def test_help_and_quit_stay_in_the_footer_on_every_screen(tmp_path: Path, ledger: Path, size) -> None:  # type: ignore[no-untyped-def]
    store = tmp_path / "store.db"
    with Store(store) as s:
        s.import_session(audit_demo_session())
    app = test_app(store)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        screens = {"sessions": _footer(app)}
        app.open_review("audit-demo")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        screens["review"] = _footer(app)
        await type_keys(pilot, "A")
        await settle(pilot)
        assert isinstance(app.screen, AuditScreen)
        screens["audit"] = _footer(app)
    assert " q Quit" in screens["review"]  # q quits where no text field has the focus
    for name, footer in screens.items():
        assert "f1 Help" in footer, f"{name}: {footer!r}"
        assert " q Quit" in footer or " ^q Quit" in footer, f"{name}: {footer!r}"


async def test_keys_the_footer_has_no_room_for_are_in_the_help_and_the_palette(tmp_path: Path, ledger: Path) -> None:
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        footer = _footer(app)
        assert "w Why" not in footer and "H History" not in footer  # no room at 80 columns
        palette = {title for title, _, _ in _palette_entries(app)}
        await type_keys(pilot, F1)
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        table = app.screen.query_one(DataTable)
        ids = {str(table.get_row_at(row)[2]) for row in range(table.row_count)}
    for binding_id, title in [
        ("review.why", "Why the cut is where it is: the plan's explanation"),
        ("review.history", "Compaction history of this session"),
        ("review.audit", "Audit what context a compaction lost"),
        ("review.keep_more", "keepRecentTokens + 1000"),
        ("review.maximize", "Maximise the focused pane (the list or the side pane); z again brings the layout back"),
    ]:
        assert binding_id in ids
        assert title in palette


def _palette_entries(app):  # type: ignore[no-untyped-def]
    from cutline.app.tui import CutlineCommands

    provider = CutlineCommands(app.screen)
    return list(provider._actions())


async def test_s_at_80x24_shows_keep_recent_tokens(tmp_path: Path, ledger: Path) -> None:
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await type_keys(pilot, "s")
        await settle(pilot)
        assert _line_with(app, "keepRecentTokens").split() == ["keepRecentTokens", "5000"]
        await type_keys(pilot, "]")  # the focus is on the mode below it: `]` still nudges keepRecentTokens
        await settle(pilot)  # the gauge says "plan pending · keepRecentTokens …" until the re-plan is drawn
        assert _line_with(app, "keepRecentTokens").split() == ["keepRecentTokens", "6000"]


async def test_z_maximises_the_focused_pane_and_brings_both_back(tmp_path: Path, ledger: Path) -> None:
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        rows_before = sum("09:" in line for line in rendered_now(app))
        await type_keys(pilot, "z")
        assert screen.maximized is screen.query_one(MessageList)
        assert not _line_with(app, "Entry  Why  Settings"), "the side pane is hidden"
        assert sum("09:" in line for line in rendered_now(app)) > rows_before + 5
        assert "f1 Help" in _footer(app)
        await type_keys(pilot, "z")
        assert screen.maximized is None and _line_with(app, "Entry  Why  Settings")
        await type_keys(pilot, "2z")
        assert screen.maximized is screen.query_one("#side", TabbedContent)
        assert not _line_with(app, "[1] messages")
        await type_keys(pilot, "1")  # a jump to the hidden pane brings the layout back
        assert screen.maximized is None and isinstance(app.focused, MessageList)


# -- item 6: the focused pane is marked; keys jump to the list, the side pane, the editor; Tab stops ----


async def test_the_focused_pane_is_marked_and_keys_jump_between_panes(tmp_path: Path, ledger: Path) -> None:
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        side = screen.query_one("#side", TabbedContent)
        assert isinstance(app.focused, MessageList)
        assert "━[1] messages" in _line_with(app, "[1] messages")  # a heavy line: the focused pane
        assert "─[2] side pane" in _line_with(app, "[2] side pane")  # a thin one: the other
        await type_keys(pilot, "2")
        assert app.focused is not None and side in app.focused.ancestors
        assert "━[2] side pane · [3] editor" in _line_with(app, "[2] side pane")
        assert "─[1] messages" in _line_with(app, "[1] messages")
        await type_keys(pilot, "1")
        assert isinstance(app.focused, MessageList)
        await type_keys(pilot, "r")
        await settle(pilot)
        await type_keys(pilot, "3")
        editor = screen.query_one("#summary-editor", TextArea)
        assert app.focused is editor and side.active == "tab-summary"
        await type_keys(pilot, "1")  # typed into the summary, as in any editor…
        assert app.focused is editor and editor.text.startswith("1")
        await type_keys(pilot, F2)  # …and F2 jumps out of it to the list
        assert isinstance(app.focused, MessageList)


async def test_each_pane_is_a_tab_stop(tmp_path: Path, ledger: Path) -> None:
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        side = screen.query_one("#side", TabbedContent)
        seen = []
        for _ in range(3):
            await type_keys(pilot, "\t")
            focused = app.focused
            assert focused is not None
            seen.append("side" if side in focused.ancestors else type(focused).__name__)
        assert seen[:2] == ["side", "side"]  # the tab strip, then the entry pane
        assert seen[2] == "MessageList"  # and round to the list


def test_the_pane_keys_are_remappable_and_a_clash_is_named() -> None:
    """The panes' keys live in a part of the review screen: `[keys]` knows their ids and their clashes."""
    from cutline.app.tui import keymap_problems

    assert keymap_problems({"review.maximize": "m", "review.pane_list": "f5"}) == []
    assert keymap_problems({"review.maximize": "r"}) == ["r: both review.run and review.maximize on ReviewScreen"]
