"""The write_backs table: each write-back recorded as pending before its first byte, then done, then maybe undone.

Why in the store: a process killed between the file and the store must leave a trace
that the next start can act on; the record is committed with full durability.
"""

from __future__ import annotations

from typing import Literal

from cutline.core.agents.writeback import PendingWrite
from cutline.core.store.db import StoreDatabase, utc_now

WriteBackState = Literal["pending", "done", "undone"]


class WriteBacks:
    """Pending, done and undone write-backs, one per proposal."""

    def __init__(self, database: StoreDatabase) -> None:
        self._db = database

    def record_pending(self, pending: PendingWrite) -> None:
        """Store the write-back about to happen, durably (synchronous=FULL for this commit)."""
        now = utc_now()
        with self._db.durable(), self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO write_backs (proposal_id, session_id, state, created_at, updated_at, record_json)"
                " VALUES (?, ?, 'pending', ?, ?, ?)"
                " ON CONFLICT(proposal_id) DO UPDATE SET state = 'pending', updated_at = excluded.updated_at,"
                " record_json = excluded.record_json",
                (pending.proposal_id, pending.session_id, now, now, pending.model_dump_json()),
            )

    def forget(self, proposal_id: str) -> None:
        """Drop a pending record whose write never happened."""
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM write_backs WHERE proposal_id = ? AND state = 'pending'", (proposal_id,))

    def set_state(self, proposal_id: str, state: WriteBackState, record: PendingWrite | None = None) -> None:
        """Mark a write-back done or undone (inside the caller's transaction when there is one)."""
        with self._db.transaction() as conn:
            if record is None:
                conn.execute(
                    "UPDATE write_backs SET state = ?, updated_at = ? WHERE proposal_id = ?",
                    (state, utc_now(), proposal_id),
                )
            else:
                conn.execute(
                    "UPDATE write_backs SET state = ?, updated_at = ?, record_json = ? WHERE proposal_id = ?",
                    (state, utc_now(), record.model_dump_json(), proposal_id),
                )

    def pending(self) -> list[PendingWrite]:
        """Write-backs that were started and never reported done (oldest first)."""
        rows = self._db.rows("SELECT record_json FROM write_backs WHERE state = 'pending' ORDER BY created_at")
        return [PendingWrite.model_validate_json(row["record_json"]) for row in rows]

    def get(self, proposal_id: str) -> tuple[WriteBackState, PendingWrite] | None:
        """A proposal's write-back record and its state, or None."""
        row = self._db.one("SELECT state, record_json FROM write_backs WHERE proposal_id = ?", (proposal_id,))
        if row is None:
            return None
        state: WriteBackState = row["state"]
        return state, PendingWrite.model_validate_json(row["record_json"])

    def any_pending(self) -> bool:
        """Whether a write-back was left unfinished (cheap: checked on every start)."""
        return self._db.one("SELECT 1 AS x FROM write_backs WHERE state = 'pending' LIMIT 1") is not None
