"""Claude Code write-back and undo: the compaction records appended safely, and taken back."""

from __future__ import annotations

import secrets
from pathlib import Path

from cutline.core.agents.claude_code.compaction import (
    NotWritable,
    compaction_payload,
    derived_uuid,
    off_chain_messages,
)
from cutline.core.agents.entries import now_iso
from cutline.core.agents.line_append import append_payload, restore_backup, undo_payload
from cutline.core.errors import WriteBackRefused
from cutline.core.models import CompactionRecord, Entry, Session


def write_back(
    path: Path,
    session: Session,
    record: CompactionRecord,
    *,
    backup_dir: Path,
    entry_id: str | None = None,
    timestamp: str | None = None,
) -> Entry:
    """Append the boundary and summary records; returns the compaction entry as cutline's reader will see it."""
    if session.format != "claude_code":
        raise WriteBackRefused(f"{path}: not a Claude Code session ({session.format})")
    key = entry_id or secrets.token_hex(4)
    stamp = timestamp or now_iso()
    try:
        dropped = off_chain_messages(session, record.firstKeptEntryId)
        if dropped:
            raise NotWritable(
                f"{len(dropped)} kept record(s) sit beside Claude Code's parent chain (parallel tool calls: "
                f"{', '.join(dropped[:3])}); Claude Code would drop them from the kept messages — make a proposal "
                "that keeps from a later message"
            )
        payload = compaction_payload(session, record, entry_id=key, timestamp=stamp, transcript=str(path))
    except NotWritable as exc:
        raise WriteBackRefused(f"{path}: {exc}") from None
    append_payload(path, session, payload, backup_dir)
    leaf = session.active_path()[-1].id
    return Entry(
        id=derived_uuid(session.id, key, "boundary"),
        parentId=leaf,
        type="compaction",
        timestamp=stamp,
        sourceType="system",
        compaction=record.model_copy(deep=True),
        line=max((e.line for e in session.entries), default=0) + 1,
        raw_line=payload.decode("utf-8").split(session.newline, 1)[0],
    )


def written_payload(path: Path, session: Session, entry_id: str) -> bytes:
    """The exact bytes cutline appended for compaction `entry_id` (its boundary and summary lines)."""
    by_id = {e.id: e for e in session.entries}
    boundary = by_id.get(entry_id)
    if boundary is None or boundary.type != "compaction":
        raise WriteBackRefused(f"{path}: compaction {entry_id} is not in the session; nothing to undo")
    summary = next((e for e in session.entries if e.line == boundary.line + 1 and e.isCompactSummary), None)
    if summary is None:
        raise WriteBackRefused(f"{path}: the summary record after compaction {entry_id} is missing; nothing to undo")
    return (boundary.raw_line + session.newline + summary.raw_line + session.newline).encode("utf-8")


def undo(path: Path, session: Session, entry_id: str, *, backup_dir: Path, from_backup: bool = False) -> str:
    """Take the compaction back: the exact former bytes when nothing followed it, or (asked) the backup."""
    payload = written_payload(path, session, entry_id)
    if from_backup:
        return restore_backup(path, payload, backup_dir)
    return undo_payload(path, payload, backup_dir)
