"""Naming a session in an agent's SQLite store (`STORE#SESSION_ID`) and telling a store from a JSONL file.

Only the standard library: every command that takes a FILE_OR_SESSION asks these before it
knows whether any agent's reader is needed (the OpenClaw and opencode readers import theirs).
"""

from __future__ import annotations

from pathlib import Path

SQLITE_MAGIC = b"SQLite format 3\x00"


def split_ref(ref: str | Path) -> tuple[Path, str | None]:
    """`STORE#SESSION_ID` as (store path, session id); a ref without `#`, or a file whose name has one, as (path, None)."""
    text = str(ref)
    path = Path(text).expanduser()
    if "#" not in text or path.exists():
        return path, None
    file, _, session = text.rpartition("#")
    return Path(file).expanduser(), session or None


def is_sqlite_file(path: Path) -> bool:
    """Whether the file at `path` starts with SQLite's header."""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def is_store_ref(ref: str | Path) -> bool:
    """Whether `ref` names a SQLite store (or a session in one) rather than a JSONL file."""
    return is_sqlite_file(split_ref(ref)[0])


def session_ref(path: Path, session_id: str) -> str:
    """The name of one session in a store."""
    return f"{path}#{session_id}"
