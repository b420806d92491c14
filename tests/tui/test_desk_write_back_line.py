"""The review screen says whether the session can be written back, how, or why not, as soon as it is loaded (issue 15, item 9)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cutline.app.screens.session_review import ReviewScreen
from cutline.app.widgets.write_back_line import WriteBackLine
from tests.support.paths import TESTS
from tests.support.tui_app import SIZE, rendered_text, sample_copy, settle, test_app

CORPUS = TESTS / "fixtures" / "corpus"


def _claude_code(tmp_path: Path) -> Path:
    path = tmp_path / "session.jsonl"
    shutil.copyfile(CORPUS / "claude-code" / "thirdparty-plain" / "session.jsonl", path)
    return path


def _pi_without_last_newline(tmp_path: Path) -> Path:
    path = sample_copy(tmp_path)
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    return path


CASES = {
    "pi v3": (sample_copy, "write-back: pi v3 · append — one compaction line is appended"),
    "claude code": (_claude_code, "write-back: Claude Code 2.1.33x · append — a compact_boundary"),
    "refused": (_pi_without_last_newline, "write-back: no — the file does not end with a newline"),
}


@pytest.mark.parametrize("case", sorted(CASES))
async def test_the_review_screen_shows_the_write_back_before_anything_runs(tmp_path: Path, case: str) -> None:
    make, expected = CASES[case]
    app = test_app(tmp_path / "store.db", str(make(tmp_path)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.proposal is None  # nothing was run
        line = screen.query_one(WriteBackLine)
        assert rendered_text(line.content, 200).startswith(expected)
        assert line.region.height == 1 and line.region.y < screen.query_one("#message-list").region.y
