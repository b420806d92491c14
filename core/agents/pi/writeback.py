"""pi write-back on cutline's seam: the writer AppendingAdapter delegates to (plan, running, payload, write, undo).

The work is pi/append.py's (v3 append, v1/v2 migration, current pi's checkpoint, branch
undo); this module only gives it the shape every appending agent's writer has.
"""

from __future__ import annotations

from pathlib import Path

from cutline.core.agents.pi.append import (
    compaction_payload,
    running_pi,
    undo_compaction,
    write_back_plan,
    write_compaction,
)
from cutline.core.agents.writeback import OnPrepared, PendingWrite, UndoResult, WriteBackPlan, WrittenBack, no_record
from cutline.core.models import CompactionRecord, Session


def plan(session: Session) -> WriteBackPlan:
    """Whether the session takes a compaction, how (append, or migrate then append), and why not."""
    return write_back_plan(session)


def running(session: Session) -> str | None:
    """A running pi that may write to this session (its description)."""
    found = running_pi(session)
    return found[0].describe() if found else None


def payload_for(session: Session, record: CompactionRecord, *, path: Path, entry_id: str, timestamp: str) -> bytes:
    """The compaction line appended (after a migration, the line that follows the migrated file)."""
    del path
    line = compaction_payload(session, record, entry_id=entry_id, timestamp=timestamp)
    return (line + session.newline).encode("utf-8")


def write_back(
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
    """Write the compaction the way this session's pi would (see pi/append.py)."""
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


def undo(pending: PendingWrite, *, backup_dir: Path, from_backup: bool = False, branch: bool = False) -> UndoResult:
    """The exact former bytes when nothing followed; else a branch from before the compaction, or the backup."""
    return undo_compaction(pending, backup_dir=backup_dir, from_backup=from_backup, branch=branch)
