"""Codex CLI: rollouts (`$CODEX_HOME/sessions/**/rollout-*.jsonl`) read into the neutral model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cutline.core.agents.adapter import AgentAdapter, EntrySink, handed_over
from cutline.core.agents.codex import writeback
from cutline.core.agents.codex.context import codex_context, codex_wire, encrypted_note
from cutline.core.agents.codex.detect import is_codex_record
from cutline.core.agents.codex.reader import read_codex
from cutline.core.agents.jsonl import Lines
from cutline.core.agents.jsonl_writeback import recover
from cutline.core.agents.wire import WireContext
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
from cutline.core.models import CompactionRecord, Entry, Message, Session, SessionFormat


class CodexAdapter(AgentAdapter):
    """Codex rollouts.

    Its context: after a `compacted` record, the record's `replacement_history` verbatim
    (else the earlier user prompts and the summary), then the items that followed; each
    Responses item is a message of its own on the wire.
    """

    format: SessionFormat = "codex"
    label = "Codex"

    def detect(self, record: dict[str, Any]) -> bool:
        return is_codex_record(record)

    def read(self, lines: Lines, file: str, stem: str, sink: EntrySink | None, keep: bool) -> Session:
        return handed_over(read_codex(lines, file, stem), sink, keep)

    def context(self, path: list[Entry]) -> list[Message]:
        return codex_context(path)

    def wire_context(self, session: Session) -> WireContext:
        path = session.active_path()
        note = encrypted_note(path)
        return WireContext(agent=self.format, messages=codex_wire(codex_context(path)), notes=[note] if note else [])

    def write_back_plan(self, session: Session) -> WriteBackPlan:
        return writeback.plan(session)

    def write_back_refusal(self) -> str | None:
        return None

    def running_agent(self, session: Session) -> str | None:
        return writeback.running(session)

    def preview_line(self, session: Session, record: CompactionRecord, *, entry_id: str, timestamp: str) -> str:
        payload = writeback.payload_for(session, record, path=Path(session.source_path or ""), timestamp=timestamp)
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
        return writeback.write_back(
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
        if branch:
            raise WriteBackRefused(
                f"{pending.path}: {self.label} sessions have no branches to go back to; use the backup"
            )
        return writeback.undo(pending, backup_dir=backup_dir, from_backup=from_backup)


ADAPTER = CodexAdapter()
