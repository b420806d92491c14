"""The entry pane shows a tool call as a person reads it (issue 27, item 11): text as text, an edit as a diff."""

from __future__ import annotations

import shutil
from pathlib import Path

from cutline.app.widgets.message_list import MessageList
from cutline.app.widgets.tool_call import edit_diff, tool_call_pieces
from cutline.core.models import ToolCallBlock
from tests.support.paths import SAMPLES
from tests.support.tui_app import SIZE, rendered_text, settle, test_app


def test_an_edits_old_and_new_text_become_a_diff_and_multi_line_strings_stay_text() -> None:
    pieces = tool_call_pieces(
        {"path": "app.py", "oldText": "def f():\n\treturn 1\n", "newText": "def f():\n\treturn 2\n", "dry": False}
    )
    assert [(p.kind, p.label) for p in pieces] == [("line", "path"), ("line", "dry"), ("diff", "edit")]
    assert pieces[2].body == "@@ -1,2 +1,2 @@\n def f():\n-\treturn 1\n+\treturn 2"
    claude = tool_call_pieces({"file_path": "a.md", "old_string": "a\nb", "new_string": "a\nc"})
    assert claude[-1] == ("diff", "edit", edit_diff("a\nb", "a\nc"))
    several = tool_call_pieces(
        {"path": "x", "edits": [{"oldText": "1", "newText": "2"}, {"oldText": "3", "newText": "4"}]}
    )
    assert [p.label for p in several] == ["path", "edit 1 of 2", "edit 2 of 2"]
    bash = tool_call_pieces({"command": "cd /tmp\nls -la", "timeout": 30, "env": {"A": "1"}})
    assert bash[0] == ("text", "command", "cd /tmp\nls -la")
    assert bash[1] == ("line", "timeout", "30") and bash[2].kind == "json"


async def test_the_entry_pane_shows_an_edit_call_as_a_diff(tmp_path: Path) -> None:
    session = tmp_path / "legacy.jsonl"
    shutil.copy(SAMPLES / "pi-v1-legacy.jsonl", session)
    app = test_app(tmp_path / "store.db", str(session))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        message_list = screen.query_one(MessageList)
        index, call = next(
            (i, block)
            for i, e in enumerate(screen.path)
            if e.message is not None
            for block in e.message.content
            if isinstance(block, ToolCallBlock) and block.name == "edit"
        )
        message_list.cursor = index
        await pilot.pause()
        text = rendered_text(screen.query_one("#detail-body").content, width=160)
        assert "\\n" not in text and "\\t" not in text  # no escaped strings
        old, new = call.arguments["oldText"], call.arguments["newText"]
        removed = next(line for line in old.splitlines() if line not in new.splitlines())
        added = next(line for line in new.splitlines() if line not in old.splitlines())
        rows = [row.strip() for row in text.splitlines()]
        assert any(row.startswith("-") and row[1:].strip() == removed.strip() for row in rows), text
        assert any(row.startswith("+") and row[1:].strip() == added.strip() for row in rows), text
        assert f"path: {call.arguments['path']}" in text
