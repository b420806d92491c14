"""opencode: its SQLite store (`$XDG_DATA_HOME/opencode/opencode.db`, store.py) read into the neutral model.

The store holds every session; `DB#SESSION_ID` names one (reader.py turns its message
and part rows into entries; context.py rebuilds what opencode sends next). opencode
writes no session file of its own, so `detect` never claims a JSONL record: the store is
routed here by `read_session` from its tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cutline.core.agents.adapter import AgentAdapter, EntrySink
from cutline.core.agents.jsonl import Lines
from cutline.core.agents.opencode import writeback
from cutline.core.agents.opencode.context import context_indices, opencode_context, opencode_wire
from cutline.core.agents.opencode.reader import read_opencode
from cutline.core.agents.opencode.store import fingerprint, peek_store, read_rows
from cutline.core.agents.peek import SessionPeek
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
from cutline.core.errors import FormatError, WriteBackRefused
from cutline.core.models import CompactionRecord, Entry, Message, Session, SessionFormat


def read_store(ref: str | Path) -> Session:
    """One session of an opencode database (the latest top-level one when `ref` names none)."""
    where, rows = read_rows(ref)
    session = read_opencode(where, rows)
    session.source_path = where
    session.source_size, session.source_sha256 = fingerprint(rows)
    return session


def data_dir(env: Mapping[str, str], home: Path) -> Path:
    """opencode's data folder: `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`."""
    base = Path(env["XDG_DATA_HOME"]).expanduser() if env.get("XDG_DATA_HOME") else home / ".local" / "share"
    return base / "opencode"


class OpencodeAdapter(AgentAdapter):
    """opencode's SQLite store."""

    format: SessionFormat = "opencode"
    label = "opencode"

    def detect(self, record: dict[str, Any]) -> bool:
        return False

    def read(self, lines: Lines, file: str, stem: str, sink: EntrySink | None, keep: bool) -> Session:
        raise FormatError(f"{file}: opencode keeps its sessions in its SQLite store, not in JSON Lines")

    def context_indices(self, path: list[Entry]) -> list[int]:
        return context_indices(path)

    def context(self, path: list[Entry]) -> list[Message]:
        return opencode_context(path)

    def wire_context(self, session: Session) -> WireContext:
        return WireContext(agent=self.format, messages=opencode_wire(opencode_context(session.active_path())))

    def session_files(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """The store, `opencode.db` (opencode 1.18 keeps one for all projects)."""
        db = data_dir(env, home) / "opencode.db"
        return [db] if db.is_file() else []

    def peek(self, path: Path) -> list[SessionPeek]:
        return peek_store(path)

    def write_back_plan(self, session: Session) -> WriteBackPlan:
        return writeback.plan(session)

    def write_back_refusal(self) -> str | None:
        return None

    def running_agent(self, session: Session) -> str | None:
        return writeback.running(session)

    def preview_line(self, session: Session, record: CompactionRecord, *, entry_id: str, timestamp: str) -> str:
        """The message and part rows as they go into the store (one JSON object)."""
        return writeback.preview(session, record, key=entry_id, timestamp=timestamp)

    def session_after_write_back(self, session: Session, written: str) -> Session | None:
        """The session read from the store with the rows inserted as write-back inserts them (the store untouched)."""
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
            raise WriteBackRefused(f"{pending.path}: cutline does not branch opencode sessions; use --from-backup")
        return writeback.undo(pending, backup_dir=backup_dir, from_backup=from_backup)


ADAPTER = OpencodeAdapter()
