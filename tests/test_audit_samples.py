"""Audits of the sample sessions: the displaced last exchange, and what a second summary dropped from the first."""

from __future__ import annotations

from pathlib import Path

from core.audit import audit_compaction, audit_proposal
from core.engine import compact
from core.formats import read_session
from core.plan import plan
from core.settings import CompactionSettings
from core.summarizers import get_summarizer


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
