"""Stored proposals, every version of their summary, and the decisions taken on them.

A proposal is kept as the engine made it (its JSON) next to the columns lists need;
summary versions are numbered inside a write transaction, so two processes editing
the same proposal never give two versions the same number.
"""

from __future__ import annotations

import sqlite3
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from cutline.core.errors import CutlineError, NotFoundError
from cutline.core.store.db import Row, StoreDatabase
from cutline.core.store.like import like_prefix

Origin = Literal["generated", "edited", "reverted"]


class ProposalDecided(CutlineError):
    """The proposal was already accepted or rejected."""


class SummaryVersion(BaseModel):
    """One stored text of a proposal's summary; n counts from 1 (the generated one)."""

    model_config = ConfigDict(defer_build=True)

    proposal_id: str
    n: int
    created_at: str
    origin: Origin
    text: str
    tokens: int | None = None


class Decision(BaseModel):
    """An accepted or rejected proposal; `entry_id` is the compaction entry appended to `written_to`."""

    model_config = ConfigDict(defer_build=True)

    proposal_id: str
    session_id: str
    decision: Literal["accepted", "rejected"]
    decided_at: str
    written_to: str | None = None
    entry_id: str | None = None
    note: str | None = None
    version: int | None = None
    # what a person should know about the write-back (backup kept, warnings); not stored
    notes: list[str] = []


class ProposalInfo(BaseModel):
    """A proposal as a list row."""

    model_config = ConfigDict(defer_build=True)

    id: str
    session_id: str
    created_at: str
    status: str
    mode: str | None
    summarizer: str | None
    model: str | None
    tokens_before: int | None
    tokens_after: int | None = Field(
        description="tokens after the compaction with the latest summary version (the generated one's figure moved by "
        "the difference between the two summaries)"
    )
    valid: bool
    versions: int


class NewProposal(BaseModel):
    """What is stored of a new proposal: its columns, its whole JSON, and its generated summary."""

    model_config = ConfigDict(defer_build=True)

    id: str
    session_id: str
    created_at: str
    summarizer: str | None = None
    model: str | None = None
    prompt_name: str | None = None
    settings_json: str | None = None
    plan_json: str | None = None
    proposal_json: str
    tokens_before: int | None = None
    tokens_after: int | None = None
    first_kept_entry_id: str | None = None
    valid: bool
    summary: str
    summary_tokens: int | None = None
    # the fingerprint of the session file the proposal was made from: write-back needs the very same bytes
    source_sha256: str | None = None


_DECISION_COLUMNS = ("proposal_id", "session_id", "decision", "decided_at", "written_to", "entry_id", "note")


def _insert_version(
    conn: sqlite3.Connection,
    *,
    proposal_id: str,
    n: int,
    created_at: str,
    origin: Origin,
    text: str,
    tokens: int | None,
) -> None:
    conn.execute(
        "INSERT INTO summary_versions (proposal_id, n, created_at, origin, text, tokens) VALUES (?, ?, ?, ?, ?, ?)",
        (proposal_id, n, created_at, origin, text, tokens),
    )


class Proposals:
    """The proposals, summary_versions and decisions tables."""

    def __init__(self, database: StoreDatabase) -> None:
        self._db = database

    def insert(self, proposal: NewProposal) -> None:
        """Store a new open proposal and its generated summary as version 1, in one transaction."""
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO proposals (id, session_id, created_at, status, summarizer, model, prompt_name,"
                " settings_json, plan_json, proposal_json, tokens_before, tokens_after, first_kept_entry_id, valid,"
                " source_sha256)"
                " VALUES (?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    proposal.id,
                    proposal.session_id,
                    proposal.created_at,
                    proposal.summarizer,
                    proposal.model,
                    proposal.prompt_name,
                    proposal.settings_json,
                    proposal.plan_json,
                    proposal.proposal_json,
                    proposal.tokens_before,
                    proposal.tokens_after,
                    proposal.first_kept_entry_id,
                    int(proposal.valid),
                    proposal.source_sha256,
                ),
            )
            _insert_version(
                conn,
                proposal_id=proposal.id,
                n=1,
                created_at=proposal.created_at,
                origin="generated",
                text=proposal.summary,
                tokens=proposal.summary_tokens,
            )

    def resolve(self, ref: str) -> str:
        """The id of the proposal `ref` names (an id or a unique id prefix)."""
        ref = ref.strip()
        if not ref:
            raise NotFoundError("no proposal given")
        rows = self._db.rows("SELECT id FROM proposals WHERE id LIKE ? ESCAPE '\\' ORDER BY id", (like_prefix(ref),))
        ids: list[str] = [row["id"] for row in rows if row["id"].startswith(ref)]  # LIKE ignores ASCII case
        if ref in ids:
            return ref
        if len(ids) == 1:
            return ids[0]
        if not ids:
            raise NotFoundError(f"no proposal matches {ref!r} (try `cutline proposals SESSION`)")
        raise NotFoundError(f"proposal prefix {ref!r} matches {len(ids)} proposals: {', '.join(ids[:5])}")

    def row(self, proposal_id: str) -> Row:
        """The stored row of a proposal, by its exact id."""
        row = self._db.one("SELECT * FROM proposals WHERE id = ?", (proposal_id,))
        if row is None:
            raise NotFoundError(f"no proposal {proposal_id}")
        return row

    def source_sha256(self, proposal_id: str) -> str | None:
        """The fingerprint of the session file the proposal was made from (None for proposals older than it)."""
        value = self.row(proposal_id)["source_sha256"]
        return str(value) if value is not None else None

    def status(self, proposal_id: str) -> str:
        """open, accepted or rejected."""
        return str(self.row(proposal_id)["status"])

    def versions(self, proposal_id: str) -> list[SummaryVersion]:
        """Every summary version of a proposal, oldest first."""
        rows = self._db.rows(
            "SELECT n, created_at, origin, text, tokens FROM summary_versions WHERE proposal_id = ? ORDER BY n",
            (proposal_id,),
        )
        return [SummaryVersion(proposal_id=proposal_id, **row) for row in rows]

    def add_version(
        self, proposal_id: str, text: str, *, origin: Origin, created_at: str, tokens: int | None
    ) -> SummaryVersion:
        """Keep a new summary text as the next version of an open proposal; safe when two processes add versions at once.

        The number is computed inside a BEGIN IMMEDIATE transaction, which holds the
        database's write lock, so no two versions of a proposal get the same n.
        """
        with self._db.transaction() as conn:
            found = conn.execute("SELECT status FROM proposals WHERE id = ?", (proposal_id,)).fetchone()
            if found is None:
                raise NotFoundError(f"no proposal {proposal_id}")
            if found[0] != "open":
                raise ProposalDecided(f"proposal {proposal_id} is already {found[0]}; its summary can no longer change")
            n: int = conn.execute(
                "SELECT coalesce(max(n), 0) + 1 FROM summary_versions WHERE proposal_id = ?", (proposal_id,)
            ).fetchone()[0]
            _insert_version(
                conn, proposal_id=proposal_id, n=n, created_at=created_at, origin=origin, text=text, tokens=tokens
            )
        return SummaryVersion(
            proposal_id=proposal_id, n=n, created_at=created_at, origin=origin, text=text, tokens=tokens
        )

    def record_decision(self, decision: Decision) -> None:
        """Close an open proposal as accepted or rejected and keep the decision; refuses one decided meanwhile."""
        with self._db.transaction() as conn:
            updated = conn.execute(
                "UPDATE proposals SET status = ? WHERE id = ? AND status = 'open'",
                (decision.decision, decision.proposal_id),
            ).rowcount
            if updated != 1:
                raise ProposalDecided(f"proposal {decision.proposal_id} was decided by someone else meanwhile")
            conn.execute(
                f"INSERT INTO decisions ({', '.join(_DECISION_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                tuple(getattr(decision, column) for column in _DECISION_COLUMNS),
            )

    def record_written_later(self, decision: Decision) -> None:
        """Keep the write-back of a proposal accepted earlier into the store only: it stays accepted, one decision more.

        Refused (ProposalDecided) unless the proposal is accepted (the caller checks it was not written back).
        """
        with self._db.transaction() as conn:
            found = conn.execute("SELECT status FROM proposals WHERE id = ?", (decision.proposal_id,)).fetchone()
            if found is None or found[0] != "accepted":
                raise ProposalDecided(
                    f"proposal {decision.proposal_id} is not accepted into the store only; nothing to write back later"
                )
            conn.execute(
                f"INSERT INTO decisions ({', '.join(_DECISION_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                tuple(getattr(decision, column) for column in _DECISION_COLUMNS),
            )

    def decisions(self, proposal_id: str) -> list[Decision]:
        """Decisions recorded for a proposal, oldest first."""
        rows = self._db.rows(
            f"SELECT {', '.join(_DECISION_COLUMNS)} FROM decisions WHERE proposal_id = ? ORDER BY id", (proposal_id,)
        )
        return [Decision(**row) for row in rows]

    def for_session(self, session_id: str) -> list[ProposalInfo]:
        """A session's proposals, newest first."""
        rows = self._db.rows(
            "SELECT p.id, p.session_id, p.created_at, p.status, p.summarizer, p.model, p.tokens_before,"
            " p.tokens_after + coalesce("
            "(SELECT v.tokens FROM summary_versions v WHERE v.proposal_id = p.id ORDER BY v.n DESC LIMIT 1)"
            " - (SELECT v.tokens FROM summary_versions v WHERE v.proposal_id = p.id ORDER BY v.n LIMIT 1), 0"
            ") AS tokens_after, p.valid, json_extract(p.proposal_json, '$.mode') AS mode,"
            " (SELECT count(*) FROM summary_versions v WHERE v.proposal_id = p.id) AS versions"
            " FROM proposals p WHERE p.session_id = ? ORDER BY p.id DESC",
            (session_id,),
        )
        return [ProposalInfo(**{**row, "valid": bool(row["valid"])}) for row in rows]
