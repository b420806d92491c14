"""The desk's Context tab shows what `cutline context` prints: now, and after the open proposal is written back."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from cutline.app.screens.session_review import ReviewScreen
from cutline.core import review
from cutline.core.agents import read_session, session_wire_context
from cutline.core.agents.wire import context_text
from tests.support.tui_app import SIZE, sample_copy, settle, test_app


def _shown(screen: ReviewScreen, selector: str) -> str:
    content = screen.query_one(selector, Static).content
    return str(getattr(content, "plain", content))


async def test_context_tab_shows_the_context_now_and_after_the_proposal(tmp_path: Path) -> None:
    session = sample_copy(tmp_path, "pi-branched.jsonl")
    now = context_text(session_wire_context(read_session(session)))
    app = test_app(tmp_path / "store.db", str(session))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert _shown(screen, "#context-now").endswith(now)
        assert "no open proposal" in _shown(screen, "#context-after")
        await pilot.press("[", "[", "[", "[", "[", "r")
        await settle(app, pilot)
        assert screen.proposal is not None
        expected = review.context_after_accept(app.store, screen.proposal.id)
        assert expected is not None
        after = _shown(screen, "#context-after")
        assert after.startswith("After accepting the proposal with write-back")
        assert after.endswith(context_text(expected))
        assert "compacted into the following summary" in after
