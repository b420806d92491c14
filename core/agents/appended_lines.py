"""Write-back for agents whose compaction is whole new lines appended to their JSONL (Claude Code, Codex).

Why shared: both take the same safe order from jsonl_writeback (fingerprint check,
backup, pending record, check and append under cutline's lock, a racing append
withdrawn), and both are found running the same way; only their lines differ.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from cutline.core.agents.jsonl_writeback import (
    append_checked,
    check_unchanged,
    make_backup,
    pending_for,
    read_file,
)
from cutline.core.agents.processes import RunningProcess, holds_open, processes
from cutline.core.agents.writeback import OnPrepared, PendingWrite
from cutline.core.errors import WriteBackRefused
from cutline.core.models import Session


def append_lines(
    path: Path,
    session: Session,
    payload: bytes,
    *,
    backup_dir: Path,
    entry_id: str,
    proposal_id: str,
    on_prepared: OnPrepared,
    written_ids: list[str],
) -> tuple[PendingWrite, int]:
    """Append `payload` (whole lines) to a session that must be byte for byte as read; the record and the first new line.

    `written_ids` are the ids of the records `payload` holds (kept in the record, to find them later).

    Order: read and compare, back up, record the pending write (`on_prepared`), then
    check and append under cutline's lock with nothing in between.
    """
    data = read_file(path)
    check_unchanged(path, data, session.source_size, session.source_sha256)
    if data and not data.endswith(b"\n"):
        raise WriteBackRefused(f"{path} does not end with a newline (its last line is incomplete); refusing to append")
    saved = make_backup(path, data, backup_dir)
    pending = pending_for(
        proposal_id=proposal_id,
        session_id=session.id,
        path=path,
        how="append",
        entry_id=entry_id,
        before=data,
        payload=payload,
        after=None,
        backup_path=saved,
        written_ids=written_ids,
    )
    append_checked(path, data, pending, payload, on_prepared)
    return pending, data.count(b"\n") + 1


def running_program(session: Session, is_program: Callable[[list[str]], bool], session_key: str) -> str | None:
    """A running agent process that may write to this session: holding the file, naming its id, or in its directory."""
    if not session.source_path:
        return None
    target = Path(session.source_path)
    found: list[RunningProcess] = []
    for process in processes(is_program):
        named = bool(session_key) and any(session_key in arg for arg in process.argv[1:])
        in_cwd = session.cwd is not None and process.cwd is not None and process.cwd == session.cwd
        if named or in_cwd or holds_open(process.pid, target):
            found.append(process)
    return found[0].describe() if found else None


def program_named(*names: str) -> Callable[[list[str]], bool]:
    """Matches a command line whose program (or the script node runs) is one of `names`."""

    def match(argv: list[str]) -> bool:
        heads = [os.path.basename(argv[0])]
        if heads[0].startswith("node") and len(argv) > 1:
            heads.append(os.path.basename(argv[1]))
        return any(head in names or head.startswith(tuple(f"{n}-" for n in names)) for head in heads)

    return match
