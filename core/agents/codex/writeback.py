"""Codex write-back on cutline's seam: the `compacted` record appended safely, recovered, undone."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from cutline.core.agents.appended_lines import append_lines, program_named, running_program
from cutline.core.agents.codex.compaction import (
    NO_ORDINAL,
    NotWritable,
    compaction_payload,
    has_last_ordinal,
    last_ordinal,
    new_entry_id,
)
from cutline.core.agents.entries import now_iso
from cutline.core.agents.jsonl_writeback import undo_written
from cutline.core.agents.writeback import OnPrepared, PendingWrite, UndoResult, WriteBackPlan, WrittenBack, no_record
from cutline.core.errors import WriteBackRefused
from cutline.core.models import CompactionRecord, Entry, Session

_IS_CODEX = program_named("codex", "codex.js")


def plan(session: Session) -> WriteBackPlan:
    """Whether the rollout takes a compaction: Codex 0.16x lines carrying `ordinal`."""
    try:
        last_ordinal(session)
    except NotWritable as exc:
        return WriteBackPlan.refused(str(exc))
    return _append()


def plan_from_last(header_line: str | None, last: Entry | None) -> WriteBackPlan | None:
    """`plan` from the header line and the rollout's last entry alone (as the store holds them), or None to read it whole.

    Why: `compact` of a 50,000-line rollout planned from a window of its stored path read
    the whole session again only to say whether it can be written back.
    """
    told = has_last_ordinal(header_line, last)
    if told is None:
        return None
    return _append() if told else WriteBackPlan.refused(NO_ORDINAL)


def _append() -> WriteBackPlan:
    return WriteBackPlan(
        possible=True,
        how="append",
        reason="a `compacted` record (ordinal last + 1, replacement_history) is appended; Codex resumes from it",
        style="Codex 0.169 (compacted with replacement_history)",
    )


def running(session: Session) -> str | None:
    """A running Codex that may write to this rollout."""
    header_id = session.header.get("id")
    return running_program(session, _IS_CODEX, header_id if isinstance(header_id, str) else "")


def payload_for(session: Session, record: CompactionRecord, *, path: Path, entry_id: str = "", timestamp: str) -> bytes:
    """The exact bytes appended."""
    try:
        return compaction_payload(session, record, timestamp=timestamp)
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
    """Append the `compacted` record; the compaction entry as cutline's reader will see it.

    `entry_id` is not used: a rollout line has no id of its own, cutline's reader names it by its line.
    """
    del entry_id
    if session.format != "codex":
        raise WriteBackRefused(f"{path}: not a Codex rollout ({session.format})")
    checked = plan(session)
    if not checked.possible:
        raise WriteBackRefused(f"{path}: {checked.reason}")
    line = max((e.line for e in session.entries), default=1) + 1
    return append_compacted(
        path,
        session,
        record,
        last=last_ordinal(session),
        line=line,
        new_id=new_entry_id(session, line),
        backup_dir=backup_dir,
        timestamp=timestamp,
        proposal_id=proposal_id,
        on_prepared=on_prepared,
    )


def append_compacted(
    path: Path,
    kept: Session,
    record: CompactionRecord,
    *,
    last: int,
    line: int,
    new_id: str,
    backup_dir: Path,
    timestamp: str | None = None,
    proposal_id: str = "",
    on_prepared: OnPrepared = no_record,
) -> WrittenBack:
    """`write_back` once the whole rollout's facts are known: its highest `ordinal` (`last`), the line and id appended.

    `kept` holds the header facts and at least the path from the first kept item to its
    end (the whole rollout, or that stretch as the store holds it). Why: the write-back of
    a 50,000-line rollout read it whole (~450 MB) for these three facts and the kept items.
    """
    stamp = timestamp or now_iso()
    try:
        payload = compaction_payload(kept, record, timestamp=stamp, last=last)
    except NotWritable as exc:
        raise WriteBackRefused(f"{path}: {exc}") from None
    pending, _ = append_lines(
        path,
        kept,
        payload,
        backup_dir=backup_dir,
        entry_id=new_id,
        proposal_id=proposal_id,
        on_prepared=on_prepared,
        written_ids=[],  # a rollout line has no id: the record's first_line finds it
    )
    entry = Entry(
        id=new_id,
        parentId=kept.leaf_id,
        type="compaction",
        timestamp=stamp,
        sourceType="compacted",
        compaction=record.model_copy(deep=True),
        line=line,
        raw_line=payload.decode("utf-8").rstrip("\r\n"),
    )
    return WrittenBack(entry=entry, pending=pending)


def _ordinal(raw_line: str | None) -> int | None:
    try:
        value = json.loads(raw_line or "{}")
    except ValueError:
        return None
    ordinal = value.get("ordinal") if isinstance(value, dict) else None
    return ordinal if isinstance(ordinal, int) and not isinstance(ordinal, bool) else None


def drift(session: Session, written: PendingWrite) -> str | None:
    """A warning when a Codex that never resumed from the written `compacted` line kept appending after it.

    A rollout has no branches: a running Codex numbers its lines from its own last
    `ordinal`, so its next lines repeat the compaction's ordinal (a resumed Codex goes on
    from it). Found by the line the store recorded, not by an id (rollout lines have none).
    """
    ours = next(
        (
            e
            for e in session.entries
            if e.type == "compaction" and (e.line == written.first_line or e.id == written.entry_id)
        ),
        None,
    )
    if ours is None:
        return None
    return drift_after(ours, ((e.line, e.raw_line) for e in session.entries if e.line > ours.line))


def drift_after(ours: Entry, later: Iterable[tuple[int, str]]) -> str | None:
    """`drift` from the written compaction's entry and the (line, raw line) of every entry after it, in file order.

    Why apart: the store answers both without rebuilding the rollout (`session_writes.drift_warning`).
    """
    mark = _ordinal(ours.raw_line)
    if mark is None:
        return None
    stale = next((line for line, raw in later if (ordinal := _ordinal(raw)) is not None and ordinal <= mark), None)
    if stale is None:
        return None
    return (
        f"Codex kept writing after the compaction on line {ours.line} without resuming from it (line {stale} "
        f"repeats ordinal {mark} or less): make a new proposal, or undo this one"
    )


def undo(pending: PendingWrite, *, backup_dir: Path, from_backup: bool = False, branch: bool = False) -> UndoResult:
    """The exact former bytes when nothing followed; else the backup on request."""
    del branch  # no branches: the adapter refuses one before
    return undo_written(pending, backup_dir=backup_dir, from_backup=from_backup, agent="Codex")
