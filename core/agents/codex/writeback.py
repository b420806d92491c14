"""Codex write-back and undo: the `compacted` record appended safely, and taken back."""

from __future__ import annotations

from pathlib import Path

from cutline.core.agents.codex.compaction import NotWritable, compaction_payload, new_entry_id
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
    """Append the `compacted` record; returns the compaction entry as cutline's reader will see it.

    `entry_id` is ignored: a rollout line has no id of its own, cutline's reader names it by its line.
    """
    del entry_id
    if session.format != "codex":
        raise WriteBackRefused(f"{path}: not a Codex rollout ({session.format})")
    stamp = timestamp or now_iso()
    try:
        payload = compaction_payload(session, record, timestamp=stamp)
    except NotWritable as exc:
        raise WriteBackRefused(f"{path}: {exc}") from None
    offset, _ = append_payload(path, session, payload, backup_dir)
    del offset
    line = max((e.line for e in session.entries), default=1) + 1
    return Entry(
        id=new_entry_id(session, line),
        parentId=session.leaf_id,
        type="compaction",
        timestamp=stamp,
        sourceType="compacted",
        compaction=record.model_copy(deep=True),
        line=line,
        raw_line=payload.decode("utf-8").rstrip("\r\n"),
    )


def undo(path: Path, session: Session, entry_id: str, *, backup_dir: Path, from_backup: bool = False) -> str:
    """Take the `compacted` line back: the exact former bytes when nothing followed it, or (asked) the backup."""
    entry = next((e for e in session.entries if e.id == entry_id), None)
    if entry is None or entry.type != "compaction":
        raise WriteBackRefused(f"{path}: compaction {entry_id} is not in the rollout; nothing to undo")
    payload = (entry.raw_line + session.newline).encode("utf-8")
    if from_backup:
        return restore_backup(path, payload, backup_dir)
    return undo_payload(path, payload, backup_dir)
