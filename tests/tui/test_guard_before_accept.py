"""A failed quality guard is said next to "✓ valid" and in the accept dialog, not only eight sections below
(issue 27 item 5, pilot: the person edits the summary by typing, and the guard judges the text shown)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from cutline.app.screens.modals import AcceptScreen
from cutline.app.screens.session_review import ReviewScreen
from cutline.app.widgets.proposal_view import ProposalView
from tests.support.tui_app import SIZE, rendered_text, settle, test_app, write_session


def _head(view: ProposalView) -> str:
    return rendered_text(view.query_one(Static).content, width=200)


async def test_a_summary_that_fails_the_guard_is_said_above_and_before_accepting(
    tmp_path: Path, cutline_home: Path
) -> None:
    (cutline_home / "config.toml").write_text(
        '[compaction]\nkeepRecentTokens = 5000\nrules = "openclaw-2026.9"\n', encoding="utf-8"
    )
    app = test_app(tmp_path / "store.db", str(write_session(tmp_path / "ledger.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await pilot.press("r")
        await settle(app, pilot)
        assert screen.proposal is not None and screen.proposal.quality is not None
        assert screen.proposal.quality.ok, screen.proposal.quality
        view = screen.query_one(ProposalView)
        assert "quality guard failed" not in _head(view)
        # the person replaces the summary with one heading: OpenClaw's sections are gone
        await pilot.press("e", "f7", *"## Goal", "enter", *"- Tidy the ledger.", "escape", "o")
        await settle(app, pilot)
        head = _head(view)
        assert "✓ valid" in head
        assert "✗ quality guard failed: no “## Decisions” section" in head, head
        validation = rendered_text(view.query_one("#section-validation", Static).content, width=200)
        assert "but the summary fails the quality guard" in validation
        quality = rendered_text(view.query_one("#section-quality", Static).content, width=200)
        assert "✗ failed: missing_section:## Decisions" in quality, quality
        await pilot.press("a")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, AcceptScreen)
        findings = dialog.query_one("#accept-findings", Static)
        text = rendered_text(findings.render(), width=200) if findings.display else ""
        assert "the quality guard failed:" in text, text
        assert "no “## Decisions” section" in text
        await pilot.press("n")
        await settle(app, pilot)
