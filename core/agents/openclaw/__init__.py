"""OpenClaw: its SQLite store (store.py) and its pi-style JSONL transcripts (session header version 4), read through pi's reader.

OpenClaw 2026.9 keeps transcripts in SQLite (`agents/<id>/agent/openclaw-agent.sqlite`)
and writes JSONL only as exports and legacy imports; its events are pi's entries under a
version 4 header. A file with a version 1-3 header cannot be told from pi's and reads as
pi. Write-back (writeback.py) inserts into the store; exported JSONL files are refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cutline.core.agents.adapter import AgentAdapter, EntrySink
from cutline.core.agents.formats import is_openclaw_record
from cutline.core.agents.jsonl import Lines
from cutline.core.agents.openclaw import writeback
from cutline.core.agents.openclaw.replay_policy import drops_thinking_blocks, last_model_snapshot, tool_id_policy
from cutline.core.agents.openclaw.store import peek_store
from cutline.core.agents.openclaw.thinking import drop_thinking_blocks
from cutline.core.agents.openclaw.tool_call_ids import rewrite_tool_call_ids
from cutline.core.agents.peek import SessionPeek
from cutline.core.agents.pi.reader import read_pi
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
from cutline.core.models import CompactionRecord, Session, SessionFormat


class OpenClawAdapter(AgentAdapter):
    """OpenClaw's transcripts: JSONL here; its SQLite store is read by `store.read_store` (read_session routes it)."""

    format: SessionFormat = "openclaw"
    label = "OpenClaw"

    def detect(self, record: dict[str, Any]) -> bool:
        return is_openclaw_record(record)

    def read(self, lines: Lines, file: str, stem: str, sink: EntrySink | None, keep: bool) -> Session:
        session = read_pi(lines, file, stem, sink, keep)
        session.format = self.format
        return session

    def wire_context(self, session: Session) -> WireContext:
        """The context as OpenClaw's transcript policy sends it for the model of the session's last run.

        Its store keeps what the model gave; on every request the policy drops older Claude
        models' thinking, then rewrites tool call ids (replay_policy.py, thinking.py,
        tool_call_ids.py), in `sanitizeSessionHistory`'s order.
        """
        context = super().wire_context(session)
        path = session.active_path()
        snapshot = last_model_snapshot(path)
        if snapshot is None:
            return context
        messages = context.messages
        if drops_thinking_blocks(*snapshot):
            messages = drop_thinking_blocks(messages)
        messages = rewrite_tool_call_ids(messages, tool_id_policy(*snapshot))
        return context.model_copy(update={"messages": messages})

    def session_files(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """`$OPENCLAW_STATE_DIR/agents/<id>/agent/openclaw-agent.sqlite` (default state dir `~/.openclaw`)."""
        state = Path(env["OPENCLAW_STATE_DIR"]).expanduser() if env.get("OPENCLAW_STATE_DIR") else home / ".openclaw"
        return sorted(state.glob("agents/*/agent/openclaw-agent.sqlite"))

    def peek(self, path: Path) -> list[SessionPeek]:
        """Every session of the store, from its session list and header events (no transcript is decoded)."""
        return peek_store(path)

    def write_back_plan(self, session: Session) -> WriteBackPlan:
        return writeback.plan(session)

    def write_back_refusal(self) -> str | None:
        return None

    def running_agent(self, session: Session) -> str | None:
        return writeback.running(session)

    def preview_line(self, session: Session, record: CompactionRecord, *, entry_id: str, timestamp: str) -> str:
        """The event's JSON as it goes into `transcript_events` (its projection rows follow from it)."""
        event_id = writeback.event_id_for(session.id, entry_id)
        return writeback.event_for(session, record, event_id=event_id, timestamp=timestamp)

    def session_after_write_back(self, session: Session, written: str) -> Session | None:
        """The session read from the store with the event inserted as write-back inserts it (the store untouched)."""
        return writeback.session_after(session, written)

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
        return writeback.recover(pending)

    def undo(
        self, pending: PendingWrite, *, backup_dir: Path, from_backup: bool = False, branch: bool = False
    ) -> UndoResult:
        if branch:
            raise WriteBackRefused(f"{pending.path}: cutline does not branch OpenClaw sessions; use --from-backup")
        return writeback.undo(pending, backup_dir=backup_dir, from_backup=from_backup)


ADAPTER = OpenClawAdapter()
