"""The undo question on the review screen (`u` after an accept), at the two sizes a person uses (issue 27, item 1).

Regenerate deliberately with `--snapshot-update` on this file and look at the SVGs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

import cutline.core.engine.compact
import cutline.core.review
from cutline.app.screens.session_review.screen import ReviewScreen
from tests.support.tui_app import settle_pilot as settle
from tests.support.tui_app import test_app, write_session

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 45), id="160x45")]


@pytest.fixture
def ledger(tmp_path: Path, cutline_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixed session, keepRecentTokens 5000, fixed ids, paths shown relative to the working directory."""
    (cutline_home / "config.toml").write_text("[compaction]\nkeepRecentTokens = 5000\n", encoding="utf-8")
    monkeypatch.setattr(cutline.core.engine.compact, "new_proposal_id", lambda now=None: "019b8e2a5f00c0ffee42")
    monkeypatch.setattr(cutline.core.review.secrets, "token_hex", lambda n=4: "5eed" * n)
    monkeypatch.chdir(tmp_path)
    # the desk follows the file: the write-back's own change is noticed within a tick, not up to a second later
    # (a reload landing after `u` replaced the status line in some runs)
    monkeypatch.setattr(ReviewScreen, "FOLLOW_SECONDS", 0.05)
    return write_session(tmp_path / "ledger.jsonl")


@pytest.mark.parametrize("size", SIZES)
def test_undo_question(snap_compare, tmp_path: Path, ledger: Path, size: tuple[int, int]) -> None:
    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        for key in "ray":  # run, accept, yes: written back
            await pilot.press(key)
            await settle(pilot)
        await pilot.pause(0.3)  # the follow notices the written file and reloads, before the question is asked
        await settle(pilot)
        pilot.app.clear_notifications()  # the accept's toast names the backup, whose name is random
        await pilot.press("u")
        await settle(pilot)

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=size)
