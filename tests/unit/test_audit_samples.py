"""Audits of the sample sessions: the displaced last exchange, and what a second summary dropped from the first."""

from __future__ import annotations

from pathlib import Path

from cutline.core.agents import read_session
from cutline.core.audit.report import audit_compaction, audit_proposal
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compact import compact
from cutline.core.engine.plan import plan
from cutline.core.summarizers import get_summarizer


async def _proposal(session, last_turn: bool):
    settings = CompactionSettings(lastTurnInjection=last_turn)
    the_plan = plan(session.active_path(), settings)
    return await compact(the_plan, session, get_summarizer("extractive"), settings)


async def test_displaced_last_exchange_is_flagged_and_recovered_only_with_injection(samples_dir: Path) -> None:
    session = read_session(samples_dir / "pi-displaced-last-exchange.jsonl")
    path = session.active_path()
    # the last message a person typed (not a "[subagent report]") is summarized at the default settings
    person = [e for e in path if e.role == "user" and not e.message.text().startswith("[subagent report]")][-1]

    without = audit_proposal(session, await _proposal(session, last_turn=False))
    assert person.id in without.summarized_entry_ids
    warning = without.warning("last-exchange-summarized")
    assert warning is not None and warning.recovered is False
    assert warning.entry_ids[0] == person.id
    assert "automated user messages after it stayed in the kept window" in warning.message
    assert "## Last Exchange (Verbatim)" not in without.summary

    proposal = await _proposal(session, last_turn=True)
    assert proposal.injected.last_turn.startswith("## Last Exchange (Verbatim)")
    with_injection = audit_proposal(session, proposal)
    warning = with_injection.warning("last-exchange-summarized")
    assert warning is not None and warning.recovered is True
    assert "re-injected verbatim" in warning.message
    assert with_injection.warning("latest-request-not-visible") is None
    # the person's facts are all still visible once the exchange is injected
    theirs = [f for f in with_injection.facts if f.source_entry_id == person.id]
    assert theirs and all(f.retained for f in theirs)


async def test_edited_summary_without_the_injected_block_loses_the_exchange(samples_dir: Path) -> None:
    session = read_session(samples_dir / "pi-displaced-last-exchange.jsonl")
    proposal = await _proposal(session, last_turn=True)
    edited = proposal.summary.split("## Last Exchange (Verbatim)")[0] + "\n(edited: nothing about PR 840)"
    edited = "\n".join(line for line in edited.splitlines() if "840" not in line and "Lena" not in line)
    report = audit_proposal(session, proposal, summary=edited)
    assert report.warning("last-exchange-summarized").recovered is False
    missing = report.warning("latest-request-not-visible")
    assert missing is not None and "#840" in missing.message
    assert any(f.kind == "instruction" and "do NOT merge the i18n PR (#840)" in f.text for f in report.lost)


def test_second_summary_drops_the_sla_constraint_of_the_first(samples_dir: Path) -> None:
    session = read_session(samples_dir / "pi-two-compactions.jsonl")
    first, second = [e for e in session.active_path() if e.type == "compaction"]
    report = audit_compaction(session, second.id)
    dropped = [f for f in report.lost if f.origin == "previous_summary"]
    # checked by hand: the first summary's constraint "flush interval must stay at or below 1 second"
    # is not in the second summary (which says "default 5.0 s") nor in the six kept messages
    sla = [f for f in dropped if f.text.startswith("The flush interval must stay at or below 1 second")]
    assert len(sla) == 1 and sla[0].kind == "instruction" and sla[0].source_entry_id == first.id
    assert all(f.source_entry_id == first.id for f in dropped)
    warning = report.warning("previous-summary-dropped")
    assert warning is not None and warning.entry_ids == [first.id]
    # a constraint both summaries state is kept
    kept = [f for f in report.facts if f.origin == "previous_summary" and f.retained]
    assert any("double counting is NOT acceptable" in f.text for f in kept)
    # the cut is reproduced by the default keepRecentTokens
    assert report.why.reproduced is True and report.why.keep_recent_tokens == 20000
    assert report.first_kept_entry_id == second.compaction.firstKeptEntryId


def test_claude_code_compaction_keeps_nothing_verbatim(samples_dir: Path) -> None:
    session = read_session(samples_dir / "claude-code-compacted.jsonl")
    report = audit_compaction(session)
    summary = session.compactions()[-1].compaction.summary
    assert report.kept_entry_ids == [] and report.first_kept_entry_id is None
    assert "Claude Code compactions replace the whole history" in report.why.text
    lost = {f.text for f in report.lost}
    # checked against the summary text: it never names the edge access log
    # (a grep command's words are not facts: the path comes from the Read call, absolute)
    assert "edge-access" not in summary and "/home/dana/src/snip/logs/edge-access-2026-11-19.log" in lost
    # the absolute path of app.py counts as kept: the summary names it relative to the cwd
    assert "src/snip/app.py" in summary
    assert any(f.text == "/home/dana/src/snip/src/snip/app.py" and f.retained for f in report.facts)
    # the person's last message was summarized; the summary quotes it, but nothing was re-injected
    warning = report.warning("last-exchange-summarized")
    assert warning is not None and warning.recovered is False
    assert report.warning("latest-request-not-visible") is None
    # the transcript's usage includes Claude Code's large system prompt: the fit separates it
    usage = report.warning("usage-exceeds-estimate")
    assert usage is not None and "fixed overhead" in usage.message


def test_codex_compaction_keeps_user_messages_in_its_replacement_history(samples_dir: Path) -> None:
    session = read_session(samples_dir / "codex-rollout-compacted.jsonl")
    report = audit_compaction(session)
    warning = report.warning("last-exchange-summarized")
    assert warning is not None and warning.recovered is True
    assert "replacement history" in warning.message
    request = report.retention_of("request")
    assert (request.kept, request.total) == (1, 1)
    # neither the summary nor the replacement history names config.py
    assert "src/snip/config.py" in {f.text for f in report.lost}
