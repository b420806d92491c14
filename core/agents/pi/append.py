"""A compaction written into a pi session file the way pi writes one: planned, backed up, recorded, checked, appended.

Appending is the only change to a v3 file (old bytes are never rewritten); a v1 / v2
file is first rewritten as v3 in one rename, as pi itself does when it loads one. In a
session current pi wrote, the line carries pi 0.87's `systemMessage` checkpoint.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from cutline.core.agents.entries import now_iso
from cutline.core.agents.jsonl import utf16_encoding
from cutline.core.agents.jsonl_writeback import (
    append_checked,
    check_unchanged,
    make_backup,
    pending_for,
    read_file,
    replace_checked,
    undo_written,
)
from cutline.core.agents.pi.migrate import migrated_lines, migration_refusal
from cutline.core.agents.pi.system import current_system_message, is_current_pi
from cutline.core.agents.pi.writer import compaction_line
from cutline.core.agents.processes import RunningProcess, holds_open, processes
from cutline.core.agents.writeback import (
    OnPrepared,
    PendingWrite,
    UndoResult,
    WriteBackPlan,
    no_record,
)
from cutline.core.errors import WriteBackRefused
from cutline.core.models import CompactionRecord, Entry, Session


def write_back_plan(session: Session) -> WriteBackPlan:
    """Whether this pi session can take a compaction, how, and why not (from the session alone, no I/O)."""
    return _write_back_plan(session, bool(session.entries), lambda: is_current_pi(session.active_path()))


def stored_write_back_plan(header: Session, has_entries: bool, current: bool) -> WriteBackPlan | None:
    """`write_back_plan` of a stored pi session from its header and two facts of its path, or None to read it whole.

    `has_entries`: whether the file holds any entry; `current`: `is_current_pi` of its active
    path. None for a file before version 3: whether cutline can migrate it reads its entries.
    Why: a compaction of a 100,000-entry session planned from a window of its stored path
    read the whole session only to say whether and how it can be written back (~1 GB).
    """
    if header.format == "pi" and (header.version if header.version is not None else 1) < 3:
        return None
    return _write_back_plan(header, has_entries, lambda: current)


def _write_back_plan(session: Session, has_entries: bool, current: Callable[[], bool]) -> WriteBackPlan:
    if session.format != "pi":
        return WriteBackPlan.refused(
            f"only pi / OpenClaw session files take a compaction (this one is {session.format})"
        )
    if not session.source_path:
        return WriteBackPlan.refused("the session has no source file to write back to")
    if not session.header_line:
        return WriteBackPlan.refused("the file has no session header; pi would discard it, so cutline will not write")
    if not session.trailing_newline and has_entries:
        return WriteBackPlan.refused(
            "the file does not end with a newline (its last line is incomplete); open it in pi once "
            "(pi repairs it), then re-import"
        )
    version = session.version if session.version is not None else 1
    if version < 3:
        why = migration_refusal(session)
        if why is not None:
            return WriteBackPlan.refused(f"pi v{version} file that cutline cannot migrate: {why}")
        return WriteBackPlan(
            possible=True,
            how="migrate-and-append",
            reason=(
                f"pi v{version} file: cutline first rewrites it as v3, as pi does when it opens it "
                "(after a backup), then appends the compaction"
            ),
            style="pi v3",
        )
    return WriteBackPlan(
        possible=True,
        how="append",
        reason="one compaction line is appended (after a backup); nothing else in the file changes",
        style="pi 0.87 (with its systemMessage checkpoint)" if current() else "pi v3",
    )


def _is_pi(argv: list[str]) -> bool:
    return any("pi-coding-agent" in arg or os.path.basename(arg) == "pi" for arg in argv[:3])


def running_pi(session: Session) -> list[RunningProcess]:
    """pi processes that may be writing to this session: holding the file, naming it, or running in its directory."""
    if not session.source_path:
        return []
    target = Path(session.source_path)
    real = os.path.realpath(target)
    found: list[RunningProcess] = []
    for process in processes(_is_pi):
        named = any(os.path.realpath(arg) == real for arg in process.argv[1:] if arg.endswith(".jsonl"))
        in_cwd = session.cwd is not None and process.cwd is not None and process.cwd == session.cwd
        if named or in_cwd or holds_open(process.pid, target):
            found.append(process)
    return found


def compaction_payload(session: Session, record: CompactionRecord, *, entry_id: str, timestamp: str) -> str:
    """The exact line (no newline) written for this compaction in this session, as its pi would write it."""
    path = session.active_path()
    parent = path[-1].id if path else None
    line = compaction_line(record, entry_id=entry_id, parent_id=parent, timestamp=timestamp)
    if session.version is not None and session.version >= 3 and is_current_pi(path):
        fields = json.loads(line)
        if fields.get("firstKeptEntryId") is None:
            fields["firstKeptEntryId"] = entry_id  # current pi: "retain none" names the compaction itself
        system = current_system_message(path, timestamp)
        if system is not None:
            fields["systemMessage"] = system
        line = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
    return line


def _check_writable(path: Path, session: Session, record: CompactionRecord) -> WriteBackPlan:
    plan = write_back_plan(session)
    if not plan.possible:
        raise WriteBackRefused(f"{path}: {plan.reason}")
    if session.source_size is None or session.source_sha256 is None:
        raise WriteBackRefused(f"{path}: the session carries no fingerprint of its file; re-import it and try again")
    if record.firstKeptEntryId is not None and record.firstKeptEntryId not in {e.id for e in session.active_path()}:
        raise WriteBackRefused(
            f"{path}: first kept entry {record.firstKeptEntryId} is not on the session's active path"
        )
    return plan


def write_compaction(
    path: str | Path,
    session: Session,
    record: CompactionRecord,
    *,
    backup_dir: str | Path,
    entry_id: str | None = None,
    timestamp: str | None = None,
    proposal_id: str = "",
    on_prepared: OnPrepared = no_record,
) -> tuple[Entry, PendingWrite]:
    """Write one compaction into a pi session file; returns the new entry and the record of what was written.

    Order: plan and checks, the backup (fsynced), the pending record (`on_prepared`),
    then under cutline's lock: read, compare with what `session` was read from, append
    (or rename the migrated file into place) with nothing in between. A failed append
    leaves the file as it was. `session` itself is left unchanged.
    """
    path = Path(path)
    plan = _check_writable(path, session, record)
    data = read_file(path)
    check_unchanged(path, data, session.source_size, session.source_sha256)
    if utf16_encoding(data) is not None:
        raise WriteBackRefused(f"{path} is UTF-16 text, not the UTF-8 pi writes; refusing to write to it")
    taken = {e.id for e in session.entries}
    new_id = entry_id or _new_id(taken)
    if new_id in taken:
        raise WriteBackRefused(f"{path}: entry id {new_id} is already used in this session")
    stamp = timestamp or now_iso()
    text = compaction_payload(session, record, entry_id=new_id, timestamp=stamp)
    saved = make_backup(path, data, Path(backup_dir))
    if plan.how == "migrate-and-append":
        payload = (text + "\n").encode("utf-8")
        new = ("\n".join(migrated_lines(session)) + "\n").encode("utf-8") + payload
        pending = pending_for(
            proposal_id=proposal_id,
            session_id=session.id,
            path=path,
            how=plan.how,
            entry_id=new_id,
            before=data,
            payload=payload,
            after=new,
            backup_path=saved,
            written_ids=[new_id],
        )
        replace_checked(path, data, pending, new, on_prepared)
        line_number = new.count(b"\n")
    else:
        payload = (text + session.newline).encode("utf-8")
        pending = pending_for(
            proposal_id=proposal_id,
            session_id=session.id,
            path=path,
            how=plan.how,
            entry_id=new_id,
            before=data,
            payload=payload,
            after=None,
            backup_path=saved,
            written_ids=[new_id],
        )
        append_checked(path, data, pending, payload, on_prepared)
        line_number = data.count(b"\n") + 1
    compaction = CompactionRecord.model_validate({k: v for k, v in json.loads(text).items() if k not in _ENTRY_KEYS})
    entry = Entry(
        id=new_id,
        parentId=session.active_path()[-1].id if session.entries else None,
        type="compaction",
        timestamp=stamp,
        sourceType="compaction",
        compaction=compaction,
        line=line_number,
        raw_line=text,
    )
    return entry, pending


_ENTRY_KEYS = frozenset({"type", "id", "parentId", "timestamp"})


def append_compaction(
    path: str | Path,
    session: Session,
    record: CompactionRecord,
    *,
    backup_dir: str | Path,
    entry_id: str | None = None,
    timestamp: str | None = None,
) -> Entry:
    """Append one compaction entry to a pi session file, exactly as pi's `appendCompaction` writes it (no store)."""
    entry, _ = write_compaction(path, session, record, backup_dir=backup_dir, entry_id=entry_id, timestamp=timestamp)
    return entry


def _new_id(taken: set[str]) -> str:
    """A fresh 8-hex id, as pi's generateId makes them."""
    for _ in range(100):
        candidate = secrets.token_hex(4)
        if candidate not in taken:
            return candidate
    return secrets.token_hex(16)


def _records(data: bytes) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    for raw in data.split(b"\n"):
        try:
            value = json.loads(raw)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def branch_back_line(entry_id: str, timestamp: str | None = None) -> BranchLine:
    """A maker of the line that sends pi back to before compaction `entry_id` (see `BranchLine`)."""
    return BranchLine(entry_id, timestamp)


class BranchLine:
    """pi's /tree move as a line: an empty `branch_summary` whose parent is the leaf the compaction was appended to.

    pi takes the file's last entry as its leaf and sends nothing for an empty branch
    summary, so on resume the context is the one from before the compaction; what the
    agent wrote after the compaction stays on the other branch.
    """

    def __init__(self, entry_id: str, timestamp: str | None) -> None:
        self.entry_id = entry_id
        self.timestamp = timestamp

    def __call__(self, data: bytes) -> bytes:
        records = _records(data)
        ours = next((r for r in records if r.get("id") == self.entry_id and r.get("type") == "compaction"), None)
        if ours is None:
            raise WriteBackRefused(f"compaction {self.entry_id} is no longer in the file; nothing to branch from")
        ids = {str(r.get("id")) for r in records if r.get("type") != "session"}
        leaf = next((str(r.get("id")) for r in reversed(records) if r.get("type") != "session"), None)
        line = {
            "type": "branch_summary",
            "id": _new_id(ids),
            "parentId": ours.get("parentId"),
            "timestamp": self.timestamp or now_iso(),
            "fromId": leaf,
            "summary": "",
        }
        newline = b"\r\n" if data.endswith(b"\r\n") else b"\n"
        return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + newline


def undo_compaction(
    pending: PendingWrite, *, backup_dir: Path, from_backup: bool = False, branch: bool = False
) -> UndoResult:
    """Take back a compaction cutline wrote into a pi file (exact bytes, else a branch or the backup on request)."""
    maker = branch_back_line(pending.entry_id) if branch else None
    return undo_written(
        pending, backup_dir=backup_dir, from_backup=from_backup, branch_line=maker, can_branch=True, agent="pi"
    )
