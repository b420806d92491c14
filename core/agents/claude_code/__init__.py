"""Claude Code: transcripts (`~/.claude/projects/*/*.jsonl`) read into the neutral model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cutline.core.agents.adapter import AgentAdapter, EntrySink, handed_over
from cutline.core.agents.claude_code import writeback
from cutline.core.agents.claude_code.context import claude_code_context, claude_code_wire
from cutline.core.agents.claude_code.detect import is_claude_code_record
from cutline.core.agents.claude_code.reader import read_claude_code
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


class ClaudeCodeAdapter(AgentAdapter):
    """Claude Code's transcripts.

    Its context (claude_code/context.py): after a compaction the summary record as sent,
    the `preservedSegment` after it, then what followed; rendered attachments as the
    system reminders they are; the synthetic "No response requested." after a resumed
    summary. Sidechains are never sent.
    """

    format: SessionFormat = "claude_code"
    label = "Claude Code"

    def detect(self, record: dict[str, Any]) -> bool:
        return is_claude_code_record(record)

    def read(self, lines: Lines, file: str, stem: str, sink: EntrySink | None, keep: bool) -> Session:
        return handed_over(read_claude_code(lines, file, stem), sink, keep)

    def context(self, path: list[Entry]) -> list[Message]:
        return claude_code_context(path)

    def wire_context(self, session: Session) -> WireContext:
        return WireContext(agent=self.format, messages=claude_code_wire(session.active_path()))

    def write_back_plan(self, session: Session) -> WriteBackPlan:
        return writeback.plan(session)

    def write_back_refusal(self) -> str | None:
        return None

    def running_agent(self, session: Session) -> str | None:
        return writeback.running(session)

    def preview_line(self, session: Session, record: CompactionRecord, *, entry_id: str, timestamp: str) -> str:
        payload = writeback.payload_for(
            session, record, path=Path(session.source_path or ""), entry_id=entry_id, timestamp=timestamp
        )
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


ADAPTER = ClaudeCodeAdapter()
