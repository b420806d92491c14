"""Claude Code write-back on cutline's seam: the boundary and summary records appended safely, recovered, undone."""

from __future__ import annotations

import secrets
from pathlib import Path

from cutline.core.agents.appended_lines import append_lines, program_named, running_program
from cutline.core.agents.claude_code.compaction import (
    NotWritable,
    compaction_payload,
    derived_uuid,
    off_chain_messages,
)
from cutline.core.agents.entries import now_iso
from cutline.core.agents.jsonl_writeback import undo_written
from cutline.core.agents.writeback import OnPrepared, PendingWrite, UndoResult, WriteBackPlan, WrittenBack, no_record
from cutline.core.errors import WriteBackRefused
from cutline.core.models import CompactionRecord, Entry, Session

_IS_CLAUDE = program_named("claude", "cli.js")


def plan(session: Session) -> WriteBackPlan:
    """Whether the session takes a compaction: a Claude Code transcript whose last record has a uuid to link to."""
    path = session.active_path()
    return plan_from_leaf(path[-1] if path else None)


def plan_from_leaf(leaf: Entry | None) -> WriteBackPlan:
    """`plan` from the active path's last entry alone (None: the path is empty), e.g. as the store holds it.

    Why: `compact` of a 50,000-record transcript planned from a window of its stored path
    read the whole session again (~650 MB) only to say whether it can be written back.
    """
    if leaf is None:
        return WriteBackPlan.refused("the transcript has no records to compact")
    if not leaf.raw_line or f'"{leaf.id}"' not in leaf.raw_line:
        return WriteBackPlan.refused(
            "the transcript's last record has no uuid: Claude Code could not link a compaction"
        )
    return WriteBackPlan(
        possible=True,
        how="append",
        reason="a compact_boundary and the summary record are appended; Claude Code resumes from them",
        style="Claude Code 2.1.33x (compact_boundary + isCompactSummary, preservedSegment)",
    )


def running(session: Session) -> str | None:
    """A running Claude Code that may write to this transcript."""
    return running_program(session, _IS_CLAUDE, session.id)


def payload_for(session: Session, record: CompactionRecord, *, path: Path, entry_id: str, timestamp: str) -> bytes:
    """The exact bytes appended (refused when Claude Code would not keep what the proposal keeps)."""
    try:
        dropped = off_chain_messages(session, record.firstKeptEntryId)
        if dropped:
            raise NotWritable(
                f"{len(dropped)} kept record(s) sit beside Claude Code's parent chain (parallel tool calls: "
                f"{', '.join(dropped[:3])}); Claude Code would drop them from the kept messages — make a proposal "
                "that keeps from a later message"
            )
        return compaction_payload(session, record, entry_id=entry_id, timestamp=timestamp, transcript=str(path))
    except NotWritable as exc:
        raise WriteBackRefused(f"{path}: {exc}") from None


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
    """Append the boundary and summary records; the compaction entry as cutline's reader will see it."""
    if session.format != "claude_code":
        raise WriteBackRefused(f"{path}: not a Claude Code session ({session.format})")
    checked = plan(session)
    if not checked.possible:
        raise WriteBackRefused(f"{path}: {checked.reason}")
    key = entry_id or secrets.token_hex(4)
    stamp = timestamp or now_iso()
    payload = payload_for(session, record, path=path, entry_id=key, timestamp=stamp)
    boundary = derived_uuid(session.id, key, "boundary")
    pending, line = append_lines(
        path,
        session,
        payload,
        backup_dir=backup_dir,
        entry_id=boundary,
        proposal_id=proposal_id,
        on_prepared=on_prepared,
        written_ids=[boundary, derived_uuid(session.id, key, "summary")],
    )
    entry = Entry(
        id=boundary,
        parentId=session.active_path()[-1].id,
        type="compaction",
        timestamp=stamp,
        sourceType="system",
        compaction=record.model_copy(deep=True),
        line=line,
        raw_line=payload.decode("utf-8").split(session.newline, 1)[0],
    )
    return WrittenBack(entry=entry, pending=pending)


def undo(pending: PendingWrite, *, backup_dir: Path, from_backup: bool = False, branch: bool = False) -> UndoResult:
    """The exact former bytes when nothing followed; else the backup on request (no branches to go back to)."""
    del branch  # no branches: the adapter refuses one before
    return undo_written(pending, backup_dir=backup_dir, from_backup=from_backup, agent="Claude Code")
