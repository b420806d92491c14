"""Issue 27, item 12: the memory flush as text, "1 version", no "after —" after an accept, `g`'s target row with context."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from textual.widgets import Static

from cutline.app.screens.session_review import ReviewScreen
from cutline.app.widgets.gauge import BudgetGauge
from cutline.app.widgets.message_list import MessageList
from cutline.app.widgets.proposal_view import _sections
from cutline.core.config.settings import MemoryFlushSettings
from cutline.core.engine.recovery import build_memory_flush_turn
from cutline.core.store import Store
from tests.support.keys import SIZE, SMALL, type_keys
from tests.support.paths import TESTS
from tests.support.tui_app import rendered_text, test_app
from tests.support.tui_app import settle_pilot as settle
from tests.support.writeback import propose


def test_the_memory_flush_reads_as_its_two_prompts_not_a_python_dict(tmp_path: Path) -> None:
    lines = (TESTS / "fixtures/corpus/pi-0.73/main/after-manual-compact.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "pi.jsonl"
    path.write_bytes(b"".join(lines[:-1]))
    with Store(tmp_path / "c.db") as store:
        proposal = propose(store, path)
    turn = build_memory_flush_turn(MemoryFlushSettings(), dt.date(2026, 1, 1))
    proposal.injected.memory_flush = turn
    text = rendered_text(_sections(proposal, proposal.summary, None)["memory-flush"], width=200)
    assert "{'prompt'" not in text and "'system_prompt'" not in text and "\\n" not in text
    assert "prompt (the user turn)" in text and "added to the system prompt" in text
    first_line = turn.prompt.strip().splitlines()[0]
    assert first_line in text.splitlines(), "the prompt's own lines, as written"


async def test_one_version_and_after_accepting_no_after_dash(tmp_path: Path, ledger: Path) -> None:
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await type_keys(pilot, "r")
        await settle(pilot)
        saved = str(screen.query_one("#editor-saved", Static).content)
        assert saved.endswith("· 1 version"), saved
        await type_keys(pilot, "a")
        await settle(pilot)
        await type_keys(pilot, "y")
        await settle(pilot)
        assert screen.proposal_status == "accepted"
        gauge = screen.query_one(BudgetGauge)._content().plain
        assert "after —" not in gauge, gauge
        assert "the last entry is a compaction: nothing to compact yet" in gauge


async def test_the_entry_g_goes_to_sits_with_rows_above_it(tmp_path: Path, ledger: Path) -> None:
    """The audit's `g` calls `show_entry`: the target row is shown mid-list, not on the very top line."""
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        message_list = screen.query_one(MessageList)
        await type_keys(pilot, "G")  # the list scrolled to its end, as it is after reading the latest turns
        target = 12
        assert message_list.display_row(target) < round(message_list.scroll_y), "the target is above the view"
        assert screen.show_entry(screen.path[target].id)
        await pilot.pause()
        height = message_list.scrollable_content_region.height
        above = message_list.display_row(target) - round(message_list.scroll_y)
        assert height // 3 <= above < height, (above, height)
