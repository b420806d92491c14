"""`cutline accept` says what the summary contradicts or loses and a failed guard before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from cutline.core import review
from cutline.core.audit.before_accept import findings, guard_words
from cutline.core.audit.verdicts import AuditFact
from cutline.core.engine.quality_guard import QualityInputs, verdict_for
from cutline.core.store import Store
from tests.support.accept_findings import TRUTH
from tests.support.accept_findings import proposal_of_a_truth_session as _proposal


def test_a_contradicting_summary_is_not_written_back_without_the_persons_word(tmp_path: Path) -> None:
    from cutline.app.cli import cli

    path, db, proposal = _proposal(tmp_path)
    with Store(db) as store:
        review.add_version(
            store, proposal, "## Key Decisions\n- I'll stream the reply with WebSockets instead of server-sent events."
        )
    before = path.read_bytes()
    refused = CliRunner().invoke(cli, ["accept", proposal, "--write-back", "--db", db])
    assert refused.exit_code != 0
    assert "the summary contradicts 1 fact" in refused.stderr
    assert "I'll stream the reply with server-sent events instead of WebSockets." in refused.stderr
    assert "summary says: I'll stream the reply with WebSockets instead of server-sent events." in refused.stderr
    assert "edit it, or accept with --anyway" in str(refused.exception)
    assert path.read_bytes() == before  # nothing written
    accepted = CliRunner().invoke(cli, ["accept", proposal, "--write-back", "--anyway", "--db", db])
    assert accepted.exit_code == 0, accepted.output
    assert "the summary contradicts 1 fact" in accepted.stderr
    assert json.loads(path.read_text().splitlines()[-1])["type"] == "compaction"


def test_a_faithful_summary_is_written_back_without_a_question(tmp_path: Path) -> None:
    from cutline.app.cli import cli

    path, db, proposal = _proposal(tmp_path)
    before = len(path.read_text().splitlines())
    with Store(db) as store:
        kept = (TRUTH.parent / "summaries" / "tune-08-pi-chatbot.txt").read_text()
        review.add_version(store, proposal, kept + "\n- Re-read src/prompts/system_prompt.txt.")
    accepted = CliRunner().invoke(cli, ["accept", proposal, "--write-back", "--db", db])
    assert accepted.exit_code == 0, accepted.stderr
    assert "contradicts" not in accepted.stderr
    assert len(path.read_text().splitlines()) == before + 1


def test_guard_reasons_in_words_with_noise_named() -> None:
    inputs = QualityInputs(
        requiredSections=["## Decisions"], identifiers=["100644", "_ssl.c:1006", "/srv/app/main.py"], latestUserAsk=None
    )
    verdict = verdict_for("nothing here", inputs)
    words = guard_words(verdict)
    assert words[0] == "no \u201c## Decisions\u201d section (OpenClaw's summaries must have it)"
    assert "100644 (a git file mode: noise, accepting anyway is fine)" in words[1]
    assert "_ssl.c:1006 (a source-line reference, not a host:port)" in words[1]
    lines = findings([], verdict).lines("p1")
    assert lines[0] == "the quality guard failed:" and lines[-1].startswith("to fix: edit the summary")
    lost = AuditFact(kind="instruction", text="Never push to main.", retained=False, verdict="lost", weight=3.0)
    recovered = lost.model_copy(update={"text": "src/a.py", "recovered": True})
    minor = lost.model_copy(update={"text": "a name", "weight": 0.75})
    shown = findings([lost, recovered, minor], None)
    assert [f.text for f in shown.lost] == ["Never push to main."] and not shown.blocking


def test_accept_says_a_failed_quality_guard_before_anything_is_written(tmp_path: Path) -> None:
    """Issue 27 item 5: an edit that drops the latest request fails the guard, and `cutline accept` says so."""
    from cutline.app.cli import cli

    path, db, _ = _proposal(tmp_path)
    made = CliRunner().invoke(
        cli, ["compact", str(path), "--rules", "openclaw-2026.9", "--keep-recent-tokens", "10", "--json", "--db", db]
    )
    assert made.exit_code == 0, made.output
    proposal = json.loads(made.output)["id"]
    with Store(db) as store:
        guard = review.load_proposal(store, proposal).quality
        assert guard is not None and "## Decisions" in guard.inputs.requiredSections
        review.add_version(store, proposal, "## Goal\n- Tidy the chatbot.")
    accepted = CliRunner().invoke(cli, ["accept", proposal, "--db", db])
    assert accepted.exit_code == 0, accepted.stderr
    lines = [line.strip() for line in accepted.stderr.splitlines()]
    assert "the quality guard failed:" in lines, accepted.stderr
    assert "- no \u201c## Decisions\u201d section (OpenClaw's summaries must have it)" in lines
