"""The history (`H`) at 80x24 (issue 27, item 2): the summary column is wide enough to read, not 2 characters."""

from __future__ import annotations

from pathlib import Path

from cutline.core.store import Store
from tests.support.audit_builders import audit_demo_session
from tests.support.tui_app import settle_pilot as settle
from tests.support.tui_app import test_app


async def test_the_history_summary_column_reads_at_80x24(tmp_path: Path) -> None:
    store = tmp_path / "store.db"
    session = audit_demo_session()
    [compaction] = [e for e in session.entries if e.type == "compaction" and e.compaction is not None]
    assert compaction.compaction is not None
    compaction.timestamp = "2026-11-02T10:16:14.227Z"  # as real files have them: a full timestamp, a uuid
    compaction.compaction.firstKeptEntryId = "3ab13898-5cd0-4a51-9a6e-0f3d8e7c2b11"
    start = " ".join(compaction.compaction.summary.split())[:12]
    with Store(store) as s:
        s.import_session(session)
    app = test_app(store, "audit-demo")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        table = app.screen.query_one("#history-table")
        lines = [table.render_line(y).text for y in range(table.size.height)]
        text = "\n".join(lines)
        row = next(line for line in lines if "2,400" in line)
        assert start in row, text  # the summary's start on the compaction's own row, not 2 characters a line
        assert len([line for line in lines if line.strip()]) <= 3  # the header and one row per compaction
