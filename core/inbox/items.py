"""The inbox table: compactions waiting for a person's word, kept in the store so any desk or the CLI answers them.

Why in the store: the agent waits on a socket held by whichever cutline listens (a desk,
`cutline inbox --watch`); that process may quit while the agent waits. The waiting
compaction, and the answer once given, live here, so the next listener (or `cutline accept`
from any shell) finds them and the agent, which reconnects, gets its answer.

The table is made on first use (`CREATE TABLE IF NOT EXISTS`), not by a numbered
migration: it is independent of every other table and only cutline's own inbox reads it.
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
from typing import Any, Literal

from pydantic import BaseModel, Field

from cutline.core.errors import CutlineError, NotFoundError
from cutline.core.store import Store
from cutline.core.store.db import utc_now

# waiting: the agent holds on (or may reconnect); accepted / rejected: answered (delivered once the agent has it);
# timed-out: the agent's own summary went ahead; withdrawn: the agent stopped waiting (it quit or was interrupted)
Status = Literal["waiting", "accepted", "rejected", "timed-out", "withdrawn"]
OPEN_STATUSES: tuple[Status, ...] = ("waiting",)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS inbox (
    id TEXT PRIMARY KEY,
    agent TEXT NOT NULL,
    agent_version TEXT,
    live INTEGER NOT NULL DEFAULT 1,
    session_file TEXT,
    agent_session_id TEXT,
    session_id TEXT,
    proposal_id TEXT,
    cwd TEXT,
    reason TEXT,
    created_at TEXT NOT NULL,
    deadline TEXT,
    status TEXT NOT NULL DEFAULT 'waiting'
        CHECK (status IN ('waiting', 'accepted', 'rejected', 'timed-out', 'withdrawn')),
    first_kept_entry_id TEXT,
    tokens_before INTEGER,
    request_json TEXT NOT NULL DEFAULT '{}',
    answer_json TEXT,
    answered_at TEXT,
    delivered_at TEXT,
    notes_json TEXT NOT NULL DEFAULT '[]',
    draft TEXT,
    found INTEGER NOT NULL DEFAULT 0
)
"""
_INDEX = "CREATE INDEX IF NOT EXISTS idx_inbox_status ON inbox (status, created_at)"


class InboxItem(BaseModel):
    """One compaction an agent put in the inbox, and where it stands."""

    id: str
    agent: str
    agent_version: str | None = None
    live: bool = True  # an agent waits on it (pi); False: it was blocked or found after the fact (Claude Code, Codex)
    found: bool = False  # found after the fact by the scan of the agents' session folders (core.inbox.scan)
    session_file: str | None = None
    agent_session_id: str | None = None
    session_id: str | None = None  # the session as cutline stores it, once imported
    proposal_id: str | None = None  # the proposal a person edits, compares and accepts
    cwd: str | None = None
    reason: str | None = None
    created_at: str
    deadline: str | None = None
    status: Status = "waiting"
    first_kept_entry_id: str | None = None
    tokens_before: int | None = None
    answer: dict[str, Any] | None = None
    answered_at: str | None = None
    delivered_at: str | None = None
    notes: list[str] = Field(default_factory=list)
    draft: str | None = None  # a summary a person wrote when no proposal could be made

    def shown_status(self, now: str | None = None) -> str:
        """The status as a person should read it: a waiting item past its deadline has timed out."""
        if self.found and self.status == "waiting":
            return "found"  # after the fact: nothing waits but the person's look
        if self.found and self.status == "rejected":
            return "dismissed"
        if self.status == "waiting" and self.deadline is not None and (now or utc_now()) > self.deadline:
            return "timed-out"
        if self.status in ("accepted", "rejected") and self.live and self.delivered_at is None:
            return f"{self.status} (not yet delivered)"
        return self.status


class NewItem(BaseModel):
    """What an agent (or a hook) posts: enough to find the session and answer the agent."""

    agent: str
    agent_version: str | None = None
    live: bool = True
    found: bool = False
    session_file: str | None = None
    agent_session_id: str | None = None
    cwd: str | None = None
    reason: str | None = None
    timeout_seconds: float | None = None
    first_kept_entry_id: str | None = None
    tokens_before: int | None = None
    request: dict[str, Any] = Field(default_factory=dict)


class InboxClosed(CutlineError):
    """The item can no longer be answered (answered already, timed out, or withdrawn)."""


def _deadline(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    at = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds)
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _item(row: dict[str, Any]) -> InboxItem:
    return InboxItem(
        id=row["id"],
        agent=row["agent"],
        agent_version=row["agent_version"],
        live=bool(row["live"]),
        session_file=row["session_file"],
        agent_session_id=row["agent_session_id"],
        session_id=row["session_id"],
        proposal_id=row["proposal_id"],
        cwd=row["cwd"],
        reason=row["reason"],
        created_at=row["created_at"],
        deadline=row["deadline"],
        status=row["status"],
        first_kept_entry_id=row["first_kept_entry_id"],
        tokens_before=row["tokens_before"],
        answer=json.loads(row["answer_json"]) if row["answer_json"] else None,
        answered_at=row["answered_at"],
        delivered_at=row["delivered_at"],
        notes=json.loads(row["notes_json"] or "[]"),
        draft=row["draft"],
        found=bool(row["found"]),
    )


_COLUMNS = (
    "id, agent, agent_version, live, session_file, agent_session_id, session_id, proposal_id, cwd, reason,"
    " created_at, deadline, status, first_kept_entry_id, tokens_before, answer_json, answered_at, delivered_at,"
    " notes_json, draft, found"
)


def new_item_id() -> str:
    """A new inbox item's id: short and random. The one source of the inbox's ids (a test fixes them here)."""
    return secrets.token_hex(4)


class Inbox:
    """The inbox table of one store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._db = store.database
        with self._db.transaction() as conn:
            conn.execute(_SCHEMA)
            conn.execute(_INDEX)
            columns = {row[1] for row in conn.execute("PRAGMA table_info(inbox)")}
            if "found" not in columns:  # a table made before the scan of the session folders
                conn.execute("ALTER TABLE inbox ADD COLUMN found INTEGER NOT NULL DEFAULT 0")

    def add(self, new: NewItem) -> InboxItem:
        """Store a new waiting compaction; its id is short and random."""
        item_id = new_item_id()
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO inbox (id, agent, agent_version, live, found, session_file, agent_session_id, cwd, reason,"
                " created_at, deadline, first_kept_entry_id, tokens_before, request_json)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    item_id,
                    new.agent,
                    new.agent_version,
                    int(new.live),
                    int(new.found),
                    new.session_file,
                    new.agent_session_id,
                    new.cwd,
                    new.reason,
                    utc_now(),
                    _deadline(new.timeout_seconds),
                    new.first_kept_entry_id,
                    new.tokens_before,
                    json.dumps(new.request),
                ),
            )
        return self.get(item_id)

    def get(self, item_id: str) -> InboxItem:
        row = self._db.one(f"SELECT {_COLUMNS} FROM inbox WHERE id = ?", (item_id,))
        if row is None:
            raise NotFoundError(f"no inbox item {item_id}")
        return _item(row)

    def find(self, ref: str) -> InboxItem | None:
        """The item `ref` names: its id, a unique id prefix of 4+ characters, or its proposal's id; None if none."""
        row = self._db.one(f"SELECT {_COLUMNS} FROM inbox WHERE id = ? OR proposal_id = ?", (ref, ref))
        if row is None and len(ref) >= 4:
            rows = self._db.rows(f"SELECT {_COLUMNS} FROM inbox WHERE id LIKE ? || '%' LIMIT 2", (ref,))
            row = rows[0] if len(rows) == 1 else None
        return _item(row) if row is not None else None

    def request(self, item_id: str) -> dict[str, Any]:
        """What the agent posted (its compaction preparation), as it posted it."""
        row = self._db.one("SELECT request_json FROM inbox WHERE id = ?", (item_id,))
        if row is None:
            raise NotFoundError(f"no inbox item {item_id}")
        value: dict[str, Any] = json.loads(row["request_json"])
        return value

    def listing(self, *, everything: bool = False) -> list[InboxItem]:
        """Waiting items (or all of them), oldest first."""
        where = "" if everything else "WHERE status = 'waiting'"
        rows = self._db.rows(f"SELECT {_COLUMNS} FROM inbox {where} ORDER BY created_at, id")
        return [_item(row) for row in rows]

    def waiting_count(self) -> int:
        """How many items wait for an answer and have not timed out (the desk's header count; found ones apart)."""
        row = self._db.one(
            "SELECT count(*) AS n FROM inbox WHERE status = 'waiting' AND found = 0"
            " AND (deadline IS NULL OR deadline > ?)",
            (utc_now(),),
        )
        return int(row["n"]) if row else 0

    def found_count(self) -> int:
        """How many compactions found after the fact are still open (neither written back nor dismissed)."""
        row = self._db.one("SELECT count(*) AS n FROM inbox WHERE status = 'waiting' AND found = 1")
        return int(row["n"]) if row else 0

    def link(self, item_id: str, session_id: str | None, proposal_id: str | None) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE inbox SET session_id = coalesce(?, session_id), proposal_id = coalesce(?, proposal_id)"
                " WHERE id = ?",
                (session_id, proposal_id, item_id),
            )

    def note(self, item_id: str, text: str) -> None:
        with self._db.transaction() as conn:
            row = conn.execute("SELECT notes_json FROM inbox WHERE id = ?", (item_id,)).fetchone()
            notes = json.loads(row[0]) if row else []
            notes.append(text)
            conn.execute("UPDATE inbox SET notes_json = ? WHERE id = ?", (json.dumps(notes), item_id))

    def answer(self, item_id: str, status: Status, answer: dict[str, Any] | None) -> InboxItem:
        """Record the person's answer, once: refused (InboxClosed) unless the item still waits and is not past its deadline."""
        now = utc_now()
        with self._db.transaction() as conn:
            row = conn.execute("SELECT status, deadline FROM inbox WHERE id = ?", (item_id,)).fetchone()
            if row is None:
                raise NotFoundError(f"no inbox item {item_id}")
            if row[0] != "waiting":
                raise InboxClosed(f"inbox item {item_id} is already {row[0]}")
            if row[1] is not None and now > row[1]:
                raise InboxClosed(
                    f"inbox item {item_id} timed out at {row[1]}: the agent went ahead with its own summary"
                )
            conn.execute(
                "UPDATE inbox SET status = ?, answer_json = ?, answered_at = ? WHERE id = ?",
                (status, json.dumps(answer) if answer is not None else None, now, item_id),
            )
        return self.get(item_id)

    def settle(self, item_id: str, status: Status, note: str | None = None) -> None:
        """The agent stopped waiting (timed out, withdrew): mark a still-waiting item so (nothing if answered)."""
        with self._db.transaction() as conn:
            conn.execute("UPDATE inbox SET status = ? WHERE id = ? AND status = 'waiting'", (status, item_id))
        if note:
            self.note(item_id, note)

    def delivered(self, item_id: str) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE inbox SET delivered_at = ? WHERE id = ? AND delivered_at IS NULL", (utc_now(), item_id)
            )

    def set_draft(self, item_id: str, text: str) -> None:
        with self._db.transaction() as conn:
            conn.execute("UPDATE inbox SET draft = ? WHERE id = ?", (text, item_id))

    def since(self, created_after: str) -> list[InboxItem]:
        """Items made after a timestamp (a watcher's new arrivals), oldest first."""
        rows = self._db.rows(
            f"SELECT {_COLUMNS} FROM inbox WHERE created_at > ? ORDER BY created_at, id", (created_after,)
        )
        return [_item(row) for row in rows]
