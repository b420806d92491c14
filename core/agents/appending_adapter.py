"""An adapter whose write-back appends lines through a writer module (pi, Claude Code, Codex).

The agent's package supplies the writer (`plan`, `running`, `payload_for`, `write_back`,
`undo`); the guarantees (backup, pending record, one append, recovery) live in
`appended_lines` and `jsonl_writeback`, so the adapters only say which writer is theirs
and whether undo can branch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from cutline.core.agents.adapter import AgentAdapter
from cutline.core.agents.jsonl_writeback import recover
from cutline.core.agents.writeback import (
    OnPrepared,
    PendingWrite,
    Recovery,
    UndoResult,
    WriteBackPlan,
    WrittenBack,
    no_record,
)
from cutline.core.errors import WriteBackRefused
from cutline.core.models import CompactionRecord, Session


class LineWriter(Protocol):
    """What an agent's writeback module offers."""

    def plan(self, session: Session) -> WriteBackPlan: ...

    def running(self, session: Session) -> str | None: ...

    def payload_for(
        self, session: Session, record: CompactionRecord, *, path: Path, entry_id: str, timestamp: str
    ) -> bytes: ...

    def write_back(
        self,
        path: Path,
        session: Session,
        record: CompactionRecord,
        *,
        backup_dir: Path,
        entry_id: str | None = None,
        timestamp: str | None = None,
        proposal_id: str = "",
        on_prepared: OnPrepared = no_record,
    ) -> WrittenBack: ...

    def undo(
        self, pending: PendingWrite, *, backup_dir: Path, from_backup: bool = False, branch: bool = False
    ) -> UndoResult: ...


class AppendingAdapter(AgentAdapter):
    """Write-back, recovery and undo by appending lines; the subclass names its `writer`."""

    writer: LineWriter
    # whether undo can continue from before the compaction on a branch (pi's tree); else only the backup
    branches: bool = False

    def write_back_plan(self, session: Session) -> WriteBackPlan:
        return self.writer.plan(session)

    def write_back_refusal(self) -> str | None:
        return None

    def running_agent(self, session: Session) -> str | None:
        return self.writer.running(session)

    def preview_line(self, session: Session, record: CompactionRecord, *, entry_id: str, timestamp: str) -> str:
        path = Path(session.source_path or "")
        payload = self.writer.payload_for(session, record, path=path, entry_id=entry_id, timestamp=timestamp)
        return payload.decode("utf-8").rstrip("\r\n")

    def write_back(
        self,
        path: Path,
        session: Session,
        record: CompactionRecord,
        *,
        backup_dir: Path,
        entry_id: str | None = None,
        timestamp: str | None = None,
        proposal_id: str = "",
        on_prepared: OnPrepared = no_record,
    ) -> WrittenBack:
        return self.writer.write_back(
            path,
            session,
            record,
            backup_dir=backup_dir,
            entry_id=entry_id,
            timestamp=timestamp,
            proposal_id=proposal_id,
            on_prepared=on_prepared,
        )

    def recover(self, pending: PendingWrite) -> Recovery:
        return recover(pending)

    def undo(
        self, pending: PendingWrite, *, backup_dir: Path, from_backup: bool = False, branch: bool = False
    ) -> UndoResult:
        if branch and not self.branches:
            raise WriteBackRefused(
                f"{pending.path}: {self.label} sessions have no branches to go back to; use the backup"
            )
        return self.writer.undo(pending, backup_dir=backup_dir, from_backup=from_backup, branch=branch)
