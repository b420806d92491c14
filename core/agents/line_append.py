"""Appending a compaction's lines to an agent's JSONL session, and taking them back: Claude Code and Codex.

Why one module: both formats are append-only files where a compaction is a few more
lines, so the safe order is the same: under cutline's lock read the file and check it
is byte for byte what the session was read from, back it up (private, the source's
mode), append the payload with one write and fsync, and take a partial write back.
Undo finds the payload where it was written: when it still ends the file, cutting the
file there gives back the exact former bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from cutline.core.errors import WriteBackRefused
from cutline.core.models import Session


class AgentWroteSince(WriteBackRefused):
    """The agent added lines after the compaction cutline wrote: the exact former file is only in the backup."""


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of some bytes, as hex (the session's fingerprint)."""
    return hashlib.sha256(data).hexdigest()


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[int]:
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    except OSError as exc:
        raise WriteBackRefused(f"{path}: cannot open for appending ({exc.strerror or exc})") from None
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def check_unchanged(path: Path, session: Session, data: bytes) -> None:
    """Refuse unless `data` is exactly the file `session` was read from."""
    if session.source_size is None or session.source_sha256 is None:
        raise WriteBackRefused(f"{path}: the session carries no fingerprint of its file; re-import it and try again")
    if len(data) != session.source_size or sha256_hex(data) != session.source_sha256:
        raise WriteBackRefused(
            f"{path} changed since it was read ({session.source_size} -> {len(data)} bytes): the agent wrote to it; "
            "re-import it and make a new proposal"
        )
    if data and not data.endswith(b"\n"):
        raise WriteBackRefused(f"{path} does not end with a newline (its last line is incomplete); refusing to append")


def backup_path(path: Path, data: bytes, backup_dir: Path) -> Path:
    """Where the backup of `path` holding `data` is kept: stem, a hash of the path and of the content."""
    where = sha256_hex(str(path.resolve()).encode("utf-8", "surrogatepass"))[:8]
    return backup_dir / f"{path.stem}-{where}.{len(data)}.{sha256_hex(data)[:16]}{path.suffix or '.bak'}"


def _mode(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o600


def write_backup(path: Path, data: bytes, backup_dir: Path) -> Path:
    """A durable copy of `data` in a private `backup_dir`, as private as the source file (reused when it exists)."""
    backup_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    with contextlib.suppress(OSError):
        backup_dir.chmod(0o700)
    target = backup_path(path, data, backup_dir)
    if target.is_file() and sha256_hex(target.read_bytes()) == sha256_hex(data):
        return target
    temporary = target.with_name(target.name + ".tmp")
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()
    mode = _mode(path)
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temporary, target)
    return target


def append_payload(path: Path, session: Session, payload: bytes, backup_dir: Path) -> tuple[int, Path]:
    """Append `payload` (whole lines) to a session file that must be unchanged; returns its offset and the backup.

    Under cutline's lock: read, check, back up, one `write`, fsync. A short or failed
    write is cut back, so the file is the original or the original plus the payload.
    """
    with _locked(path) as fd:
        data = _read_all(fd)
        check_unchanged(path, session, data)
        try:
            saved = write_backup(path, data, backup_dir)
        except OSError as exc:
            raise WriteBackRefused(
                f"{path}: cannot make a backup ({exc.strerror or exc}); nothing was written"
            ) from None
        if os.fstat(fd).st_size != len(data):
            raise WriteBackRefused(f"{path} grew while cutline was backing it up; nothing was written")
        try:
            written = os.write(fd, payload)
        except OSError as exc:
            os.ftruncate(fd, len(data))
            raise WriteBackRefused(
                f"{path}: the append failed ({exc.strerror or exc}); the file was left as it was"
            ) from None
        if written != len(payload):
            os.ftruncate(fd, len(data))
            os.fsync(fd)
            raise WriteBackRefused(
                f"{path}: only {written} of {len(payload)} bytes could be appended (disk full?); the file was left as it was"
            )
        os.fsync(fd)
        _withdraw_if_overtaken(fd, path, data, payload)
        return len(data), saved


def _withdraw_if_overtaken(fd: int, path: Path, data: bytes, payload: bytes) -> None:
    """Another process appended between the check and the write: take the payload back while it ends the file."""
    if os.pread(fd, len(payload), len(data)) == payload:
        return
    grown = _read_all(fd)
    at = grown.rfind(payload)
    if at >= 0 and at + len(payload) == len(grown):
        os.ftruncate(fd, at)
        os.fsync(fd)
        raise WriteBackRefused(
            f"{path}: the agent wrote to the session at the same moment; cutline took its lines back — nothing was "
            "written (let the agent finish, re-import and make a new proposal)"
        )
    raise WriteBackRefused(
        f"{path}: the agent kept writing while cutline appended; the compaction is not where the agent continues — "
        "undo it and make a new proposal when the agent has finished"
    )


def undo_payload(path: Path, payload: bytes, backup_dir: Path) -> str:
    """Take back an appended `payload`: cut the file where it began when nothing follows it.

    When the agent wrote after it, refuse (AgentWroteSince) naming the backup of the
    file as it was before the write-back, which `restore_backup` puts back.
    """
    with _locked(path) as fd:
        data = _read_all(fd)
        at = data.rfind(payload)
        if at < 0 or (at > 0 and data[at - 1 : at] != b"\n"):
            raise WriteBackRefused(f"{path} does not hold cutline's compaction any more; nothing to undo")
        before = data[:at]
        if at + len(payload) == len(data):
            os.ftruncate(fd, at)
            os.fsync(fd)
            return f"{path} is byte for byte as it was before the write-back ({at} bytes)"
        saved = backup_path(path, before, backup_dir)
        where = f"the backup {saved}" if saved.is_file() else "no backup (it is missing)"
        raise AgentWroteSince(
            f"the agent wrote {len(data) - at - len(payload)} bytes to {path} after cutline's compaction, so it "
            f"cannot be taken back exactly; the file as it was before the write-back is {where} "
            "(undo --from-backup restores it and keeps the current file beside it)"
        )


def restore_backup(path: Path, payload: bytes, backup_dir: Path) -> str:
    """Put back the file as it was before the write-back, keeping the current file in the backup directory."""
    with _locked(path) as fd:
        data = _read_all(fd)
        at = data.rfind(payload)
        if at < 0:
            raise WriteBackRefused(f"{path} does not hold cutline's compaction any more; nothing to undo")
        saved = backup_path(path, data[:at], backup_dir)
        try:
            original = saved.read_bytes()
        except OSError as exc:
            raise WriteBackRefused(f"{path}: the backup {saved} cannot be read ({exc.strerror or exc})") from None
        if original != data[:at]:
            raise WriteBackRefused(f"{path}: the backup {saved} is not the file as it was; refusing")
        kept = write_backup(path, data, backup_dir)
        os.ftruncate(fd, len(original))
        os.fsync(fd)
        return f"{path} is as it was before the write-back; what the agent wrote since is kept in {kept}"
