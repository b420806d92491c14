"""A cheap look at a session file for listing: its first bytes only, never a full parse.

Why: `cutline ls --all` and the desk's sessions screen list every session on the machine;
reading each file whole would make that slow where agents keep thousands of sessions.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, NamedTuple

# how much of a file's start is read to describe it
HEAD_BYTES = 64 * 1024


class SessionPeek(NamedTuple):
    """What a listing shows of one session before it is read: where it is, whose, which version, which project."""

    ref: str  # the file, or STORE#SESSION_ID for a session in an OpenClaw store
    session_id: str | None
    version: str | None
    cwd: str | None
    size: int
    modified: float  # seconds since the epoch


def head_text(path: Path, limit: int = HEAD_BYTES) -> str:
    """The first `limit` bytes of a file as text (bad bytes replaced); empty when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return handle.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return ""


def head_records(text: str) -> list[dict[str, Any]]:
    """The JSON objects among the complete lines of a file's head (others skipped)."""
    out: list[dict[str, Any]] = []
    lines = text.split("\n")
    for line in lines[:-1] if len(lines) > 1 else lines:
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if type(value) is dict:
            out.append(value)
    return out


def string_field(text: str, key: str) -> str | None:
    """The first `"key":"value"` string in a head that may end inside a long line."""
    match = re.search(r'"' + re.escape(key) + r'"\s*:\s*"((?:[^"\\]|\\.)*)"', text)
    if match is None:
        return None
    try:
        value = json.loads(f'"{match.group(1)}"')
    except ValueError:
        return match.group(1)
    return value if isinstance(value, str) else None


def session_header(path: Path) -> dict[str, Any] | None:
    """The session header on a file's first line (`{"type":"session",...}`: pi's, OpenClaw's), or None.

    Why its own reader: an import must know which session it writes before it reads the
    file, and a command which reader will read it (`HEAD_BYTES` of the line at most).
    """
    try:
        with open(path, "rb") as handle:
            value = json.loads(handle.readline(HEAD_BYTES).decode("utf-8"))  # UTF-16 and bad UTF-8: None
    except (OSError, ValueError, RecursionError):
        return None
    return value if type(value) is dict and value.get("type") == "session" else None


def file_peek(path: Path, session_id: str | None, version: str | None, cwd: str | None) -> SessionPeek:
    """A peek at a whole file (its size and modification time from the file system)."""
    stat = path.stat()
    return SessionPeek(str(path), session_id, version, cwd, stat.st_size, stat.st_mtime)
