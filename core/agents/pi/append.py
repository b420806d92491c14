"""A compaction appended to a pi session file, the one write-back cutline makes: checked, backed up, locked, appended.

The old bytes are never rewritten.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path

from cutline.core.agents.entries import now_iso
from cutline.core.agents.jsonl import utf16_encoding
from cutline.core.agents.pi.writer import compaction_line
from cutline.core.errors import WriteBackRefused
from cutline.core.models import CompactionRecord, Entry, Session


def append_compaction(
    path: str | Path,
    session: Session,
    record: CompactionRecord,
    *,
    backup_dir: str | Path,
    entry_id: str | None = None,
    timestamp: str | None = None,
) -> Entry:
    """Append one compaction entry to a pi session file, exactly as pi's `appendCompaction` writes it.

    Refuses (WriteBackRefused) unless the file is byte-for-byte what `session` was read
    from; backs the file up first; writes the whole line with one `os.write` in append
    mode and fsyncs. The old bytes are never rewritten. Returns the new entry (the
    session's new leaf); `session` itself is left unchanged.
    """
    path = Path(path)
    _check_writable_session(path, session, record)
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    except OSError as exc:
        raise WriteBackRefused(f"{path}: cannot open for appending ({exc.strerror or exc})") from None
    try:
        _lock(fd)
        data = _read_all(fd)
        _check_unchanged(path, session, data)
        if utf16_encoding(data) is not None:
            raise WriteBackRefused(f"{path} is UTF-16 text, not the UTF-8 pi writes; refusing to append to it")
        if data and not data.endswith(b"\n"):
            raise WriteBackRefused(
                f"{path} does not end with a newline (its last line is incomplete); refusing to append"
            )
        taken = {e.id for e in session.entries}
        new_id = entry_id or _new_id(taken)
        if new_id in taken:
            raise WriteBackRefused(f"{path}: entry id {new_id} is already used in this session")
        _backup(path, data, Path(backup_dir))
        stamp = timestamp or now_iso()
        text = compaction_line(record, entry_id=new_id, parent_id=session.leaf_id, timestamp=stamp)
        payload = (text + session.newline).encode("utf-8")
        written = os.write(fd, payload)
        if written != len(payload):
            raise WriteBackRefused(
                f"{path}: only {written} of {len(payload)} bytes were appended; restore it from the backup in {backup_dir}"
            )
        os.fsync(fd)
    finally:
        os.close(fd)
    return Entry(
        id=new_id,
        parentId=session.leaf_id,
        type="compaction",
        timestamp=stamp,
        sourceType="compaction",
        compaction=record.model_copy(deep=True),
        line=data.count(b"\n") + 1,
        raw_line=text,
    )


def _check_writable_session(path: Path, session: Session, record: CompactionRecord) -> None:
    if session.format != "pi":
        raise WriteBackRefused(
            f"{path}: only pi / OpenClaw session files take a compaction (this one is {session.format})"
        )
    if not session.header_line:
        raise WriteBackRefused(f"{path} has no session header; pi would discard it, so cutline will not append to it")
    if session.version is None or session.version < 2:
        raise WriteBackRefused(
            f"{path} is a pi v1 session (no entry ids); open it in pi once so pi migrates it, then re-import it"
        )
    if session.source_size is None or session.source_sha256 is None:
        raise WriteBackRefused(f"{path}: the session carries no fingerprint of its file; re-import it and try again")
    if record.firstKeptEntryId is not None and record.firstKeptEntryId not in {e.id for e in session.active_path()}:
        raise WriteBackRefused(
            f"{path}: first kept entry {record.firstKeptEntryId} is not on the session's active path"
        )


def _read_all(fd: int) -> bytes:
    """Every byte of the open file, read from its start (appends ignore the read position)."""
    os.lseek(fd, 0, os.SEEK_SET)
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _check_unchanged(path: Path, session: Session, data: bytes) -> None:
    if len(data) != session.source_size:
        raise WriteBackRefused(
            f"{path} changed since it was read (size {session.source_size} -> {len(data)} bytes); re-import it and try again"
        )
    if hashlib.sha256(data).hexdigest() != session.source_sha256:
        raise WriteBackRefused(
            f"{path} changed since it was read (same size, different content); re-import it and try again"
        )


def _lock(fd: int) -> None:
    """An advisory exclusive lock for the duration of the append (pi itself does not lock)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        return
    fcntl.flock(fd, fcntl.LOCK_EX)


def _new_id(taken: set[str]) -> str:
    """A fresh 8-hex id, as pi's generateId makes them."""
    for _ in range(100):
        candidate = secrets.token_hex(4)
        if candidate not in taken:
            return candidate
    return secrets.token_hex(16)


def backup_name(path: Path, data: bytes) -> str:
    """The backup file name for `path` holding `data`: stem, a hash of the path and of the content."""
    where = hashlib.sha256(str(path.resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{path.stem}-{where}.{len(data)}.{hashlib.sha256(data).hexdigest()[:16]}.jsonl"


def _backup(path: Path, data: bytes, backup_dir: Path) -> Path | None:
    """Copy the file's bytes into backup_dir unless an earlier backup already holds a prefix of them.

    Writes only append, so a backup whose bytes start this file is still the original:
    later appends need no second copy.
    """
    backup_dir.mkdir(parents=True, exist_ok=True)
    name = backup_name(path, data)
    prefix = name[: name.index(".", len(path.stem) + 1)] + "."
    for existing in backup_dir.iterdir():
        if not existing.name.startswith(prefix) or not existing.name.endswith(".jsonl"):
            continue
        parts = existing.name[len(prefix) :].split(".")
        if len(parts) != 3 or not parts[0].isdigit():
            continue
        size = int(parts[0])
        if size <= len(data) and hashlib.sha256(data[:size]).hexdigest()[:16] == parts[1]:
            return None
    target = backup_dir / name
    temporary = backup_dir / (name + ".tmp")
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, target)
    return target
