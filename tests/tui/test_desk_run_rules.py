"""The desk's run follows the same rules as `cutline compact` (they disagreed before the workbench).

- `summarizer = "anthropic"` with no model set: the session's own model writes the
  summary (the desk used the default model, the CLI the session's).
- A run whose summarizer failed every call (an annotation-only proposal) or that leaves
  the context no smaller is refused: nothing is stored, and the desk says why (the
  desk stored both, the CLI refused both).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import cutline.core.summarizers
from cutline.app.screens.modals import ErrorScreen
from cutline.app.screens.session_review import ReviewScreen
from cutline.core import review
from cutline.core.config.settings import DEFAULT_MODEL
from cutline.core.errors import SummarizerError
from cutline.core.store import Store
from cutline.core.summarizers.base import Summarizer, SummaryRequest
from tests.support.tui_app import SIZE, rendered_text, settle, test_app, write_session

SESSION_MODEL = "claude-sonnet-4-5"  # the model of write_session's assistant messages


class Writing(Summarizer):
    """Writes a short summary; remembers the model it was built for."""

    name = "anthropic"

    def __init__(self, model: str | None) -> None:
        self.model = model

    async def summarize(self, request: SummaryRequest) -> str:
        return "## Goal\nKeep the ledger's CSV order.\n"


class Failing(Summarizer):
    name = "anthropic"
    model = None

    async def summarize(self, request: SummaryRequest) -> str:
        raise SummarizerError("the provider answered 529 overloaded")


async def _run_once(app: Any, pilot: Any) -> ReviewScreen:
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    await pilot.press("r")
    for _ in range(500):
        await pilot.pause(0.02)
        if not screen.running:
            break
    await app.workers.wait_for_complete()
    await pilot.pause()
    return screen


async def test_the_desk_summarizes_with_the_sessions_own_model_when_none_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cutline_home: Path
) -> None:
    built: list[str | None] = []

    def get_summarizer(name: str, **kwargs: Any) -> Summarizer:
        built.append(kwargs.get("model"))
        return Writing(kwargs.get("model"))

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-used")
    monkeypatch.setattr(cutline.core.summarizers, "get_summarizer", get_summarizer)
    (cutline_home / "config.toml").write_text(
        '[compaction]\nsummarizer = "anthropic"\nkeepRecentTokens = 5000\n', encoding="utf-8"
    )
    app = test_app(tmp_path / "store.db", str(write_session(tmp_path / "ledger.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _run_once(app, pilot)
        assert screen.proposal is not None
        assert built == [SESSION_MODEL] and SESSION_MODEL != DEFAULT_MODEL
        assert screen.proposal.model == SESSION_MODEL


async def test_the_desk_refuses_a_proposal_whose_summarizer_failed_and_stores_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cutline_home: Path
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-used")
    monkeypatch.setattr(cutline.core.summarizers, "get_summarizer", lambda name, **kw: Failing())
    # OpenClaw's safeguard falls back to a note of what was there when every call fails
    (cutline_home / "config.toml").write_text(
        '[compaction]\nmode = "safeguard"\nsummarizer = "anthropic"\nkeepRecentTokens = 5000\n', encoding="utf-8"
    )
    db = tmp_path / "store.db"
    app = test_app(db, str(write_session(tmp_path / "ledger.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _run_once(app, pilot)
        for _ in range(100):
            if isinstance(app.screen, ErrorScreen):
                break
            await asyncio.sleep(0.02)
        assert isinstance(app.screen, ErrorScreen)
        assert "summarizer failed" in str(app.screen.message) and "no proposal stored" in str(app.screen.message)
        assert screen.proposal is None
        assert "no proposal stored" in rendered_text(screen.query_one("#status-text").content)
        session_id = screen.session.id if screen.session else ""
    with Store(db) as store:
        assert review.list_proposals(store, session_id) == []
