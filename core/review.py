"""Reviewing proposals: stored proposals, every summary version, diffs, and the accept / reject decision.

Accepting re-validates the latest summary version, appends the compaction entry to a
pi / OpenClaw session file (backed up first, refused if the file changed) and
re-imports the grown file, so the agent resumes from the accepted summary.
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
import secrets
import tempfile
from collections.abc import Callable
from pathlib import Path

from cutline.core.agents import read_session, session_wire_context
from cutline.core.agents.entries import now_iso
from cutline.core.agents.pi.writer import compaction_line
from cutline.core.agents.registry import adapter_for
from cutline.core.agents.wire import WireContext
from cutline.core.agents.writeback import WriteBackPlan
from cutline.core.engine.compact import Proposal, validate_proposal
from cutline.core.engine.quality_guard import audit_summary
from cutline.core.engine.validation import Validation
from cutline.core.errors import CutlineError, NotFoundError
from cutline.core.models import Session
from cutline.core.session_writes import (
    plan_and_session,
    recover_write_backs,
    stored_context_after,
    stored_preview_line,
    written_back_to,
)
from cutline.core.session_writes import write_back as write_back_accepted
from cutline.core.store import Store
from cutline.core.store.proposals import (
    Decision,
    NewProposal,
    Origin,
    ProposalDecided,
    ProposalInfo,
    SummaryVersion,
)
from cutline.core.tokens.jsjson import js_length

__all__ = [
    "Decision",
    "InvalidProposal",
    "Origin",
    "ProposalDecided",
    "ProposalInfo",
    "SummaryVersion",
    "accept",
    "add_version",
    "decisions",
    "diff_versions",
    "latest_version",
    "list_proposals",
    "load_proposal",
    "preview_entry",
    "proposal_status",
    "reject",
    "resolve_proposal",
    "revert",
    "save_proposal",
    "validate_version",
    "versions",
]


# Set by cutline.core.inbox: answers a proposal an agent holds live (the agent writes the entry itself, not
# cutline) and returns the decision, or None for any other proposal. Injected: the inbox sits above this module.
live_answer: Callable[[Store, str, str, str | None], Decision | None] | None = None


class InvalidProposal(CutlineError):
    """The proposal's rebuilt context would be refused by the API, so it cannot be accepted."""


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _tokens(text: str) -> int:
    return -(-js_length(text) // 4)


def save_proposal(
    store: Store, proposal: Proposal, plan_json: str | None = None, source_sha256: str | None = None
) -> Proposal:
    """Store a new proposal and its generated summary as version 1; picks the id its entry will get.

    The proposal is tied to the bytes of the session file it was made from (`source_sha256`,
    default: the file as the store last imported it): write-back refuses any other content.
    """
    if not proposal.entryId:
        proposal.entryId = secrets.token_hex(4)
    if source_sha256 is None:
        source_sha256 = store.sessions.fingerprint(proposal.session_id)
    store.proposals.insert(
        NewProposal(
            id=proposal.id,
            session_id=proposal.session_id,
            created_at=proposal.created_at,
            summarizer=proposal.summarizer,
            model=proposal.model,
            prompt_name=proposal.prompt_name,
            settings_json=json.dumps(proposal.settings),
            plan_json=plan_json,
            proposal_json=proposal.model_dump_json(),
            tokens_before=proposal.tokensBefore,
            tokens_after=proposal.tokensAfter,
            first_kept_entry_id=proposal.firstKeptEntryId,
            valid=proposal.validation.ok,
            summary=proposal.summary,
            summary_tokens=_tokens(proposal.summary),
            source_sha256=source_sha256,
        )
    )
    return proposal


def resolve_proposal(store: Store, ref: str) -> str:
    """The id of the proposal `ref` names (an id or a unique id prefix)."""
    return store.proposals.resolve(ref)


def load_proposal(store: Store, ref: str) -> Proposal:
    """The stored proposal (as generated; see `versions` for its edits)."""
    row = store.proposals.row(resolve_proposal(store, ref))
    return Proposal.model_validate_json(row["proposal_json"])


def proposal_status(store: Store, ref: str) -> str:
    """open, accepted or rejected."""
    return store.proposals.status(resolve_proposal(store, ref))


def versions(store: Store, ref: str) -> list[SummaryVersion]:
    """Every summary version of a proposal, oldest first."""
    return store.proposals.versions(resolve_proposal(store, ref))


def latest_version(store: Store, ref: str) -> SummaryVersion:
    """The summary text `accept` would write: the proposal's newest version."""
    found = versions(store, ref)
    if not found:
        raise NotFoundError(f"proposal {ref} has no summary version")
    return found[-1]


def add_version(store: Store, ref: str, text: str, origin: Origin = "edited") -> SummaryVersion:
    """Keep a new summary text as the next version; safe when two processes add versions at once (see `Proposals.add_version`)."""
    return store.proposals.add_version(
        resolve_proposal(store, ref), text, origin=origin, created_at=_now(), tokens=_tokens(text)
    )


def revert(store: Store, ref: str, n: int) -> SummaryVersion:
    """Make version n's text the latest again (as a new version, so nothing is lost)."""
    for version in versions(store, ref):
        if version.n == n:
            return add_version(store, ref, version.text, origin="reverted")
    raise NotFoundError(f"proposal {ref} has no version {n}")


def diff_versions(a: SummaryVersion, b: SummaryVersion) -> str:
    """A unified diff from version a to version b."""
    return "".join(
        difflib.unified_diff(
            a.text.splitlines(keepends=True),
            b.text.splitlines(keepends=True),
            fromfile=f"v{a.n} ({a.origin})",
            tofile=f"v{b.n} ({b.origin})",
        )
    )


def validate_version(proposal: Proposal, text: str) -> Validation:
    """The rebuilt context's validation with this summary text in place."""
    return validate_proposal(proposal, text)


def preview_entry(store: Store, ref: str, *, timestamp: str | None = None) -> str:
    """Exactly the JSON line `accept` appends (pass the same `timestamp` to both; the entry id is fixed per proposal)."""
    proposal = load_proposal(store, ref)
    try:
        plan, session = plan_and_session(store, proposal.session_id, look_for_agent=False)
    except NotFoundError:
        plan, session = None, None
    return _preview_line(store, proposal, plan, session, timestamp)


def _preview_line(
    store: Store, proposal: Proposal, plan: WriteBackPlan | None, session: Session | None, timestamp: str | None
) -> str:
    """`preview_entry` of a proposal whose write-back plan is known (`session`: the whole session, when it was read)."""
    text = latest_version(store, proposal.id).text
    record = proposal.compaction_record(text)
    stamp = timestamp or now_iso()
    if plan is not None and plan.possible:
        if session is None:
            header = store.sessions.header(proposal.session_id)
            line = stored_preview_line(store, header, record, entry_id=proposal.entryId, timestamp=stamp)
            if line is not None:
                return line
            session = store.load_session(proposal.session_id)
        return adapter_for(session.format).preview_line(session, record, entry_id=proposal.entryId, timestamp=stamp)
    return compaction_line(record, entry_id=proposal.entryId, parent_id=proposal.parentEntryId, timestamp=stamp)


def context_after_accept(store: Store, ref: str, *, timestamp: str | None = None) -> WireContext | None:
    """What the agent sends once this proposal is written back, None when its session cannot take it.

    Exact by construction: the session file plus the very lines `accept` would append is read
    again through the agent's own reader, and its context built as `cutline context` builds it
    (where the store's rows tell, only the file's lines from the proposal's first kept entry
    on: `session_writes.stored_context_after`);
    a session that takes it by insertion (OpenClaw's store) is read with the very event
    `accept` would insert, without writing the store.
    """
    proposal = load_proposal(store, ref)
    try:
        plan, session = plan_and_session(store, proposal.session_id, look_for_agent=False)
    except NotFoundError:
        return None
    if not plan.possible:
        return None
    line = _preview_line(store, proposal, plan, session, timestamp)
    if plan.how not in ("append", "migrate-and-append"):
        session = session if session is not None else store.load_session(proposal.session_id)
        after = adapter_for(session.format).session_after_write_back(session, line)
        return None if after is None else session_wire_context(after)
    if session is None:
        # told from the file's last lines as the store holds them, where they say what the whole file says
        stored = stored_context_after(
            store, store.sessions.header(proposal.session_id), plan, proposal.firstKeptEntryId, line
        )
        if stored is not None:
            return stored
    header = session if session is not None else store.sessions.header(proposal.session_id)
    source = Path(header.source_path or "")
    if not source.is_file():
        return None
    appended = line.encode("utf-8") + b"\n"
    if plan.how == "migrate-and-append":
        # a pi v1/v2 file: rewritten as v3 first, exactly as the write-back rewrites it
        from cutline.core.agents.pi.migrate import migrated_lines

        whole = session if session is not None else store.load_session(proposal.session_id)
        data = ("\n".join(migrated_lines(whole)) + "\n").encode("utf-8") + appended
    else:
        data = source.read_bytes() + appended
    with tempfile.TemporaryDirectory(prefix="cutline-after-") as folder:
        written = Path(folder) / source.name
        written.write_bytes(data)
        return session_wire_context(read_session(written))


def _open_or_refuse(store: Store, proposal_id: str) -> None:
    status = store.proposals.status(proposal_id)
    if status != "open":
        raise ProposalDecided(f"proposal {proposal_id} is already {status}")


def accept(
    store: Store,
    ref: str,
    write_back: bool = True,
    *,
    timestamp: str | None = None,
    note: str | None = None,
) -> Decision:
    """Accept the latest summary version: validate, write the compaction into the session, record, re-import.

    Refuses a decided proposal, an invalid one, and (for write-back) a session its agent
    cannot take it in, one whose file is not exactly what the proposal was made from, or
    one whose agent is running (see `cutline.core.session_writes`).
    """
    if write_back:
        recover_write_backs(store)
    proposal = load_proposal(store, ref)
    if live_answer is not None and (held := live_answer(store, proposal.id, "accepted", note)) is not None:
        return held
    if write_back and store.proposals.status(proposal.id) == "accepted" and written_back_to(store, proposal.id) is None:
        return write_back_later(store, proposal.id, timestamp=timestamp, note=note)  # accepted into the store only
    _open_or_refuse(store, proposal.id)
    version = latest_version(store, proposal.id)
    validation = validate_version(proposal, version.text)
    if not validation.ok:
        raise InvalidProposal(f"proposal {proposal.id} cannot be accepted: {validation.summary()}")
    quality = proposal.quality
    if quality is not None and quality.strict:
        reasons = audit_summary(version.text, quality.inputs)
        if reasons:
            raise InvalidProposal(
                f"proposal {proposal.id} cannot be accepted: the summary fails the quality guard "
                f"({', '.join(reasons)}) and qualityGuard.strict is on"
            )
    decision = Decision(
        proposal_id=proposal.id,
        session_id=proposal.session_id,
        decision="accepted",
        decided_at=_now(),
        note=note,
        version=version.n,
    )
    if write_back:
        outcome = write_back_accepted(
            store, decision, entry_id=proposal.entryId, record_text=version.text, timestamp=timestamp
        )
        decision.notes = outcome.notes
        return decision
    store.proposals.record_decision(decision)
    return decision


def write_back_later(store: Store, ref: str, *, timestamp: str | None = None, note: str | None = None) -> Decision:
    """Write back a proposal accepted earlier into the store only: its accepted summary, with accept's checks.

    Refuses a proposal that is not accepted, or was written back already; the write-back's
    guarantees are accept's (see `cutline.core.session_writes`). It stays accepted.
    """
    recover_write_backs(store)
    proposal = load_proposal(store, ref)
    status = store.proposals.status(proposal.id)
    if status != "accepted":
        hint = "; accept it with write-back" if status == "open" else ""
        raise ProposalDecided(f"proposal {proposal.id} is {status}, not accepted into the store only{hint}")
    written = written_back_to(store, proposal.id)
    if written is not None:
        raise ProposalDecided(f"proposal {proposal.id} was written back already, to {written}")
    version = latest_version(store, proposal.id)  # a decided proposal's summary no longer changes: the accepted one
    decision = Decision(
        proposal_id=proposal.id,
        session_id=proposal.session_id,
        decision="accepted",
        decided_at=_now(),
        note=note or "written back after being accepted into the store only",
        version=version.n,
    )
    outcome = write_back_accepted(
        store, decision, entry_id=proposal.entryId, record_text=version.text, timestamp=timestamp
    )
    decision.notes = outcome.notes
    return decision


def reject(store: Store, ref: str, note: str | None = None) -> Decision:
    """Reject a proposal; nothing is written anywhere but the store."""
    proposal = load_proposal(store, ref)
    if live_answer is not None and (held := live_answer(store, proposal.id, "rejected", note)) is not None:
        return held
    _open_or_refuse(store, proposal.id)
    decision = Decision(
        proposal_id=proposal.id, session_id=proposal.session_id, decision="rejected", decided_at=_now(), note=note
    )
    store.proposals.record_decision(decision)
    return decision


def decisions(store: Store, ref: str) -> list[Decision]:
    """Decisions recorded for a proposal."""
    return store.proposals.decisions(resolve_proposal(store, ref))


def list_proposals(store: Store, session_ref: str) -> list[ProposalInfo]:
    """The session's proposals, newest first."""
    return store.proposals.for_session(store.resolve_session(session_ref))
