"""File operations every write-back is made of: lock, read, append-or-restore, backups that keep the file's mode.

Why one module: each agent's writer needs the same guarantees (a failed append leaves
the file exactly as it was, a backup is as private as its source, nothing half-written
survives), so they are written once and proven once.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from cutline.core.errors import WriteBackRefused

TMP_SUFFIX = ".tmp"


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of some bytes, as hex (how fingerprints are stored)."""
    return hashlib.sha256(data).hexdigest()


def read_all(fd: int) -> bytes:
    """Every byte of the open file, read from its start (appends ignore the read position).

    Read into one buffer sized from the file's size (`FileIO.readall`): a list of chunks and
    their join held the file twice, 224 MB at the peak of an undo of a 112 MB session file.
    """
    os.lseek(fd, 0, os.SEEK_SET)
    with os.fdopen(os.dup(fd), "rb", buffering=0) as whole:
        return whole.readall()


def read_range(fd: int, start: int, size: int) -> bytes:
    """`size` bytes from `start` (fewer at the end of the file)."""
    chunks: list[bytes] = []
    while size > 0:
        chunk = os.pread(fd, min(size, 1 << 20), start)
        if not chunk:
            break
        chunks.append(chunk)
        start += len(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def lock(fd: int, *, wait: bool = True) -> bool:
    """An advisory exclusive lock (flock) held until the descriptor is closed; False when busy and not waiting.

    It orders cutline processes among themselves (a write-back and another one's recovery);
    agents that take no lock are handled by the checks around the append.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    return True


@contextlib.contextmanager
def opened_locked(path: Path, flags: int = os.O_RDWR | os.O_APPEND) -> Iterator[int]:
    """The file open for appending under cutline's lock; refuses (one line) when it cannot be opened."""
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise WriteBackRefused(f"{path}: cannot open for writing ({exc.strerror or exc})") from None
    try:
        lock(fd)
        yield fd
    finally:
        os.close(fd)


def append_or_restore(fd: int, payload: bytes, size_before: int, path: Path) -> int:
    """Append `payload` with one write and fsync; returns the offset it landed at.

    A short write (disk full) or a failed write is taken back: the file is cut back
    to `size_before` when nothing else was appended after the partial bytes, so a
    failed append leaves the file exactly as it was. The offset can be past
    `size_before` when another process appended in between (the caller checks).
    """
    try:
        written = os.write(fd, payload)
    except OSError as exc:
        _take_back(fd, size_before, path)
        raise WriteBackRefused(
            f"{path}: the append failed ({exc.strerror or exc}); the file was left as it was"
        ) from None
    end = os.fstat(fd).st_size
    if written != len(payload):
        _take_back(fd, size_before, path, expected_end=size_before + written)
        raise WriteBackRefused(
            f"{path}: only {written} of {len(payload)} bytes could be appended (disk full?); the file was left as it was"
        )
    os.fsync(fd)
    return end - len(payload)


def _take_back(fd: int, size_before: int, path: Path, expected_end: int | None = None) -> None:
    """Cut the file back to `size_before` when it ends where our partial write ended (or was not extended)."""
    end = os.fstat(fd).st_size
    if end == size_before:
        return
    if expected_end is not None and end != expected_end:
        raise WriteBackRefused(
            f"{path}: a partial append could not be taken back (another process appended after it); "
            "cutline will repair it the next time it starts"
        )
    os.ftruncate(fd, size_before)
    with contextlib.suppress(OSError):
        os.fsync(fd)


def truncate_to(fd: int, size: int) -> None:
    """Cut the open file back to `size` bytes and make it durable."""
    os.ftruncate(fd, size)
    os.fsync(fd)


def fsync_dir(directory: Path) -> None:
    """Make a rename or a new file in `directory` durable (best effort where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def file_mode(path: Path) -> int:
    """The permission bits of a file (0o600 when it cannot be read)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o600


def write_new_file(target: Path, data: bytes, mode: int) -> Path:
    """Write `data` to `target` through a temporary file created with `mode`, fsynced, then renamed into place.

    The temporary file never has wider permissions than `mode`, and a crash leaves
    at most a `*.tmp` file that `clean_leftovers` removes.
    """
    temporary = target.with_name(target.name + TMP_SUFFIX)
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # tells `clean_leftovers` in another process that it is being written
        os.fchmod(fd, mode)  # the umask may have narrowed it further; keep exactly the source's bits
        view = memoryview(data)
        while view:
            done = os.write(fd, view)
            if done <= 0:  # pragma: no cover - write never returns 0 for a regular file
                raise OSError(errno.EIO, "write returned nothing")
            view = view[done:]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    os.close(fd)
    os.replace(temporary, target)
    fsync_dir(target.parent)
    return target


def private_dir(path: Path) -> Path:
    """A directory only its owner can enter (created 0700; an existing one narrowed to it)."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    with contextlib.suppress(OSError):
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            path.chmod(0o700)
    return path


def clean_leftovers(directory: Path) -> list[Path]:
    """Remove `*.tmp` files a crash left in `directory`; returns what was removed.

    A temporary file another process is writing this moment is left alone: `write_new_file`
    holds a lock on it, which a killed writer's kernel releases.
    """
    removed: list[Path] = []
    try:
        names = list(directory.iterdir())
    except OSError:
        return removed
    for item in names:
        if item.name.endswith(TMP_SUFFIX) and item.is_file() and not _being_written(item):
            with contextlib.suppress(OSError):
                item.unlink()
                removed.append(item)
    return removed


def _being_written(path: Path) -> bool:
    """Whether another process holds `write_new_file`'s lock on this file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def backup_name(path: Path, data: bytes) -> str:
    """The backup file name for `path` holding `data`: stem, a hash of the path and of the content."""
    where = hashlib.sha256(str(path.resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:8]
    suffix = path.suffix or ".bak"
    return f"{path.stem}-{where}.{len(data)}.{sha256_hex(data)[:16]}{suffix}"


def backup(path: Path, data: bytes, backup_dir: Path) -> Path:
    """A durable copy of `data` (the file's bytes) in a private `backup_dir`, with the source file's mode.

    An existing backup of the same bytes is reused; leftover temporary files are
    cleaned first.
    """
    private_dir(backup_dir)
    clean_leftovers(backup_dir)
    target = backup_dir / backup_name(path, data)
    mode = file_mode(path)
    if target.exists() and target.stat().st_size == len(data) and sha256_hex(target.read_bytes()) == sha256_hex(data):
        with contextlib.suppress(OSError):
            target.chmod(mode)
        return target
    return write_new_file(target, data, mode)
