"""The SQLite session store: sessions and their entries, cached token counts, and the review tables.

Every import is one transaction, so a crash leaves a session either fully imported
or absent; re-importing a file that only grew inserts just the new entries.
"""

from __future__ import annotations

import gc
import hashlib
import json
import queue
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timezone
from itertools import islice
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple

from pydantic import BaseModel, Field, TypeAdapter
from sqlite_utils import Database

from cutline.core.agents.entries import entry_from_json, entry_json
from cutline.core.agents.pi.reader import entry_from_line
from cutline.core.errors import CutlineError, NotFoundError
from cutline.core.models import Entry, Problem, Session
from cutline.core.paths import default_db_path
from cutline.core.store.migrations import migrations

_ENTRY_BATCH = 2000
_FREEZE_AT = 20_000
_BULK_ROWS = 10_000
_BULK_CACHE_KIB = -65536  # negative: KiB, as SQLite's cache_size takes it
_HASH_CHUNK = 1 << 20
_PROBLEMS = TypeAdapter(list[Problem])
# pydantic's own serializer and validator, called directly: 100k entries make the wrapper calls count
_NOT_IN_MODEL_JSON = {"raw_line"}

_INSERT_ENTRY = (
    "INSERT INTO entries (session_id, id, seq, line, parent_id, type, role, path_index, timestamp, raw, model_json)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


class AmbiguousSessionError(NotFoundError):
    """A session reference matches more than one stored session."""


class ImportReport(BaseModel):
    """What one import did: new, unchanged, grown (only new entries added) or replaced (file changed)."""

    session_id: str
    name: str
    format: str
    path: str | None = None
    added: int = 0
    total: int = 0
    unchanged: bool = False
    grown: bool = False
    replaced: bool = False
    problems: list[Problem] = Field(default_factory=list)

    @property
    def status(self) -> str:
        """One word for a person: imported, unchanged, grown or replaced."""
        if self.unchanged:
            return "unchanged"
        if self.grown:
            return "grown"
        if self.replaced:
            return "replaced"
        return "imported"


class SessionInfo(BaseModel):
    """One row of the session list."""

    id: str
    name: str
    source_path: str | None = None
    format: str
    version: int | None = None
    entries: int = 0
    tokens: int | None = Field(default=None, description="chars4 tokens of the active path, when counted")
    compactions: int = 0
    last_decision: str | None = None
    last_decision_at: str | None = None
    imported_at: str
    updated_at: str


class PathLine(BaseModel):
    """One entry of the active path as `cutline show` lists it."""

    index: int
    id: str
    type: str
    role: str | None = None
    timestamp: str | None = None
    preview: str = ""
    tokens: int | None = Field(default=None, description="chars4 tokens, when counted")


class CompactionInfo(BaseModel):
    """A compaction entry of a stored session."""

    id: str
    seq: int
    path_index: int | None = None
    timestamp: str | None = None
    tokens_before: int = 0
    first_kept_entry_id: str | None = None
    summary_chars: int = 0


class SessionOverview(BaseModel):
    """What `cutline show` prints: the session's header facts, counts, compactions and active path."""

    info: SessionInfo
    cwd: str | None = None
    header: dict[str, Any] = Field(default_factory=dict)
    problems: list[Problem] = Field(default_factory=list)
    counts_by_type: dict[str, int] = Field(default_factory=dict)
    counts_by_role: dict[str, int] = Field(default_factory=dict)
    compactions: list[CompactionInfo] = Field(default_factory=list)
    path_tokens: int | None = Field(default=None, description="chars4 tokens of the whole active path, when counted")
    path: list[PathLine] = Field(default_factory=list)


def utc_now() -> str:
    """The current time as an ISO 8601 UTC timestamp (sortable as text)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def display_name(name: str | None, source_path: str | None, session_id: str) -> str:
    """The name a person sees: the session's own name, else its file's stem, else the id's start."""
    if name:
        return name
    if source_path:
        return Path(source_path).stem
    return session_id[:8]


def _candidate(row: dict[str, Any]) -> str:
    """One session of an ambiguity error: its id, name and source file, so the user can pick it."""
    name = display_name(row["name"], row["source_path"], row["id"])
    return f"{row['id']} ({name}: {row['source_path']})" if row["source_path"] else f"{row['id']} ({name})"


def unique_prefixes(ids: list[str], minimum: int = 8) -> dict[str, str]:
    """The shortest prefix of each id (at least `minimum` chars) that starts no other id.

    An id that is itself the start of another id (`X` and `X-1a2b3c4d`) gets its whole self:
    `resolve_session` takes an exact id before prefixes, so that still names it alone.
    """
    ordered = sorted(set(ids))
    shortest: dict[str, str] = {}
    for i, session_id in enumerate(ordered):
        shared = 0
        for neighbour in ordered[max(i - 1, 0) : i] + ordered[i + 1 : i + 2]:
            common = 0
            for a, b in zip(session_id, neighbour):
                if a != b:
                    break
                common += 1
            shared = max(shared, common)
        width = max(minimum, shared + 1)
        if session_id[width - 1 : width] == "-" and width < len(session_id):
            width += 1  # "X-" reads as cut off: show one character of the part after the dash
        shortest[session_id] = session_id[:width]
    return shortest


def file_sha256(path: Path, limit: int | None = None) -> str:
    """SHA-256 of a file's bytes, or of only its first `limit` bytes."""
    digest = hashlib.sha256()
    remaining = limit
    with open(path, "rb") as handle:
        while remaining is None or remaining > 0:
            size = _HASH_CHUNK if remaining is None else min(_HASH_CHUNK, remaining)
            chunk = handle.read(size)
            if not chunk:
                break
            digest.update(chunk)
            if remaining is not None:
                remaining -= len(chunk)
    return digest.hexdigest()


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building or walking many long-lived objects.

    Why: a 100k-entry session creates millions of objects that all stay alive, and the
    collector would rescan them over and over (4-5x the cost of the work itself).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def _bulk_cache(conn: sqlite3.Connection, rows: int) -> Iterator[None]:
    """A larger page cache while many rows are inserted, back to the previous size afterwards.

    Why: with the default 2 MB, index pages are spilled and read back over and over during a
    100k-row insert; 64 MB makes it about a fifth faster, and is given back once it is done.
    """
    if rows < _BULK_ROWS:
        yield
        return
    previous = conn.execute("PRAGMA cache_size").fetchone()[0]
    conn.execute(f"PRAGMA cache_size = {_BULK_CACHE_KIB}")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA cache_size = {int(previous)}")


def _batched(rows: Iterable[tuple], size: int) -> Iterator[list[tuple]]:
    iterator = iter(rows)
    while batch := list(islice(iterator, size)):
        yield batch


def entry_keys(entries: Sequence[Entry]) -> list[str]:
    """The key each entry is stored under: its id, except that a repeated id's earlier records get `id~seq`.

    Why: a file may repeat an id (pi lets the later record win); every record must still be
    stored for a byte-identical export, and the winner keeps the plain id that paths and
    token counts refer to.
    """
    return _keys([entry.id for entry in entries])


def _keys(ids: list[str]) -> list[str]:
    """`entry_keys` of the entries with these ids, in order."""
    last = {entry_id: seq for seq, entry_id in enumerate(ids)}
    if len(last) == len(ids):
        return ids
    keys = [entry_id if last[entry_id] == seq else f"{entry_id}~{seq}" for seq, entry_id in enumerate(ids)]
    if len(last) != len(keys):
        taken = set(keys)
        if len(taken) != len(keys):
            raise CutlineError("entry ids collide with the keys given to repeated ids")
    return keys


def _path_index(ids: list[str], parent_ids: list[str | None], leaf_id: str | None) -> dict[str, int]:
    """Position on the active path of each entry id on it, as `Session.active_path` walks it (a repeated id's later record wins)."""
    if not ids:
        return {}
    parent_of = dict(zip(ids, parent_ids))
    node: str | None = leaf_id if leaf_id and leaf_id in parent_of else ids[-1]
    path: list[str] = []
    seen: set[str] = set()
    while node is not None and node not in seen:
        seen.add(node)
        path.append(node)
        parent = parent_of[node]
        node = parent if parent and parent in parent_of else None
    path.reverse()
    return {entry_id: i for i, entry_id in enumerate(path)}


def _model_json(entry: Entry) -> str:
    """An entry serialized for the store, without its raw line (stored once, in its own column)."""
    return entry_json(entry, _NOT_IN_MODEL_JSON)


def _entry_row(entry: Entry, payload: Entry | str) -> tuple:
    """What the store keeps of an entry: id, parent, type, role, timestamp, line, raw line, and its model.

    The model (`payload`) is the entry itself, serialized when inserted, or its serialized
    form, or '' when the reader's fast path rebuilds it from the raw line alone.
    """
    message = entry.message
    return (
        entry.id,
        entry.parentId,
        entry.type,
        message.role if message is not None else None,
        entry.timestamp,
        entry.line,
        entry.raw_line,
        payload,
    )


def _row_sink(rows: list[tuple]) -> Callable[[Entry, bool], None]:
    """A reader sink that keeps each entry as a store row (see `_entry_row`), serialized right away."""
    append = rows.append

    def sink(entry: Entry, from_line: bool) -> None:
        append(_entry_row(entry, "" if from_line else _model_json(entry)))

    return sink


class ImportedFile(NamedTuple):
    """A session file read once and imported: the session as read (its id the store's), the report, and counts made on the way."""

    session: Session
    report: ImportReport
    counts: dict[str, int] | None


def _existing_file(path: Path | str) -> Path:
    """The resolved path of an existing regular file, or a one-line NotFoundError."""
    try:
        resolved = Path(path).expanduser().resolve(strict=True)
    except (OSError, RuntimeError):
        raise NotFoundError(f"{path}: no such file") from None
    if not resolved.is_file():
        raise NotFoundError(f"{path}: not a file")
    return resolved


class Store:
    """cutline's database: open it, import sessions, read them back fast."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        try:
            # one connection shared by the UI's worker threads; the lock serializes writers
            self.conn = sqlite3.connect(str(self.path), check_same_thread=False)
            self.conn.execute("PRAGMA busy_timeout=5000")
            # only takes effect on a new database: 16 KiB pages pack 1-3 KB entry rows with
            # far less overflow waste than 4 KiB ones (about 1.5x faster imports)
            self.conn.execute("PRAGMA page_size=16384")
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self.db = Database(self.conn)
            self._migrate()
        except sqlite3.DatabaseError as exc:
            if hasattr(self, "conn"):
                self.conn.close()
            raise CutlineError(f"{self.path}: cannot open the cutline database ({exc})") from exc

    def _migrate(self) -> None:
        try:
            migrations.apply(self.db)
        except sqlite3.OperationalError:
            # another process migrated between our check and our write: look again
            migrations.apply(self.db)

    # -- lifecycle ---------------------------------------------------------

    def close(self) -> None:
        """Close the connection; the store cannot be used afterwards."""
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction that takes the write lock up front (BEGIN IMMEDIATE) and commits or rolls back as a whole."""
        with self._lock:
            if self.conn.in_transaction:
                yield self.conn
                return
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.rollback()
                raise
            else:
                self.conn.commit()

    # -- import ------------------------------------------------------------

    def import_file(self, path: Path | str) -> ImportReport:
        """Read a session file and import it; an unchanged file is recognized without parsing it."""
        resolved = _existing_file(path)
        report = self._unchanged_file(resolved)
        if report is not None:
            return report
        from cutline.core.agents import read_session

        # the entries stream from the reader into light rows and are dropped as they go:
        # memory stays near the file's text, not the ~8 KB per entry of a whole Session
        rows: list[tuple] = []
        with _no_cyclic_gc():
            session = read_session(resolved, sink=_row_sink(rows), keep=False)
            if session.source_path is None:
                session.source_path = str(resolved)
            return self._import(session, rows)

    def import_and_read(
        self, path: Path | str, count: Callable[[Entry], int] | None = None, counter: str = "chars4"
    ) -> ImportedFile:
        """Read a session file once, import (or refresh) it, and keep the session as read.

        With `count`, every entry is counted while the import is written (SQLite releases
        the GIL, so the writing thread and the counting overlap) and the counts are cached
        under `counter` in the import's transaction (unless the cache has them all). An
        unchanged file's counts are cached already: then nothing is counted (counts None).
        """
        resolved = _existing_file(path)
        from cutline.core.agents import read_session

        if count is not None and self._unchanged_file(resolved) is not None:
            count = None  # the counts were cached when it was imported: nothing to count
        rows: list[tuple] = []
        counts: dict[str, int] | None = None
        with _no_cyclic_gc():
            session = read_session(resolved, sink=_row_sink(rows))
            if session.source_path is None:
                session.source_path = str(resolved)
            if count is None:
                report = self._import(session, rows)
            else:
                report, counts = self._import_while_counting(session, rows, count, counter)
            if len(session.entries) >= _FREEZE_AT:
                # as after a load: the session's objects outlive this call, and the first
                # collection after the pause would otherwise walk all of them (about a second)
                gc.freeze()
        session.id = report.session_id
        return ImportedFile(session, report, counts)

    def _import_while_counting(
        self, session: Session, rows: list[tuple], count: Callable[[Entry], int], counter: str
    ) -> tuple[ImportReport, dict[str, int] | None]:
        """`_import` on a writing thread while this one counts the entries; the counts join its transaction."""
        handoff: queue.Queue[dict[str, int] | None] = queue.Queue()
        outcome: dict[str, Any] = {}

        def write() -> None:
            try:
                outcome["report"] = self._import(session, rows, handoff.get, counter)
            except BaseException as exc:
                outcome["error"] = exc

        writer = threading.Thread(target=write, name="cutline-import", daemon=True)
        writer.start()
        counts: dict[str, int] | None = None
        try:
            counts = {entry.id: count(entry) for entry in session.entries}
        finally:
            handoff.put(counts)  # None (nothing cached) when counting failed
            writer.join()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["report"], counts

    def _unchanged_file(self, path: Path) -> ImportReport | None:
        row = self._session_row_for_path(str(path))
        if row is None or row["source_size"] is None or row["source_sha256"] is None:
            return None
        try:
            if path.stat().st_size != row["source_size"] or file_sha256(path) != row["source_sha256"]:
                return None
        except OSError:
            return None
        return self._report(row, unchanged=True)

    def import_session(self, session: Session) -> ImportReport:
        """Store a session in one transaction: insert it, add what a grown file appended, or replace a changed one."""
        with _no_cyclic_gc():
            return self._import(session, [_entry_row(entry, entry) for entry in session.entries])

    def _import(
        self,
        session: Session,
        rows: list[tuple],
        counts: Callable[[], dict[str, int] | None] | None = None,
        counter: str = "chars4",
    ) -> ImportReport:
        """Store a session's header facts and its entry rows (see `_entry_row`) in one transaction.

        `counts`, when given, is called once the entries are written (it may wait for them
        to be counted) and what it returns is cached under `counter` in the same transaction.
        """
        with _no_cyclic_gc():
            ids = [entry_row[0] for entry_row in rows]
            keys = _keys(ids)
            path_index = _path_index(ids, [entry_row[1] for entry_row in rows], session.leaf_id)
            # deciding what to do happens inside the write transaction, so two processes
            # importing the same file cannot both decide to insert it
            with self.transaction() as conn:
                row = self._existing_row(session)
                if row is not None and self._same_fingerprint(row, session):
                    self._cache_counts(conn, row["id"], counter, counts() if counts is not None else None)
                    return self._report(row, unchanged=True, problems=session.problems)
                now = utc_now()
                store_id = row["id"] if row is not None else self._new_store_id(session)
                start = self._grown_from(row, session, keys, rows) if row is not None else None
                if row is None:
                    self._insert_session_row(conn, store_id, session, now)
                elif start is not None:
                    self._reindex_path(conn, store_id, path_index)
                else:
                    conn.execute("DELETE FROM entries WHERE session_id = ?", (store_id,))
                    conn.execute("DELETE FROM token_counts WHERE session_id = ?", (store_id,))
                added = self._insert_entries(conn, store_id, rows, keys, start or 0, path_index)
                total = len(rows)
                self._update_session_row(conn, store_id, session, now, total)
                self._cache_counts(conn, store_id, counter, counts() if counts is not None else None)
            return ImportReport(
                session_id=store_id,
                name=display_name(session.name, session.source_path, store_id),
                format=session.format,
                path=session.source_path,
                added=added,
                total=total,
                grown=row is not None and start is not None,
                replaced=row is not None and start is None,
                problems=session.problems,
            )

    def _existing_row(self, session: Session) -> dict[str, Any] | None:
        """The stored session this one updates: the same file, else the same id from no other file."""
        if session.source_path:
            for row in self._rows(
                "SELECT * FROM sessions WHERE source_path = ? ORDER BY updated_at DESC", (session.source_path,)
            ):
                if row["id"] == session.id or row["id"].startswith(f"{session.id}-"):
                    return row
        row = self._one("SELECT * FROM sessions WHERE id = ?", (session.id,))
        if row is not None and (row["source_path"] is None or session.source_path is None):
            return row
        return None

    def _new_store_id(self, session: Session) -> str:
        """The session's own id, or, when another file already holds that id, the id plus a hash of this file's path."""
        if self._one("SELECT id FROM sessions WHERE id = ?", (session.id,)) is None:
            return session.id
        suffix = hashlib.sha256((session.source_path or "").encode()).hexdigest()
        for width in (8, 16, 64):
            candidate = f"{session.id}-{suffix[:width]}"
            if self._one("SELECT id FROM sessions WHERE id = ?", (candidate,)) is None:
                return candidate
        raise CutlineError(f"{session.source_path}: session {session.id} is already stored from this file")

    @staticmethod
    def _same_fingerprint(row: dict[str, Any], session: Session) -> bool:
        return (
            session.source_sha256 is not None
            and row["source_sha256"] == session.source_sha256
            and row["source_size"] == session.source_size
        )

    @staticmethod
    def _cache_counts(conn: sqlite3.Connection, store_id: str, counter: str, counts: dict[str, int] | None) -> None:
        """Cache counts made while importing, unless every one is cached already."""
        if not counts:
            return
        cached = conn.execute(
            "SELECT count(*) FROM token_counts WHERE session_id = ? AND counter = ?", (store_id, counter)
        ).fetchone()[0]
        if cached == len(counts):
            return
        conn.executemany(
            "INSERT OR REPLACE INTO token_counts (session_id, entry_id, counter, tokens) VALUES (?, ?, ?, ?)",
            [(store_id, entry_id, counter, tokens) for entry_id, tokens in counts.items()],
        )

    def _grown_from(self, row: dict[str, Any], session: Session, keys: list[str], rows: list[tuple]) -> int | None:
        """How many leading entries a grown file shares with the stored session, or None when it changed otherwise."""
        old_size, new_size = row["source_size"], session.source_size
        if old_size is None or new_size is None or new_size <= old_size or not session.source_path:
            return None
        if row["source_sha256"] is None or row["header_line"] != session.header_line:
            return None
        try:
            if file_sha256(Path(session.source_path), old_size) != row["source_sha256"]:
                return None
        except OSError:
            return None
        old = self.conn.execute(
            "SELECT id, raw FROM entries WHERE session_id = ? ORDER BY seq", (row["id"],)
        ).fetchall()
        if len(old) > len(keys) or [key for key, _ in old] != keys[: len(old)]:
            return None
        # an appended tail can only change the old last record if the old file did not end with a newline
        if old and not row["trailing_newline"] and old[-1][1] != rows[len(old) - 1][6]:
            return None
        return len(old)

    def _insert_session_row(self, conn: sqlite3.Connection, store_id: str, session: Session, now: str) -> None:
        """A new session's row; `_update_session_row` fills in the rest in the same transaction."""
        conn.execute(
            "INSERT INTO sessions (id, format, imported_at, updated_at) VALUES (?, ?, ?, ?)",
            (store_id, session.format, now, now),
        )

    def _update_session_row(
        self, conn: sqlite3.Connection, store_id: str, session: Session, now: str, total: int
    ) -> None:
        conn.execute(
            "UPDATE sessions SET name = ?, format = ?, version = ?, source_path = ?, source_size = ?, source_sha256 = ?,"
            " header_line = ?, newline = ?, trailing_newline = ?, leaf_id = ?, cwd = ?, updated_at = ?,"
            " entry_count = ?, problems_json = ?, header_json = ? WHERE id = ?",
            (
                session.name,
                session.format,
                session.version,
                session.source_path,
                session.source_size,
                session.source_sha256,
                session.header_line,
                session.newline,
                int(session.trailing_newline),
                session.leaf_id,
                session.cwd,
                now,
                total,
                _PROBLEMS.dump_json(session.problems).decode(),
                json.dumps(session.header),
                store_id,
            ),
        )

    def _insert_entries(
        self,
        conn: sqlite3.Connection,
        store_id: str,
        entry_rows: list[tuple],
        keys: list[str],
        start: int,
        path_index: dict[str, int],
    ) -> int:
        """Insert `entry_rows[start:]` in batches; returns how many were inserted."""

        def rows() -> Iterator[tuple]:
            index_of = path_index.get
            for seq in range(start, len(entry_rows)):
                _, parent_id, kind, role, timestamp, line, raw, payload = entry_rows[seq]
                key = keys[seq]
                if type(payload) is not str:
                    payload = _model_json(payload)
                yield (store_id, key, seq, line, parent_id, kind, role, index_of(key), timestamp, raw, payload)

        added = 0
        with _bulk_cache(conn, len(entry_rows) - start):
            for batch in _batched(rows(), _ENTRY_BATCH):
                self._insert_entry_rows(conn, batch)
                added += len(batch)
        return added

    def _insert_entry_rows(self, conn: sqlite3.Connection, batch: Sequence[tuple]) -> None:
        conn.executemany(_INSERT_ENTRY, batch)

    @staticmethod
    def _reindex_path(conn: sqlite3.Connection, store_id: str, path_index: dict[str, int]) -> None:
        """Make path_index of the stored entries match the new active path."""
        current = dict(
            conn.execute(
                "SELECT id, path_index FROM entries WHERE session_id = ? AND path_index IS NOT NULL", (store_id,)
            ).fetchall()
        )
        conn.executemany(
            "UPDATE entries SET path_index = NULL WHERE session_id = ? AND id = ?",
            [(store_id, entry_id) for entry_id in current if entry_id not in path_index],
        )
        conn.executemany(
            "UPDATE entries SET path_index = ? WHERE session_id = ? AND id = ?",
            [
                (index, store_id, entry_id)
                for entry_id, index in path_index.items()
                if current.get(entry_id, index) != index
            ],
        )

    # -- reading -----------------------------------------------------------

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self._lock:
            cursor = self.conn.execute(sql, params)
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, values)) for values in cursor.fetchall()]

    def _one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        rows = self._rows(sql, params)
        return rows[0] if rows else None

    def _session_row_for_path(self, path: str) -> dict[str, Any] | None:
        return self._one("SELECT * FROM sessions WHERE source_path = ? ORDER BY updated_at DESC LIMIT 1", (path,))

    def _report(self, row: dict[str, Any], *, unchanged: bool, problems: list[Problem] | None = None) -> ImportReport:
        return ImportReport(
            session_id=row["id"],
            name=display_name(row["name"], row["source_path"], row["id"]),
            format=row["format"],
            path=row["source_path"],
            added=0,
            total=row["entry_count"],
            unchanged=unchanged,
            problems=problems if problems is not None else _PROBLEMS.validate_json(row["problems_json"]),
        )

    def list_sessions(self) -> list[SessionInfo]:
        """Every stored session, most recently updated first."""
        rows = self._rows(
            """
            SELECT s.*,
                (SELECT count(*) FROM entries e WHERE e.session_id = s.id AND e.type = 'compaction') AS compactions,
                (SELECT sum(t.tokens) FROM entries e
                    JOIN token_counts t ON t.session_id = e.session_id AND t.entry_id = e.id AND t.counter = 'chars4'
                    WHERE e.session_id = s.id AND e.path_index IS NOT NULL) AS tokens,
                (SELECT d.decision FROM decisions d WHERE d.session_id = s.id
                    ORDER BY d.decided_at DESC, d.id DESC LIMIT 1) AS last_decision,
                (SELECT d.decided_at FROM decisions d WHERE d.session_id = s.id
                    ORDER BY d.decided_at DESC, d.id DESC LIMIT 1) AS last_decision_at
            FROM sessions s
            ORDER BY s.updated_at DESC, s.id
            """
        )
        return [
            SessionInfo(
                id=row["id"],
                name=display_name(row["name"], row["source_path"], row["id"]),
                source_path=row["source_path"],
                format=row["format"],
                version=row["version"],
                entries=row["entry_count"],
                tokens=row["tokens"],
                compactions=row["compactions"],
                last_decision=row["last_decision"],
                last_decision_at=row["last_decision_at"],
                imported_at=row["imported_at"],
                updated_at=row["updated_at"],
            )
            for row in rows
        ]

    def short_ids(self) -> dict[str, str]:
        """Every stored session id mapped to its shortest unique prefix (at least 8 chars), for listing."""
        return unique_prefixes([row["id"] for row in self._rows("SELECT id FROM sessions")])

    def resolve_session(self, ref: str) -> str:
        """The id of the session `ref` names: an exact id, a unique id prefix, a name, or its source file's path."""
        ref = ref.strip()
        if not ref:
            raise NotFoundError("no session given")
        rows = self._rows("SELECT id, name, source_path, updated_at FROM sessions ORDER BY updated_at DESC")
        if any(row["id"] == ref for row in rows):
            return ref
        by_prefix = [row for row in rows if row["id"].startswith(ref)]
        if len(by_prefix) == 1:
            return by_prefix[0]["id"]
        by_name = [row for row in rows if ref in _names(row)]
        if len(by_name) == 1:
            return by_name[0]["id"]
        try:
            as_path = str(Path(ref).expanduser().resolve())
        except (OSError, RuntimeError):
            as_path = ref
        by_path = [row for row in rows if row["source_path"] in (ref, as_path)]
        if by_path:
            return by_path[0]["id"]
        by_name_prefix = [row for row in rows if any(name.startswith(ref) for name in _names(row))]
        if not by_prefix and not by_name and len(by_name_prefix) == 1:
            return by_name_prefix[0]["id"]
        for matches, how in ((by_prefix, "id prefix"), (by_name, "name"), (by_name_prefix, "name prefix")):
            if len(matches) > 1:
                listed = ", ".join(_candidate(row) for row in sorted(matches, key=lambda r: r["id"])[:10])
                more = f" and {len(matches) - 10} more" if len(matches) > 10 else ""
                raise AmbiguousSessionError(
                    f"{how} {ref!r} matches {len(matches)} sessions: {listed}{more}; name one by its full id or its file path"
                )
        raise NotFoundError(f"no stored session matches {ref!r} (try `cutline ls`)")

    def session_info(self, ref: str) -> SessionInfo:
        """The list row of one session."""
        session_id = self.resolve_session(ref)
        for info in self.list_sessions():
            if info.id == session_id:
                return info
        raise NotFoundError(f"no stored session matches {ref!r}")

    def load_session(self, ref: str) -> Session:
        """Rebuild a stored session (all branches, in file order) from its serialized entries."""
        session_id = self.resolve_session(ref)
        with self._lock, _no_cyclic_gc():
            row = self._one("SELECT * FROM sessions WHERE id = ?", (session_id,))
            if row is None:
                raise NotFoundError(f"no stored session matches {ref!r}")
            cursor = self.conn.execute(
                "SELECT model_json, raw, line FROM entries WHERE session_id = ? ORDER BY seq", (session_id,)
            )
            entries = [_entry_from_row(model_json, raw, line) for model_json, raw, line in cursor]
            if len(entries) >= _FREEZE_AT:
                # A big session's objects live as long as the session: move them out of the
                # collector's view, or the next full collection rescans millions of them (a
                # second-long pause). Small sessions are left alone: freezing is process-wide.
                gc.freeze()
        return Session.model_construct(
            id=session_id,
            format=row["format"],
            version=row["version"],
            source_path=row["source_path"],
            name=row["name"],
            cwd=row["cwd"],
            header=json.loads(row["header_json"]),
            header_line=row["header_line"],
            entries=entries,
            leaf_id=row["leaf_id"],
            problems=_PROBLEMS.validate_json(row["problems_json"]),
            newline=row["newline"],
            trailing_newline=bool(row["trailing_newline"]),
            source_size=row["source_size"],
            source_sha256=row["source_sha256"],
        )

    def overview(self, ref: str) -> SessionOverview:
        """Header facts, counts, compactions and the active path (with chars4 tokens, counted once and cached)."""
        session = self.load_session(ref)
        info = self.session_info(session.id)
        path = session.active_path()
        try:
            from cutline.core.tokens import count_entries
        except ImportError:
            tokens: dict[str, int] | None = None
        else:
            tokens = count_entries(self, session, "chars4")
            info.tokens = sum(tokens.get(entry.id, 0) for entry in path)
        by_type: dict[str, int] = {}
        by_role: dict[str, int] = {}
        for entry in session.entries:
            by_type[entry.type] = by_type.get(entry.type, 0) + 1
            if entry.role is not None:
                by_role[entry.role] = by_role.get(entry.role, 0) + 1
        on_path = {id(entry): i for i, entry in enumerate(path)}
        compactions = [
            CompactionInfo(
                id=entry.id,
                seq=seq,
                path_index=on_path.get(id(entry)),
                timestamp=entry.timestamp,
                tokens_before=entry.compaction.tokensBefore if entry.compaction else 0,
                first_kept_entry_id=entry.compaction.firstKeptEntryId if entry.compaction else None,
                summary_chars=len(entry.compaction.summary) if entry.compaction else 0,
            )
            for seq, entry in enumerate(session.entries)
            if entry.type == "compaction"
        ]
        return SessionOverview(
            info=info,
            cwd=session.cwd,
            header=session.header,
            problems=session.problems,
            counts_by_type=by_type,
            counts_by_role=by_role,
            compactions=compactions,
            path_tokens=info.tokens,
            path=[
                PathLine(
                    index=i,
                    id=entry.id,
                    type=entry.type,
                    role=entry.role,
                    timestamp=entry.timestamp,
                    preview=entry_preview(entry),
                    tokens=tokens.get(entry.id) if tokens is not None else None,
                )
                for i, entry in enumerate(path)
            ],
        )

    def path_entry_ids(self, session_id: str) -> list[str]:
        """Ids of the active path, root first, as stored."""
        with self._lock:
            cursor = self.conn.execute(
                "SELECT id FROM entries WHERE session_id = ? AND path_index IS NOT NULL ORDER BY path_index",
                (session_id,),
            )
            return [row[0] for row in cursor]

    # -- token counts ------------------------------------------------------

    def token_counts(self, session_id: str, counter: str) -> dict[str, int]:
        """Cached token counts of a session's entries under one counter."""
        with self._lock:
            cursor = self.conn.execute(
                "SELECT entry_id, tokens FROM token_counts WHERE session_id = ? AND counter = ?", (session_id, counter)
            )
            return dict(cursor.fetchall())

    def save_token_counts(self, session_id: str, counter: str, counts: dict[str, int]) -> None:
        """Cache token counts (replacing earlier ones for the same entries and counter)."""
        with self.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO token_counts (session_id, entry_id, counter, tokens) VALUES (?, ?, ?, ?)",
                [(session_id, entry_id, counter, int(tokens)) for entry_id, tokens in counts.items()],
            )


def _names(row: dict[str, Any]) -> set[str]:
    """What a person may call a stored session: its display name and its file's stem."""
    names = {display_name(row["name"], row["source_path"], row["id"])}
    if row["source_path"]:
        names.add(Path(row["source_path"]).stem)
    return names


def entry_preview(entry: Entry, width: int = 72) -> str:
    """One line that tells a person what an entry is: its text, its tool calls, or its payload."""
    text = ""
    if entry.message is not None:
        message = entry.message
        text = message.text()
        calls = message.tool_calls()
        if calls:
            names = ", ".join(f"{call.name}({_compact_json(call.arguments)})" for call in calls)
            text = f"{text} -> {names}" if text else f"-> {names}"
        if not text and any(getattr(block, "type", None) == "thinking" for block in message.content):
            text = "[thinking] " + " ".join(getattr(b, "thinking", "") for b in message.content)
        if message.role == "toolResult" and message.isError:
            text = f"[error] {text}"
        if not text and message.has_image():
            text = "[image]"
    elif entry.compaction is not None:
        text = entry.compaction.summary
    elif entry.data:
        text = _compact_json(entry.data)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _compact_json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        return str(value)


def _entry_from_row(model_json: str, raw: str, line: int | None) -> Entry:
    if not model_json:
        # stored without its model: the reader's own fast path rebuilds it from the line
        entry = entry_from_line(raw, line or 0)
        if entry is None:
            raise CutlineError(f"stored entry at line {line} cannot be rebuilt from its line (re-import the file)")
        return entry
    entry = entry_from_json(model_json)
    # raw_line lives in its own column (stored once); set it the way validation would have
    entry.__dict__["raw_line"] = raw
    entry.__pydantic_fields_set__.add("raw_line")
    return entry
