"""The desk tests' common start: the fixed pi session with a mid-session cut, planned and accepted by typed keys."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from cutline.app.screens.session_review import ReviewScreen
from tests.support.keys import type_keys
from tests.support.tui_app import settle_pilot as settle
from tests.support.tui_app import write_session


def ledger_session(tmp_path: Path, cutline_home: Path) -> Path:
    """The fixed session and a config that keeps 5000 recent tokens, so the cut is mid-session."""
    (cutline_home / "config.toml").write_text("[compaction]\nkeepRecentTokens = 5000\n", encoding="utf-8")
    return write_session(tmp_path / "ledger.jsonl")


async def keys_settled(pilot: Pilot[None], *keys: str) -> None:
    """Type each key as a person does, and let the desk settle after each."""
    for key in keys:
        await type_keys(pilot, key)
        await settle(pilot)


async def accept_proposal(pilot: Pilot[None], screen: ReviewScreen, key: str = "a") -> None:
    """`r` plans, then `key` accepts (a: and writes back; K: into the store only) and `y` confirms: accepted."""
    await keys_settled(pilot, "r")
    assert screen.proposal is not None
    await keys_settled(pilot, key, "y")
    assert screen.proposal_status == "accepted"
