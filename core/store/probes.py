"""The probe_runs table: the model check's results (core.audit.probe's ProbeRun, as JSON), stored with their proposal."""

from __future__ import annotations

from cutline.core.store.db import StoreDatabase


class ProbeRuns:
    """Every model check run on a proposal, the latest last; each run is its JSON, stamped by the caller."""

    def __init__(self, database: StoreDatabase) -> None:
        self._db = database

    def add(self, proposal_id: str, created_at: str, run_json: str) -> None:
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO probe_runs (proposal_id, created_at, run_json) VALUES (?, ?, ?)",
                (proposal_id, created_at, run_json),
            )

    def latest(self, proposal_id: str) -> str | None:
        """The proposal's last run as JSON, or None."""
        row = self._db.one(
            "SELECT run_json FROM probe_runs WHERE proposal_id = ? ORDER BY id DESC LIMIT 1", (proposal_id,)
        )
        return None if row is None else str(row["run_json"])
