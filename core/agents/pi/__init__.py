"""pi: session JSONL read (reader, v1 migration), written out (writer), written back to (append) and taken back."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cutline.core.agents.adapter import AgentAdapter, EntrySink
from cutline.core.agents.jsonl import Lines
from cutline.core.agents.jsonl_writeback import recover
from cutline.core.agents.peek import SessionPeek, file_peek, head_records, head_text
from cutline.core.agents.pi.append import (
    compaction_payload,
    running_pi,
    undo_compaction,
    write_back_plan,
    write_compaction,
)
from cutline.core.agents.pi.detect import is_pi_record
from cutline.core.agents.pi.reader import read_pi
from cutline.core.agents.pi.system import system_prompt
from cutline.core.agents.wire import WireContext, wire_messages
from cutline.core.agents.writeback import (
    OnPrepared,
    PendingWrite,
    Recovery,
    UndoResult,
    WriteBackPlan,
    WrittenBack,
    no_record,
)
from cutline.core.models import CompactionRecord, Session, SessionFormat


class PiAdapter(AgentAdapter):
    """pi-coding-agent's session files (`~/.pi/agent/sessions/**/*.jsonl`), versions 1-3, as 0.73 and 0.87 write them."""

    format: SessionFormat = "pi"
    label = "pi"

    def detect(self, record: dict[str, Any]) -> bool:
        return is_pi_record(record)

    def read(self, lines: Lines, file: str, stem: str, sink: EntrySink | None, keep: bool) -> Session:
        return read_pi(lines, file, stem, sink, keep)

    def wire_context(self, session: Session) -> WireContext:
        """pi's Anthropic request: the context's system messages, replayed into one prompt, go in `system`, not `messages`."""
        messages = self.context(session.active_path())
        prompt = system_prompt(messages)
        notes = [
            f"system prompt from the session's system entries ({len(prompt):,} chars), sent as the request's `system`"
        ]
        return WireContext(
            agent=self.format,
            messages=wire_messages([m for m in messages if m.role != "system"]),
            notes=notes if prompt else [],
        )

    def session_files(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """`~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl` (`PI_CODING_AGENT_DIR` moves `~/.pi/agent`)."""
        agent_dir = (
            Path(env["PI_CODING_AGENT_DIR"]).expanduser() if env.get("PI_CODING_AGENT_DIR") else home / ".pi" / "agent"
        )
        return sorted((agent_dir / "sessions").glob("*/*.jsonl"))

    def peek(self, path: Path) -> list[SessionPeek]:
        """The header line: id, format version and cwd; a `role:"system"` entry near the start marks current pi (0.87+)."""
        text = head_text(path)
        records = head_records(text)
        header = records[0] if records and records[0].get("type") == "session" else {}
        version = header.get("version")
        shown = f"v{version}" if isinstance(version, int) else None
        if re.search(r'"role"\s*:\s*"system"', text):
            shown = f"{shown or 'v3'} (0.87+)"
        session_id = header.get("id")
        cwd = header.get("cwd")
        return [
            file_peek(
                path, session_id if isinstance(session_id, str) else None, shown, cwd if isinstance(cwd, str) else None
            )
        ]

    def write_back_plan(self, session: Session) -> WriteBackPlan:
        return write_back_plan(session)

    def write_back_refusal(self) -> str | None:
        return None

    def running_agent(self, session: Session) -> str | None:
        found = running_pi(session)
        return found[0].describe() if found else None

    def preview_line(self, session: Session, record: CompactionRecord, *, entry_id: str, timestamp: str) -> str:
        return compaction_payload(session, record, entry_id=entry_id, timestamp=timestamp)

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
        entry, pending = write_compaction(
            path,
            session,
            record,
            backup_dir=backup_dir,
            entry_id=entry_id,
            timestamp=timestamp,
            proposal_id=proposal_id,
            on_prepared=on_prepared,
        )
        return WrittenBack(entry=entry, pending=pending)

    def recover(self, pending: PendingWrite) -> Recovery:
        return recover(pending)

    def undo(
        self, pending: PendingWrite, *, backup_dir: Path, from_backup: bool = False, branch: bool = False
    ) -> UndoResult:
        return undo_compaction(pending, backup_dir=backup_dir, from_backup=from_backup, branch=branch)


ADAPTER = PiAdapter()
