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
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from cutline.core.agents.entries import now_iso
from cutline.core.agents.pi.writer import compaction_line
from cutline.core.agents.registry import adapter_for
from cutline.core.engine.compact import Proposal, validate_proposal
from cutline.core.engine.quality_guard import audit_summary
from cutline.core.engine.validation import Validation
from cutline.core.errors import CutlineError, NotFoundError
from cutline.core.paths import backups_dir
from cutline.core.store import Store
from cutline.core.tokens.jsjson import js_length

Origin = Literal["generated", "edited", "reverted"]


class ProposalDecided(CutlineError):
    """The proposal was already accepted or rejected."""


class InvalidProposal(CutlineError):
    """The proposal's rebuilt context would be refused by the API, so it cannot be accepted."""


class SummaryVersion(BaseModel):
    """One stored text of a proposal's summary; n counts from 1 (the generated one)."""

    proposal_id: str
    n: int
    created_at: str
    origin: Origin
    text: str
    tokens: int | None = None


class Decision(BaseModel):
    """An accepted or rejected proposal; `entry_id` is the compaction entry appended to `written_to`."""

    proposal_id: str
    session_id: str
    decision: Literal["accepted", "rejected"]
    decided_at: str
    written_to: str | None = None
    entry_id: str | None = None
    note: str | None = None
    version: int | None = None


class ProposalInfo(BaseModel):
    """A proposal as a list row."""

    id: str
    session_id: str
    created_at: str
    status: str
    mode: str | None
    summarizer: str | None
    model: str | None
    tokens_before: int | None
    tokens_after: int | None
    valid: bool
    versions: int


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _tokens(text: str) -> int:
    return -(-js_length(text) // 4)


def save_proposal(store: Store, proposal: Proposal, plan_json: str | None = None) -> Proposal:
    """Store a new proposal and its generated summary as version 1; picks the id its entry will get."""
    if not proposal.entryId:
        proposal.entryId = secrets.token_hex(4)
    with store.transaction() as conn:
        conn.execute(
            "INSERT INTO proposals (id, session_id, created_at, status, summarizer, model, prompt_name, settings_json,"
            " plan_json, proposal_json, tokens_before, tokens_after, first_kept_entry_id, valid)"
            " VALUES (?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                proposal.id,
                proposal.session_id,
                proposal.created_at,
                proposal.summarizer,
                proposal.model,
                proposal.prompt_name,
                json.dumps(proposal.settings),
                plan_json,
                proposal.model_dump_json(),
                proposal.tokensBefore,
                proposal.tokensAfter,
                proposal.firstKeptEntryId,
                int(proposal.validation.ok),
            ),
        )
        conn.execute(
            "INSERT INTO summary_versions (proposal_id, n, created_at, origin, text, tokens) VALUES (?, 1, ?, 'generated', ?, ?)",
            (proposal.id, proposal.created_at, proposal.summary, _tokens(proposal.summary)),
        )
    return proposal


def resolve_proposal(store: Store, ref: str) -> str:
    """The id of the proposal `ref` names (an id or a unique id prefix)."""
    ref = ref.strip()
    if not ref:
        raise NotFoundError("no proposal given")
    rows = store.conn.execute(
        "SELECT id FROM proposals WHERE id LIKE ? ORDER BY id", (ref.replace("%", "") + "%",)
    ).fetchall()
    ids = [r[0] for r in rows]
    if ref in ids:
        return ref
    if len(ids) == 1:
        return ids[0]
    if not ids:
        raise NotFoundError(f"no proposal matches {ref!r} (try `cutline proposals SESSION`)")
    raise NotFoundError(f"proposal prefix {ref!r} matches {len(ids)} proposals: {', '.join(ids[:5])}")


def _row(store: Store, proposal_id: str) -> dict:
    cursor = store.conn.execute("SELECT * FROM proposals WHERE id = ?", (proposal_id,))
    names = [d[0] for d in cursor.description]
    row = cursor.fetchone()
    if row is None:
        raise NotFoundError(f"no proposal {proposal_id}")
    return dict(zip(names, row))


def load_proposal(store: Store, ref: str) -> Proposal:
    """The stored proposal (as generated; see `versions` for its edits)."""
    row = _row(store, resolve_proposal(store, ref))
    return Proposal.model_validate_json(row["proposal_json"])


def proposal_status(store: Store, ref: str) -> str:
    return _row(store, resolve_proposal(store, ref))["status"]


def versions(store: Store, ref: str) -> list[SummaryVersion]:
    """Every summary version of a proposal, oldest first."""
    proposal_id = resolve_proposal(store, ref)
    cursor = store.conn.execute(
        "SELECT n, created_at, origin, text, tokens FROM summary_versions WHERE proposal_id = ? ORDER BY n",
        (proposal_id,),
    )
    return [
        SummaryVersion(proposal_id=proposal_id, n=n, created_at=created, origin=origin, text=text, tokens=tokens)
        for n, created, origin, text, tokens in cursor.fetchall()
    ]


def latest_version(store: Store, ref: str) -> SummaryVersion:
    found = versions(store, ref)
    if not found:
        raise NotFoundError(f"proposal {ref} has no summary version")
    return found[-1]


def add_version(store: Store, ref: str, text: str, origin: Origin = "edited") -> SummaryVersion:
    """Keep a new summary text as the next version; safe when two processes add versions at once.

    The number is computed inside a BEGIN IMMEDIATE transaction, which holds the
    database's write lock, so no two versions of a proposal get the same n.
    """
    proposal_id = resolve_proposal(store, ref)
    created = _now()
    with store.transaction() as conn:
        status = conn.execute("SELECT status FROM proposals WHERE id = ?", (proposal_id,)).fetchone()[0]
        if status != "open":
            raise ProposalDecided(f"proposal {proposal_id} is already {status}; its summary can no longer change")
        n = conn.execute(
            "SELECT coalesce(max(n), 0) + 1 FROM summary_versions WHERE proposal_id = ?", (proposal_id,)
        ).fetchone()[0]
        conn.execute(
            "INSERT INTO summary_versions (proposal_id, n, created_at, origin, text, tokens) VALUES (?, ?, ?, ?, ?, ?)",
            (proposal_id, n, created, origin, text, _tokens(text)),
        )
    return SummaryVersion(
        proposal_id=proposal_id, n=n, created_at=created, origin=origin, text=text, tokens=_tokens(text)
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
    text = latest_version(store, proposal.id).text
    return compaction_line(
        proposal.compaction_record(text),
        entry_id=proposal.entryId,
        parent_id=proposal.parentEntryId,
        timestamp=timestamp or now_iso(),
    )


def _open_or_refuse(store: Store, proposal_id: str) -> None:
    status = _row(store, proposal_id)["status"]
    if status != "open":
        raise ProposalDecided(f"proposal {proposal_id} is already {status}")


def _record_decision(store: Store, decision: Decision) -> None:
    with store.transaction() as conn:
        updated = conn.execute(
            "UPDATE proposals SET status = ? WHERE id = ? AND status = 'open'",
            (decision.decision, decision.proposal_id),
        ).rowcount
        if updated != 1:
            raise ProposalDecided(f"proposal {decision.proposal_id} was decided by someone else meanwhile")
        conn.execute(
            "INSERT INTO decisions (proposal_id, session_id, decision, decided_at, written_to, entry_id, note)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                decision.proposal_id,
                decision.session_id,
                decision.decision,
                decision.decided_at,
                decision.written_to,
                decision.entry_id,
                decision.note,
            ),
        )


def accept(
    store: Store,
    ref: str,
    write_back: bool = True,
    *,
    timestamp: str | None = None,
    note: str | None = None,
) -> Decision:
    """Accept the latest summary version: validate, append the compaction to the session file, record, re-import.

    Refuses a decided proposal, an invalid one, and (for write-back) a session that is
    not pi / OpenClaw or whose file changed since the proposal was made.
    """
    proposal = load_proposal(store, ref)
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
        session = store.load_session(proposal.session_id)
        refusal = adapter_for(session.format).write_back_refusal()
        if refusal is not None:
            raise CutlineError(f"write-back refused: {refusal}; accept without it")
        if not session.source_path:
            raise CutlineError("the session has no source file to write back to")
        leaf = session.active_path()[-1].id if session.entries else None
        if leaf != proposal.parentEntryId:
            raise CutlineError(
                f"the session moved on since proposal {proposal.id} was made (leaf {leaf}, was {proposal.parentEntryId}); make a new proposal"
            )
        entry = adapter_for(session.format).write_back(
            Path(session.source_path),
            session,
            proposal.compaction_record(version.text),
            backup_dir=backups_dir(),
            entry_id=proposal.entryId,
            timestamp=timestamp,
        )
        decision.written_to = session.source_path
        decision.entry_id = entry.id
    _record_decision(store, decision)
    if write_back and decision.written_to:
        store.import_file(decision.written_to)
    return decision


def reject(store: Store, ref: str, note: str | None = None) -> Decision:
    """Reject a proposal; nothing is written anywhere but the store."""
    proposal = load_proposal(store, ref)
    _open_or_refuse(store, proposal.id)
    decision = Decision(
        proposal_id=proposal.id, session_id=proposal.session_id, decision="rejected", decided_at=_now(), note=note
    )
    _record_decision(store, decision)
    return decision


def decisions(store: Store, ref: str) -> list[Decision]:
    """Decisions recorded for a proposal."""
    proposal_id = resolve_proposal(store, ref)
    cursor = store.conn.execute(
        "SELECT proposal_id, session_id, decision, decided_at, written_to, entry_id, note FROM decisions"
        " WHERE proposal_id = ? ORDER BY id",
        (proposal_id,),
    )
    keys = ("proposal_id", "session_id", "decision", "decided_at", "written_to", "entry_id", "note")
    return [Decision(**dict(zip(keys, row))) for row in cursor.fetchall()]


def list_proposals(store: Store, session_ref: str) -> list[ProposalInfo]:
    """The session's proposals, newest first."""
    session_id = store.resolve_session(session_ref)
    cursor = store.conn.execute(
        "SELECT p.id, p.session_id, p.created_at, p.status, p.summarizer, p.model, p.tokens_before, p.tokens_after,"
        " p.valid, json_extract(p.proposal_json, '$.mode'),"
        " (SELECT count(*) FROM summary_versions v WHERE v.proposal_id = p.id)"
        " FROM proposals p WHERE p.session_id = ? ORDER BY p.id DESC",
        (session_id,),
    )
    return [
        ProposalInfo(
            id=pid,
            session_id=sid,
            created_at=created,
            status=status,
            summarizer=summarizer,
            model=model,
            tokens_before=before,
            tokens_after=after,
            valid=bool(valid),
            mode=mode,
            versions=count,
        )
        for pid, sid, created, status, summarizer, model, before, after, valid, mode, count in cursor.fetchall()
    ]
