"""opencode 1.18's SQLite store (`$XDG_DATA_HOME/opencode/opencode.db`) read as sessions.

One database holds every session of every project: `session` (one row each: directory,
title, version, parent for subagent sessions), `message` (`data` JSON: role, model,
tokens, `summary`/`mode` for a compaction's summary, …) and `part` (`data` JSON: `text`,
`reasoning`, `tool` with its state, `step-start`/`step-finish`, `compaction`, …). A
session is named `DB#SESSION_ID`; the database's path alone names its most recently
updated top-level session. The store is opened read-only as OpenClaw's is (openclaw/store.py:
`mode=ro` while a `-wal` shows opencode may be writing it, `immutable` otherwise), so no
`-wal`/`-shm` is ever left beside it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any, NamedTuple

from cutline.core.agents.openclaw.store import open_store
from cutline.core.agents.peek import SessionPeek
from cutline.core.agents.store_refs import is_sqlite_file, session_ref, split_ref
from cutline.core.errors import FormatError

LABEL = "opencode"
WRITER = "opencode"
# the tables that make a SQLite file an opencode store
TABLES = frozenset({"session", "message", "part"})


class Row(NamedTuple):
    """One `message` or `part` row: its id, the message it belongs to, when it was created, and its `data` JSON."""

    id: str
    message_id: str
    time_created: int
    data: str


class StoreSession(NamedTuple):
    """One session's rows as read from the store."""

    info: dict[str, Any]
    messages: list[Row]
    parts: list[Row]


def is_opencode_store(ref: str | Path) -> bool:
    """Whether `ref` names an opencode database (or a session in one): SQLite with opencode's tables."""
    path = split_ref(ref)[0]
    if not is_sqlite_file(path):
        return False
    try:
        with open_store(path, LABEL, WRITER) as conn:
            names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except FormatError:
        return False
    return names >= TABLES


_SESSION_COLUMNS = (
    "id",
    "parent_id",
    "slug",
    "directory",
    "title",
    "version",
    "time_created",
    "time_updated",
    "time_compacting",
    "time_archived",
)


def _sessions(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Sessions with at least one message, top-level ones first, then most recently updated first."""
    rows = conn.execute(
        f"SELECT {', '.join(_SESSION_COLUMNS)} FROM session"
        " WHERE EXISTS (SELECT 1 FROM message WHERE message.session_id = session.id)"
        " ORDER BY (parent_id IS NOT NULL), time_updated DESC, id DESC"
    ).fetchall()
    return [dict(zip(_SESSION_COLUMNS, row, strict=True)) for row in rows]


def _pick(path: Path, sessions: list[dict[str, Any]], wanted: str | None) -> dict[str, Any]:
    if not sessions:
        raise FormatError(f"{path}: an opencode store with no session messages")
    if wanted is None:
        return sessions[0]
    exact = [s for s in sessions if s["id"] == wanted]
    matches = exact or [s for s in sessions if str(s["id"]).startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    listed = ", ".join(str(s["id"]) for s in sessions[:5])
    if not matches:
        raise FormatError(f"{path}: no session {wanted!r} in this opencode store (it holds {listed})")
    raise FormatError(f"{path}: {wanted!r} names {len(matches)} sessions in this opencode store; give more of the id")


def read_rows(ref: str | Path) -> tuple[str, StoreSession]:
    """(the session's name `DB#ID`, its rows): messages as opencode orders them (creation time, then id), parts by id."""
    path, wanted = split_ref(ref)
    if not path.is_file():
        raise FormatError(f"{path}: no such file")
    with open_store(path, LABEL, WRITER) as conn:
        chosen = _pick(path, _sessions(conn), wanted)
        sid = str(chosen["id"])
        messages = [
            Row(str(r[0]), str(r[0]), int(r[1]), str(r[2]))
            for r in conn.execute(
                "SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id", (sid,)
            )
        ]
        parts = [
            Row(str(r[0]), str(r[1]), int(r[2]), str(r[3]))
            for r in conn.execute(
                "SELECT id, message_id, time_created, data FROM part WHERE session_id = ? ORDER BY message_id, id",
                (sid,),
            )
        ]
    return session_ref(path, sid), StoreSession(chosen, messages, parts)


def fingerprint(rows: StoreSession) -> tuple[int, str]:
    """The size and SHA-256 of a session's message and part rows: what a proposal is tied to (write-back checks it)."""
    digest = hashlib.sha256()
    size = 0
    for row in [*rows.messages, *rows.parts]:
        line = json.dumps([row.id, row.message_id, row.time_created, row.data], ensure_ascii=False) + "\n"
        data = line.encode("utf-8", "surrogatepass")
        size += len(data)
        digest.update(data)
    return size, digest.hexdigest()


def peek_store(path: Path) -> list[SessionPeek]:
    """Each session of the database for a listing: id, the opencode version that made it, directory, bytes, last update."""
    out: list[SessionPeek] = []
    with open_store(path, LABEL, WRITER) as conn:
        for info in _sessions(conn):
            row = conn.execute(
                "SELECT (SELECT coalesce(sum(length(data)), 0) FROM message WHERE session_id = ?1)"
                " + (SELECT coalesce(sum(length(data)), 0) FROM part WHERE session_id = ?1)",
                (info["id"],),
            ).fetchone()
            size = int(row[0]) if row is not None and isinstance(row[0], int) else 0
            updated = info["time_updated"]
            modified = updated / 1000 if isinstance(updated, int) else path.stat().st_mtime
            version = info["version"] if isinstance(info["version"], str) else None
            cwd = info["directory"] if isinstance(info["directory"], str) else None
            out.append(SessionPeek(session_ref(path, str(info["id"])), str(info["id"]), version, cwd, size, modified))
    return out
