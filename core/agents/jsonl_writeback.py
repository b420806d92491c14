"""Write-back for agents whose sessions are append-only JSONL files: append, rewrite, recover, undo.

Why shared: pi, Claude Code and Codex all keep a session as lines appended to one
file; only the line(s) they take differ. The order here is what makes it safe:
backup first, the pending record stored, then under cutline's lock the file is read,
checked and appended to with nothing in between; a failed append is taken back, and an
interrupted one is told apart from the file alone on the next start.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from cutline.core.agents.safe_write import (
    append_or_restore,
    backup,
    file_mode,
    lock,
    opened_locked,
    read_all,
    read_range,
    sha256_hex,
    truncate_to,
    write_new_file,
)
from cutline.core.agents.writeback import (
    OnPrepared,
    PendingWrite,
    Recovery,
    UndoNeedsChoice,
    UndoResult,
    WriteBackHow,
)
from cutline.core.errors import WriteBackRefused


def check_unchanged(path: Path, data: bytes, size: int | None, sha: str | None) -> None:
    """Refuse unless `data` is byte for byte the file the session was read from."""
    if size is None or sha is None:
        raise WriteBackRefused(f"{path}: the session carries no fingerprint of its file; re-import it and try again")
    if len(data) != size:
        raise WriteBackRefused(
            f"{path} changed since it was read (size {size} -> {len(data)} bytes); re-import it and try again"
        )
    if sha256_hex(data) != sha:
        raise WriteBackRefused(
            f"{path} changed since it was read (same size, different content); re-import it and try again"
        )


def read_file(path: Path) -> bytes:
    """The file's bytes, or a one-line refusal."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise WriteBackRefused(f"{path}: cannot read it ({exc.strerror or exc})") from None


def pending_for(
    *,
    proposal_id: str,
    session_id: str,
    path: Path,
    how: WriteBackHow,
    entry_id: str,
    before: bytes,
    payload: bytes,
    after: bytes | None,
    backup_path: Path | None,
    written_ids: list[str],
) -> PendingWrite:
    """The pending record of a write-back that turns `before` into `after` (default: `before` + `payload`).

    `payload` ends the new file; `written_ids` are the ids of the records it holds, in order.
    """
    if after is None:
        # `before + payload` told without making it: a second copy of a 100 MB file at the write-back's peak
        digest = hashlib.sha256(before)
        digest.update(payload)
        size_after, sha_after, first_line = len(before) + len(payload), digest.hexdigest(), before.count(b"\n") + 1
    else:
        size_after, sha_after = len(after), sha256_hex(after)
        first_line = after[: len(after) - len(payload)].count(b"\n") + 1
    return PendingWrite(
        proposal_id=proposal_id,
        session_id=session_id,
        path=str(path),
        how=how,
        entry_id=entry_id,
        size_before=len(before),
        sha_before=sha256_hex(before),
        payload_size=len(payload),
        payload_sha=sha256_hex(payload),
        size_after=size_after,
        sha_after=sha_after,
        backup_path=str(backup_path) if backup_path is not None else None,
        payload=payload.decode("utf-8", "surrogateescape"),
        written_ids=written_ids,
        first_line=first_line,
    )


def append_checked(path: Path, before: bytes, pending: PendingWrite, payload: bytes, on_prepared: OnPrepared) -> None:
    """Append `payload` to a file that must still hold exactly `before`: record, lock, check, append, verify.

    The pending record is stored first (so a kill at any later moment is recoverable);
    then, under cutline's lock, the file is read and compared and the line appended with
    nothing in between but a size check. If another process's line landed first, ours is
    taken back when it is still the file's end, and the write-back is refused.
    """
    on_prepared(pending)
    with opened_locked(path) as fd:
        if not holds_exactly(fd, before):
            raise WriteBackRefused(
                f"{path} changed while cutline was preparing the write-back (the agent is writing to it); "
                "nothing was written — let the agent finish, re-import and make a new proposal"
            )
        if os.fstat(fd).st_size != len(before):
            raise WriteBackRefused(f"{path} grew while cutline was checking it; nothing was written")
        offset = append_or_restore(fd, payload, len(before), path)
        if offset != len(before) or read_range(fd, offset, len(payload)) != payload:
            _withdraw_after_race(fd, path, offset, payload)


def holds_exactly(fd: int, data: bytes) -> bool:
    """Whether the open file holds exactly `data` (`read_all(fd) == data`), read and compared a MiB at a time.

    Why: the whole file read again beside `data` (and its chunks beside their join) was the
    write-back's peak, three copies of a 100 MB session file.
    """
    view = memoryview(data)
    at = 0
    while True:
        chunk = os.pread(fd, 1 << 20, at)
        if not chunk:
            return at == len(data)
        if view[at : at + len(chunk)] != chunk:
            return False
        at += len(chunk)


def _withdraw_after_race(fd: int, path: Path, offset: int, payload: bytes) -> None:
    """Another process appended between our check and our write: take our line back if it is still the end."""
    end = os.fstat(fd).st_size
    if end == offset + len(payload) and read_range(fd, offset, len(payload)) == payload:
        truncate_to(fd, offset)
        raise WriteBackRefused(
            f"{path}: the agent wrote to the session at the same moment; cutline took its line back — "
            "nothing was written (let the agent finish, then make a new proposal)"
        )
    raise WriteBackRefused(
        f"{path}: the agent kept writing while cutline appended; the compaction ended up on a side branch "
        "that the agent does not follow — make a new proposal when the agent has finished"
    )


def replace_checked(path: Path, before: bytes, pending: PendingWrite, new: bytes, on_prepared: OnPrepared) -> None:
    """Replace a file that must still hold exactly `before` by `new` in one rename (same mode), after recording it."""
    on_prepared(pending)
    with opened_locked(path, os.O_RDONLY) as fd:
        data = read_all(fd)
        if data != before:
            raise WriteBackRefused(f"{path} changed while cutline was preparing the write-back; nothing was written")
        write_new_file(path, new, file_mode(path))
        grown = os.fstat(fd).st_size  # the old file: did anyone append to it in the meantime?
        if grown != len(before):
            write_new_file(path, read_range(fd, 0, grown), file_mode(path))
            raise WriteBackRefused(
                f"{path}: the agent wrote to the session during the rewrite; its lines were kept and nothing was written"
            )


def make_backup(path: Path, data: bytes, backup_dir: Path) -> Path:
    """A backup of the bytes about to be changed (private directory, the source file's mode)."""
    try:
        return backup(path, data, backup_dir)
    except OSError as exc:
        raise WriteBackRefused(
            f"{path}: cannot make a backup in {backup_dir} ({exc.strerror or exc}); nothing was written"
        ) from None


# -- recovery -----------------------------------------------------------------


def recover(pending: PendingWrite, is_our_line: Callable[[bytes], bool] | None = None) -> Recovery:
    """Tell what became of an interrupted write-back from the file alone, repairing a half-written line.

    Outcomes: the file as it was (not written), the file with our complete line or
    rewrite (written), a partial line removed (repaired), or a file changed in a way
    that says nothing about us (unknown).
    """
    path = Path(pending.path)
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    except OSError as exc:
        return Recovery(state="unknown", message=f"{path}: cannot open it ({exc.strerror or exc})")
    try:
        if not lock(fd, wait=False):
            return Recovery(state="unknown", message=f"{path} is being written by another cutline right now")
        data = read_all(fd)
        payload = pending.payload.encode("utf-8", "surrogateescape")
        if pending.how == "migrate-and-append":
            return _recover_rewrite(pending, data, payload)
        return _recover_append(fd, path, pending, data, payload, is_our_line)
    finally:
        os.close(fd)


def _recover_rewrite(pending: PendingWrite, data: bytes, payload: bytes) -> Recovery:
    digest = sha256_hex(data)
    if digest == pending.sha_after or (payload and _has_line(data, payload)):
        return Recovery(state="written", message=f"{pending.path}: the rewrite with the compaction had completed")
    if digest == pending.sha_before:
        return Recovery(state="not-written", message=f"{pending.path}: the rewrite had not happened; nothing changed")
    return Recovery(state="unknown", message=f"{pending.path} changed since; cutline's write-back is not in it")


def _has_line(data: bytes, payload: bytes) -> bool:
    line = payload.rstrip(b"\r\n")
    return any(candidate.rstrip(b"\r") == line for candidate in data.split(b"\n"))


def _recover_append(
    fd: int,
    path: Path,
    pending: PendingWrite,
    data: bytes,
    payload: bytes,
    is_our_line: Callable[[bytes], bool] | None,
) -> Recovery:
    start = pending.size_before
    if len(data) < start or sha256_hex(data[:start]) != pending.sha_before:
        if _has_line(data, payload) or (is_our_line is not None and any(is_our_line(x) for x in data.split(b"\n"))):
            return Recovery(state="written", message=f"{path}: cutline's compaction line is in the file")
        return Recovery(state="unknown", message=f"{path} was rewritten since; cutline's write-back is not in it")
    tail = data[start:]
    if not tail:
        return Recovery(state="not-written", message=f"{path}: the write-back had not begun; nothing changed")
    if tail.startswith(payload):
        return Recovery(state="written", message=f"{path}: the compaction line had been written completely")
    common = _common_prefix(tail, payload)
    if common == len(tail):
        truncate_to(fd, start)
        return Recovery(
            state="repaired", message=f"{path}: a half-written compaction line ({common} bytes) was removed"
        )
    if common == 0:
        if _has_line(data, payload):
            return Recovery(state="written", message=f"{path}: cutline's compaction line is in the file")
        return Recovery(state="not-written", message=f"{path}: only the agent's lines follow; nothing of cutline's")
    rest = tail[common:]
    if rest.startswith(b"\n"):  # pi repairs a last line without newline by adding one on load
        rest = rest[1:]
    write_new_file(path, data[:start] + rest, file_mode(path))
    return Recovery(
        state="repaired",
        message=f"{path}: a half-written compaction line ({common} bytes) was cut out; the agent's later lines were kept",
    )


def _common_prefix(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


# -- undo ---------------------------------------------------------------------


def undo_written(
    pending: PendingWrite,
    *,
    backup_dir: Path,
    from_backup: bool = False,
    branch_line: Callable[[bytes], bytes] | None = None,
    can_branch: bool = False,
    agent: str = "the agent",
) -> UndoResult:
    """Take back a finished write-back: the exact bytes when nothing followed it, else a branch or the backup on request.

    `can_branch`: the agent's sessions can continue from before the compaction (pi's tree); only then
    does a refusal offer `--branch`.
    """
    path = Path(pending.path)
    with opened_locked(path) as fd:
        data = read_all(fd)
        digest = sha256_hex(data)
        if digest == pending.sha_before:
            raise WriteBackRefused(f"{path} is already as it was before the write-back")
        if digest == pending.sha_after and not from_backup:
            return _exact(fd, path, pending, backup_dir)
        grew = len(data) > pending.size_after and sha256_hex(data[: pending.size_after]) == pending.sha_after
        if from_backup:
            return _restore_backup(path, pending, data, backup_dir)
        if grew and branch_line is not None:
            line = branch_line(data)
            end = append_or_restore(fd, line, len(data), path) + len(line)
            return UndoResult(
                how="branched",
                message=f"{path}: {agent} continues from before the compaction (a new branch; its later lines stay on the old one)",
                size_after=end,
                sha_after=sha256_hex(data + line),
            )
        added = len(data) - pending.size_after
        branchable = grew and can_branch
        offers = "--branch (continue from before the compaction) or --from-backup" if branchable else "--from-backup"
        what = f"{agent} wrote {added} bytes after the compaction" if grew else f"{path} was changed since"
        raise UndoNeedsChoice(
            f"{what}; the exact file cannot be restored — undo with {offers}",
            ("branch", "from_backup") if branchable else ("from_backup",),
        )


def _exact(fd: int, path: Path, pending: PendingWrite, backup_dir: Path) -> UndoResult:
    if pending.how == "append":
        truncate_to(fd, pending.size_before)
        return UndoResult(
            how="exact",
            message=f"{path} is byte for byte as it was before the write-back",
            size_after=pending.size_before,
            sha_after=pending.sha_before,
        )
    return _restore_backup(path, pending, None, backup_dir)


def _restore_backup(path: Path, pending: PendingWrite, current: bytes | None, backup_dir: Path) -> UndoResult:
    if not pending.backup_path:
        raise WriteBackRefused(f"{path}: no backup was recorded for this write-back")
    try:
        original = Path(pending.backup_path).read_bytes()
    except OSError as exc:
        raise WriteBackRefused(
            f"{path}: the backup {pending.backup_path} cannot be read ({exc.strerror or exc})"
        ) from None
    if sha256_hex(original) != pending.sha_before:
        raise WriteBackRefused(f"{path}: the backup {pending.backup_path} is not the file as it was; refusing")
    note = ""
    if current is not None and sha256_hex(current) != pending.sha_after:
        saved = make_backup(path, current, backup_dir)
        note = f" (the file as it was just now is kept in {saved})"
    write_new_file(path, original, file_mode(path))
    return UndoResult(
        how="restored-backup" if current is not None else "exact",
        message=f"{path} is byte for byte as it was before the write-back{note}",
        size_after=len(original),
        sha_after=pending.sha_before,
    )
