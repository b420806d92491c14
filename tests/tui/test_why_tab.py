"""The Why tab (issue 27, item 7): the explanation before the file lists, each list one line, scrolled by keys."""

from __future__ import annotations

import shutil
from pathlib import Path

from cutline.app.widgets.plan_why import PlanWhy
from tests.support.paths import SAMPLES
from tests.support.tui_app import rendered_text, settle, test_app


async def test_the_why_tab_explains_first_folds_the_files_and_scrolls_by_keys(tmp_path: Path) -> None:
    session = tmp_path / "coding.jsonl"
    shutil.copy(SAMPLES / "pi-coding-session.jsonl", session)
    app = test_app(tmp_path / "store.db", str(session))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("w")
        await settle(app, pilot)
        why = app.screen.query_one(PlanWhy)
        body = why.query_one("#why-text")
        text = rendered_text(body.content, width=body.content_region.width)
        rows = text.splitlines()
        first_file = next(i for i, row in enumerate(rows) if row.startswith(("read files", "modified files")))
        assert rows.index("why:") < first_file  # the explanation first
        lists = [row for row in rows if row.startswith(("read files", "modified files"))]
        assert len(lists) == 2 and all(row.endswith("…") or len(row) <= body.content_region.width for row in lists)
        assert len(rows) == len(lists) + first_file  # nothing after the two folded lists: one line each
        for _ in range(12):  # Tab reaches the pane
            if app.focused is why:
                break
            await pilot.press("tab")
        assert app.focused is why
        assert why.max_scroll_y > 0
        await pilot.press("j", "j", "j")
        await pilot.pause()
        assert why.scroll_y > 0
