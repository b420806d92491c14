"""OpenClaw 2026.9's SQLite store (`agents/<id>/agent/openclaw-agent.sqlite`) read as sessions (writeback.py writes).

The store holds every session of one agent. A session is named `STORE#SESSION_ID`; the
store's path alone names its most recently updated session. The store is opened
read-only: with `mode=ro` and a busy timeout while a `-wal` (or `-journal`) file shows a
gateway may be writing it, and as `immutable` otherwise (a checkpointed copy, such as the test
fixtures: a read-only open would still create `-wal`/`-shm` files beside it).
Events come from `transcript_events` (`event_json`, or zstd `event_zstd`); the active
path is the one OpenClaw projects in `session_transcript_active_events`, so an event
whose `parentId` names no stored event still hangs where OpenClaw shows it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from cutline.core.agents.jsonl import Lines
from cutline.core.agents.peek import SessionPeek
from cutline.core.agents.pi.reader import read_pi
from cutline.core.agents.store_refs import session_ref, split_ref
from cutline.core.errors import FormatError
from cutline.core.models import Entry, Problem, Session

# the schema_meta version of OpenClaw 2026.9.6's agent store, the newest cutline has read
KNOWN_SCHEMA_VERSION = 23
# how long a read waits for a gateway's write to finish
BUSY_TIMEOUT_MS = 2000
# the largest event OpenClaw stores (its CHECK on event_utf8_bytes)
MAX_EVENT_BYTES = 4 * 1024 * 1024


class StoreSessionInfo(NamedTuple):
    """One session in a store, as listed without reading its events."""

    session_id: str
    updated_ms: int | None
    events: int
    model: str | None
    name: str | None


@contextmanager
def open_store(path: Path, label: str = "OpenClaw", writer: str = "a gateway") -> Iterator[sqlite3.Connection]:
    """A read-only connection that never writes beside the store; one-line FormatError when it cannot be read.

    `label` names the agent whose store it is and `writer` what may be writing it (in the messages).
    """
    live = any(Path(f"{path}{suffix}").exists() for suffix in ("-wal", "-journal"))
    uri = f"{path.resolve().as_uri()}?{'mode=ro' if live else 'immutable=1'}"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    except sqlite3.Error as exc:
        raise FormatError(f"{path}: cannot open the {label} store read-only ({exc})") from None
    with closing(conn):
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA query_only = 1")
            yield conn
        except sqlite3.OperationalError as exc:
            text = str(exc)
            if "locked" in text or "busy" in text:
                raise FormatError(
                    f"{path}: the {label} store is locked by another process ({writer} writing it?); try again"
                ) from None
            raise FormatError(f"{path}: cannot read the {label} store ({text})") from None
        except sqlite3.DatabaseError as exc:
            raise FormatError(f"{path}: not a readable {label} store ({exc})") from None


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def schema_version(conn: sqlite3.Connection) -> tuple[int | None, str | None]:
    """The store's schema version and the OpenClaw version that wrote it (`schema_meta`), when it says."""
    if "schema_meta" not in _tables(conn):
        return None, None
    row = conn.execute(
        "SELECT schema_version, app_version FROM schema_meta ORDER BY (meta_key = 'primary') DESC LIMIT 1"
    ).fetchone()
    if row is None:
        return None, None
    version = row[0] if isinstance(row[0], int) else None
    return version, row[1] if isinstance(row[1], str) else None


def list_sessions(conn: sqlite3.Connection) -> list[StoreSessionInfo]:
    """The store's sessions with events, most recently updated first (no event is decoded)."""
    tables = _tables(conn)
    if "transcript_events" not in tables:
        return []
    counts = conn.execute(
        "SELECT session_id, count(*), max(created_at) FROM transcript_events GROUP BY session_id"
    ).fetchall()
    windows: dict[str, tuple[Any, Any, Any]] = {}
    if "session_windows" in tables:
        for row in conn.execute("SELECT session_id, updated_at, model, display_name FROM session_windows"):
            windows[row[0]] = (row[1], row[2], row[3])
    out: list[StoreSessionInfo] = []
    for session_id, events, last_event in counts:
        updated, model, name = windows.get(session_id, (None, None, None))
        stamps = [v for v in (updated, last_event) if isinstance(v, int)]
        out.append(
            StoreSessionInfo(
                session_id=str(session_id),
                updated_ms=max(stamps) if stamps else None,
                events=int(events),
                model=model if isinstance(model, str) else None,
                name=name if isinstance(name, str) else None,
            )
        )
    out.sort(key=lambda s: (s.updated_ms or 0, s.session_id), reverse=True)
    return out


def _pick(path: Path, sessions: list[StoreSessionInfo], wanted: str | None) -> StoreSessionInfo:
    if not sessions:
        raise FormatError(f"{path}: an OpenClaw store with no transcript events")
    if wanted is None:
        return sessions[0]
    exact = [s for s in sessions if s.session_id == wanted]
    matches = exact or [s for s in sessions if s.session_id.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    listed = ", ".join(s.session_id for s in sessions[:5])
    if not matches:
        raise FormatError(f"{path}: no session {wanted!r} in this OpenClaw store (it holds {listed})")
    raise FormatError(f"{path}: {wanted!r} names {len(matches)} sessions in this OpenClaw store; give more of the id")


def _decompress(blob: bytes, size: Any) -> str:
    import zstandard

    limit = size if isinstance(size, int) and 0 < size <= MAX_EVENT_BYTES else MAX_EVENT_BYTES
    data = zstandard.ZstdDecompressor().decompress(blob, max_output_size=limit)
    return data.decode("utf-8")


def event_texts(
    conn: sqlite3.Connection, session_id: str, where: str, problems: list[Problem]
) -> list[tuple[int, str]]:
    """(seq, event JSON) in seq order; an event that cannot be decoded is reported and left out."""
    out: list[tuple[int, str]] = []
    cursor = conn.execute(
        "SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? ORDER BY seq",
        (session_id,),
    )
    for seq, text, blob, size in cursor:
        if isinstance(text, str):
            out.append((int(seq), text))
            continue
        if isinstance(blob, bytes):
            try:
                out.append((int(seq), _decompress(blob, size)))
            except Exception as exc:  # zstd raises its own error types; any failure is one bad event
                problems.append(
                    Problem(file=where, line=int(seq), message=f"event_zstd does not decompress ({exc}); left out")
                )
            continue
        problems.append(Problem(file=where, line=int(seq), message="event has neither event_json nor event_zstd"))
    return out


def _active_seqs(conn: sqlite3.Connection, session_id: str, last_seq: int) -> list[int] | None:
    """The event seqs of OpenClaw's active-path projection, or None when it is missing or stale."""
    tables = _tables(conn)
    if "session_transcript_active_events" not in tables or "session_transcript_index_state" not in tables:
        return None
    state = conn.execute(
        "SELECT indexed_seq, needs_rebuild FROM session_transcript_index_state WHERE session_id = ?", (session_id,)
    ).fetchone()
    if state is None or state[1] or not isinstance(state[0], int) or state[0] < last_seq:
        return None
    rows = conn.execute(
        "SELECT event_seq FROM session_transcript_active_events WHERE session_id = ? ORDER BY active_position",
        (session_id,),
    ).fetchall()
    return [int(row[0]) for row in rows] or None


def _follow_projection(session: Session, seqs: list[int] | None, where: str) -> None:
    """Hang each event on the active path where OpenClaw's projection puts it; a dangling parentId is reported."""
    by_line = {entry.line: entry for entry in session.entries}
    known = {entry.id for entry in session.entries}
    previous: Entry | None = None
    if seqs is not None:
        for seq in seqs:
            entry = by_line.get(seq)
            if entry is None:
                continue
            expected = previous.id if previous is not None else None
            if entry.parentId != expected:
                if entry.parentId is not None and entry.parentId not in known:
                    _dangling(entry, where, session.problems, "follows the active path OpenClaw projects")
                entry.parentId = expected
            previous = entry
        if previous is not None:
            session.leaf_id = previous.id
        return
    for entry in session.entries:
        if entry.parentId is not None and entry.parentId not in known:
            _dangling(entry, where, session.problems, "hung on the event before it")
            entry.parentId = previous.id if previous is not None else None
        previous = entry


def _dangling(entry: Entry, where: str, problems: list[Problem], how: str) -> None:
    problems.append(
        Problem(
            file=where,
            line=entry.line,
            message=f"parentId {entry.parentId} names no stored event ({how})",
            severity="warning",
        )
    )


def read_store(ref: str | Path, *, inserted: str | None = None) -> Session:
    """One session of an OpenClaw store (the latest when `ref` names none), its problems collected.

    `inserted`: an event as cutline's write-back inserts it, read as though it were in the
    store (the next seq, projected at the end of the active path, as the write-back
    projects it): the session after a write-back, known before it without touching the store.
    """
    path, wanted = split_ref(ref)
    if not path.is_file():
        raise FormatError(f"{path}: no such file")
    with open_store(path) as conn:
        problems: list[Problem] = []
        version, app = schema_version(conn)
        chosen = _pick(path, list_sessions(conn), wanted)
        where = session_ref(path, chosen.session_id)
        if version is not None and version > KNOWN_SCHEMA_VERSION:
            wrote = f" by OpenClaw {app}" if app else ""
            problems.append(
                Problem(
                    file=where,
                    line=None,
                    message=(
                        f"store schema version {version}{wrote} is newer than the {KNOWN_SCHEMA_VERSION} cutline knows "
                        "(OpenClaw 2026.9.6); read what is understood"
                    ),
                    severity="warning",
                )
            )
        texts = event_texts(conn, chosen.session_id, where, problems)
        seqs = _active_seqs(conn, chosen.session_id, texts[-1][0] if texts else -1)
    if inserted is not None:
        texts, seqs = with_inserted(texts, seqs, inserted)
    lines = Lines(texts, problems, "\n", True, texts[-1][0] if texts else 0)
    session = read_pi(lines, where, chosen.name or f"openclaw {chosen.session_id[:8]}")
    session.format = "openclaw"
    _follow_projection(session, seqs, where)
    session.source_path = where
    session.source_size, session.source_sha256 = fingerprint(texts)
    return session


def with_inserted(
    texts: list[tuple[int, str]], seqs: list[int] | None, event: str
) -> tuple[list[tuple[int, str]], list[int] | None]:
    """The events and active path once `event` is inserted after the last one and projected at the end."""
    seq = (texts[-1][0] if texts else -1) + 1
    return [*texts, (seq, event)], None if seqs is None else [*seqs, seq]


def fingerprint(texts: list[tuple[int, str]]) -> tuple[int, str]:
    """The size and SHA-256 of a session's events joined as JSONL: what a proposal is tied to (write-back checks it)."""
    joined = "".join(text + "\n" for _, text in texts).encode("utf-8", "surrogatepass")
    return len(joined), hashlib.sha256(joined).hexdigest()


def peek_store(path: Path) -> list[SessionPeek]:
    """Each session of a store for a listing: id, the OpenClaw version that wrote the store, cwd, bytes and last update."""
    out: list[SessionPeek] = []
    with open_store(path) as conn:
        _, app = schema_version(conn)
        for info in list_sessions(conn):
            row = conn.execute(
                "SELECT event_json, (SELECT sum(coalesce(length(event_json), 0) + coalesce(length(event_zstd), 0))"
                " FROM transcript_events WHERE session_id = ?1) FROM transcript_events WHERE session_id = ?1 AND seq = 0",
                (info.session_id,),
            ).fetchone()
            cwd = None
            if row is not None and isinstance(row[0], str):
                try:
                    header = json.loads(row[0])
                except ValueError:
                    header = None
                if type(header) is dict and isinstance(header.get("cwd"), str):
                    cwd = header["cwd"]
            size = int(row[1]) if row is not None and isinstance(row[1], int) else 0
            modified = info.updated_ms / 1000 if info.updated_ms else path.stat().st_mtime
            out.append(SessionPeek(session_ref(path, info.session_id), info.session_id, app, cwd, size, modified))
    return out
