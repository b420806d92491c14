"""Importing a session into the store: streamed from its file, in one transaction, new / unchanged / grown / replaced.

Every import is one transaction, so a crash leaves a session either fully imported
or absent; re-importing a file that only grew inserts just the new entries, and an
unchanged file is recognized by its size and hash without being parsed.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from cutline.core.agents.adapter import EntrySink, PathGuess
from cutline.core.agents.entries import OtherEntry
from cutline.core.agents.light import LightEntry
from cutline.core.agents.peek import session_header
from cutline.core.agents.store_refs import is_store_ref, session_ref, split_ref
from cutline.core.errors import CutlineError, NotFoundError
from cutline.core.models import Entry, Problem, Session
from cutline.core.store.db import Row, StoreDatabase, utc_now
from cutline.core.store.listing import display_name
from cutline.core.store.memory import TRIM_AT_BYTES, freeze_if_big, give_back_freed_memory, no_cyclic_gc
from cutline.core.store.rows import EntryRow, entry_row, keys_of, path_index_of, row_sink, stored_model
from cutline.core.store.sessions import PROBLEMS, Sessions
from cutline.core.store.streamed import INSERT, NotGrown, StoredRow, StreamedRows, reindex_kept
from cutline.core.store.token_counts import TokenCounts
from cutline.core.tokens import chars4_tokens, entry_tokens, get_counter

_ENTRY_BATCH = 2000
# what `_insert_entries` leaves in a row's place once it is written
_HANDED_OVER: EntryRow = ("", None, "", None, None, 0, "", "", "")
_BULK_ROWS = 10_000
_BULK_CACHE_KIB = -16384  # negative: KiB, as SQLite's cache_size takes it
_HASH_CHUNK = 1 << 20

_INSERT_ENTRY = INSERT
# a file at least this big is imported with the bulk page cache (about 10,000 entries of pi)
_BULK_BYTES = 8 << 20
CountsSource = Callable[[], dict[str, int] | None]
# told how an import goes: the stage ("reading", then "writing"), then done and total (file characters; 0, 0 when unknown)
ImportProgress = Callable[[str, int, int], None]
# a reading progress is told at most this many times (every 1% of the file)
_PROGRESS_STEPS = 100


class ImportReport(BaseModel):
    """What one import did: new, unchanged, grown (only new entries added) or replaced (file changed)."""

    model_config = ConfigDict(defer_build=True)

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


def _reporting(sink: EntrySink, total: int, progress: ImportProgress) -> EntrySink:
    """A reader sink that tells `progress` how far through the file the entries have come (each line's length)."""
    done = 0
    told = -1
    step = max(1, total // _PROGRESS_STEPS)

    def reporting(entry: Entry | LightEntry | OtherEntry, from_line: bool) -> None:
        nonlocal done, told
        sink(entry, from_line)
        done += len(entry.raw_line) + 1
        if done // step != told:
            told = done // step
            progress("reading", min(done, total), total)

    return reporting


def _counting(sink: EntrySink, counts: dict[str, int]) -> EntrySink:
    """A reader sink that also counts each entry's chars4 tokens into `counts` (cheap next to parsing)."""
    counter = get_counter("chars4")

    def both(entry: Entry | LightEntry | OtherEntry, from_line: bool) -> None:
        sink(entry, from_line)
        if type(entry) is OtherEntry:
            counts[entry.id] = 0  # what `entry_tokens` counts of an "other" entry: it puts no message in context
        elif isinstance(entry, Entry):
            counts[entry.id] = entry_tokens(entry, counter)
        elif entry.message is not None:  # a message line: what `entry_tokens` counts of it
            counts[entry.id] = chars4_tokens(entry.message)

    return both


def _recount(counts: dict[str, int]) -> Callable[[Entry], None]:
    """What `_counting` counted of an entry, counted again once the end of the reading changed it."""
    counter = get_counter("chars4")

    def recount(entry: Entry) -> None:
        counts[entry.id] = entry_tokens(entry, counter)

    return recount


def _file_size(path: Path) -> int:
    """The file's size in bytes (0 when it cannot be told, e.g. a store reference)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


class ImportedFile(NamedTuple):
    """A session file read once and imported: the session as read (its id the store's), the report, and counts made on the way."""

    session: Session
    report: ImportReport
    counts: dict[str, int] | None


# how long ago a file must have last changed before its status alone stands for its bytes (`Importer._unchanged_file`)
SETTLED_NS = 2_000_000_000


def stat_key(status: os.stat_result) -> str:
    """A file's device, inode, size and modified and changed times (ns), as recorded in `sessions.source_stat`."""
    return f"{status.st_dev}:{status.st_ino}:{status.st_size}:{status.st_mtime_ns}:{status.st_ctime_ns}"


def settled(status: os.stat_result) -> bool:
    """Whether the file's last change is `SETTLED_NS` old: a write now would get a later changed-time."""
    return time.time_ns() - max(status.st_mtime_ns, status.st_ctime_ns) > SETTLED_NS


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


def _existing_file(path: Path | str) -> Path:
    """The resolved path of an existing regular file, or a one-line NotFoundError.

    An OpenClaw store's session (`STORE#SESSION_ID`) keeps its `#SESSION_ID` after the resolved store path.
    """
    file, session = split_ref(path)
    try:
        resolved = file.resolve(strict=True)
    except (OSError, RuntimeError):
        raise NotFoundError(f"{file}: no such file") from None
    if not resolved.is_file():
        raise NotFoundError(f"{file}: not a file")
    return Path(session_ref(resolved, session)) if session is not None else resolved


@contextmanager
def _bulk_cache(conn: sqlite3.Connection, rows: int) -> Iterator[None]:
    """A larger page cache while many rows are inserted, back to the previous size afterwards.

    Why: with the default 2 MB, index pages are spilled and read back over and over during a
    100k-row insert; 16 MB makes it about a fifth faster, and is given back once it is done
    (64 MB was no faster and raised an import's peak by ~50 MB).
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


def _batched(rows: Iterable[StoredRow], size: int) -> Iterator[list[StoredRow]]:
    iterator = iter(rows)
    while batch := list(islice(iterator, size)):
        yield batch


class _NotAsPeeked(Exception):
    """The file read is not the session its first line named (the streamed import rolls back)."""


def _header_id(path: Path) -> str | None:
    """The id of the pi session header on the file's first line, or None (then the file is read whole first).

    Why: a streamed import must know which session it writes before the first row.
    """
    header = session_header(path)
    session_id = header.get("id") if header is not None else None
    return session_id if isinstance(session_id, str) else None


def _path_total(path_index: dict[str, int], counts: dict[str, int]) -> int | None:
    """The chars4 total of the path's counted entries, as `refresh_total` sums it (None when none is counted)."""
    counted = [counts[entry_id] for entry_id in path_index if entry_id in counts]
    return sum(counted) if counted else None


def _no_longer(row: Row, path: Path) -> bool:
    """Whether the file is no longer than the stored one (`_grown_from` then says not grown: the import replaces it)."""
    try:
        return row["source_size"] is not None and path.stat().st_size <= row["source_size"]
    except OSError:
        return False


def _same_fingerprint(row: Row, session: Session) -> bool:
    return (
        session.source_sha256 is not None
        and row["source_sha256"] == session.source_sha256
        and row["source_size"] == session.source_size
    )


def _report(row: Row, *, unchanged: bool, problems: list[Problem] | None = None) -> ImportReport:
    if problems is None:
        # the stored list, as written by `PROBLEMS.dump_json`; an empty one read without building its schema
        problems = [] if row["problems_json"] == "[]" else PROBLEMS.validate_json(row["problems_json"])
    # the stored row's values are of the fields' types (text, integer, the problems' models): made without
    # validation, so an unchanged file's report builds no schema (the same model as `ImportReport(...)` makes)
    return ImportReport.model_construct(
        session_id=row["id"],
        name=display_name(row["name"], row["source_path"], row["id"]),
        format=row["format"],
        path=row["source_path"],
        added=0,
        total=row["entry_count"],
        unchanged=unchanged,
        problems=list(problems),
    )


class Importer:
    """Writes sessions and their entries: the only writer of the sessions and entries tables."""

    def __init__(self, database: StoreDatabase, sessions: Sessions, counts: TokenCounts) -> None:
        self._db = database
        self._sessions = sessions
        self._counts = counts

    # -- the three ways in ---------------------------------------------------

    def import_file(
        self, path: Path | str, *, count_tokens: bool = True, progress: ImportProgress | None = None
    ) -> ImportReport:
        """Read a session file and import it; an unchanged file is recognized without parsing it.

        With `count_tokens`, each entry's chars4 count is made as it is read and cached in
        the import's transaction: `ls` and the sessions screen show a total at once.
        `progress`, when given, is told how far the reading has come and when the writing starts.
        """
        resolved = _existing_file(path)
        report = self._unchanged_file(resolved)
        if report is not None:
            return report
        if not is_store_ref(resolved):
            report = self._import_new_streamed(resolved, count_tokens, progress)
            if report is None:
                report = self._import_new_streamed(resolved, count_tokens, progress, replacing=True)
            if report is not None:
                if _file_size(resolved) >= TRIM_AT_BYTES:
                    give_back_freed_memory()  # the file's lines, freed: not kept for what runs next
                return report
        from cutline.core.agents import read_session

        # the entries stream from the reader into light rows and are dropped as they go:
        # memory stays near the file's text, not the ~8 KB per entry of a whole Session
        rows: list[EntryRow] = []
        counts: dict[str, int] = {}
        with no_cyclic_gc():
            sink = _counting(row_sink(rows), counts) if count_tokens else row_sink(rows)
            if progress is not None:
                sink = _reporting(sink, _file_size(resolved), progress)
            session = read_session(resolved, sink=sink, keep=False)
            if session.source_path is None:
                session.source_path = str(resolved)
            if progress is not None:
                progress("writing", 0, 0)
            return self._import(session, rows, (lambda: counts) if count_tokens else None, "chars4")

    def streams_pi_file(self, path: Path | str) -> bool:
        """Whether `path` is a pi session file (versions 1-3, a header with an id), which `import_file` streams when new.

        Why: a command that can work on the stored path (`Sessions.path_window`) imports
        such a file without keeping it; any other file is better read once and kept.
        """
        resolved = Path(path)
        if is_store_ref(resolved):
            return False
        header = session_header(resolved)
        return header is not None and isinstance(header.get("id"), str) and header.get("version") != 4

    def windowed_agent_file(self, path: Path | str) -> bool:
        """Whether `path` looks like a Claude Code or Codex file from its head (the first detected record's agent).

        Why: a plan or compaction of such a file works on its stored path (`Sessions.path_window`),
        so the file is imported (streamed when new) rather than read whole and kept. A file the
        head does not tell is read whole, as before; the stored format decides the window anyway.
        """
        from cutline.core.agents.formats import head_format

        resolved = Path(path)
        return not is_store_ref(resolved) and head_format(resolved) in ("claude_code", "codex")

    def import_and_read(
        self, path: Path | str, count: Callable[[Entry], int] | None = None, counter: str = "chars4"
    ) -> ImportedFile:
        """Read a session file once, import (or refresh) it, and keep the session as read; an unchanged file is loaded from its rows.

        With `count`, every entry is counted while the import is written (SQLite releases
        the GIL, so the writing thread and the counting overlap) and the counts are cached
        under `counter` in the import's transaction (unless the cache has them all). An
        unchanged file's counts are cached already: then nothing is counted (counts None).
        """
        resolved = _existing_file(path)
        from cutline.core.agents import read_session

        unchanged = self._unchanged_file(resolved)
        if unchanged is not None and not is_store_ref(resolved):
            # stored as it is: its rows rebuild the session as read (problems included) at a
            # third of a reading's cost (Claude Code 50k: 1.6 s against 4.5 s), and nothing is counted
            stored = self._sessions.load(unchanged.session_id)
            stored.source_path = stored.source_path or str(resolved)
            return ImportedFile(stored, unchanged, None)
        if count is not None and unchanged is not None:
            count = None  # the counts were cached when it was imported: nothing to count
        rows: list[EntryRow] = []
        counts: dict[str, int] | None = None
        with no_cyclic_gc():
            session = read_session(resolved, sink=row_sink(rows))
            if session.source_path is None:
                session.source_path = str(resolved)
            if count is None:
                report = self._import(session, rows)
            else:
                report, counts = self._import_while_counting(session, rows, count, counter)
            # as after a load: the session's objects outlive this call, and the first
            # collection after the pause would otherwise walk all of them (about a second)
            freeze_if_big(len(session.entries))
        session.id = report.session_id
        return ImportedFile(session, report, counts)

    def import_session(self, session: Session) -> ImportReport:
        """Store a session in one transaction: insert it, add what a grown file appended, or replace a changed one."""
        with no_cyclic_gc():
            return self._import(session, [entry_row(entry, entry) for entry in session.entries])

    # -- deciding and writing ------------------------------------------------

    def _import_new_streamed(
        self, path: Path, count_tokens: bool, progress: ImportProgress | None, *, replacing: bool = False
    ) -> ImportReport | None:
        """A new file imported as it is read: a pi file (its header names the session) or one whose agent `streams`.

        None when the file is stored already, or is read whole (another agent, or what
        the reading found did not allow it: then nothing was written). With `replacing`,
        a stored file that is no longer than it was instead (see `_import_streamed`).
        """
        from cutline.core.agents import read_session, read_streamed, stream_peek

        header_id = _header_id(path)
        if header_id is not None:
            return self._import_streamed(
                path,
                header_id,
                count_tokens,
                progress,
                lambda sink, _: read_session(path, sink=sink, keep=False),
                replacing=replacing,
            )
        peek = stream_peek(path)
        if peek is None:
            return None
        adapter = peek.adapter
        if adapter.format == "claude_code" and not replacing:
            grown = self._import_grown_streamed(
                path,
                peek.session_id,
                count_tokens,
                progress,
                lambda sink, writer: read_streamed(path, adapter, sink=sink, amend=writer.amend),
                adapter.path_guess(),
            )
            if grown is not None:
                return grown
        return self._import_streamed(
            path,
            peek.session_id,
            count_tokens,
            progress,
            lambda sink, writer: read_streamed(path, adapter, sink=sink, amend=writer.amend),
            adapter.format,
            adapter.path_guess(),
            replacing=replacing,
        )

    def _import_streamed(
        self,
        path: Path,
        header_id: str,
        count_tokens: bool,
        progress: ImportProgress | None,
        read: Callable[[EntrySink, StreamedRows], Session],
        format: str = "pi",
        guess: PathGuess | None = None,
        *,
        replacing: bool = False,
    ) -> ImportReport | None:
        """Import a file the store has never seen, writing its rows as it is read; None when it is not new (or not as peeked).

        `read` reads the file into the sink (the rows' writer is given too, for the rows
        the end of the reading changes). The transaction is open for the whole read: a
        crash or an error leaves no trace, and a second process importing the same file
        waits, then finds it stored. A reading that raises `NotStreamable` is rolled back.

        With `replacing`: a stored file that is no longer than it was (undo cut it back to
        what it was before a write-back), which the whole-file import replaces (it cannot
        have grown): its rows and counts are dropped and the file's written as a new one's,
        in the same transaction, under its stored id; None when it is no such file. Why:
        `undo` of a 50,000-record Claude Code write-back read the cut-back file whole (~780 MB).
        """
        from cutline.core.agents import NotStreamable

        source = str(path)
        counts: dict[str, int] = {}
        try:
            with no_cyclic_gc(), self._db.transaction() as conn:
                now = utc_now()
                if replacing:
                    row = self._stored_row(header_id, source)
                    if row is None or not _no_longer(row, path):
                        return None
                    store_id = row["id"]
                    conn.execute("DELETE FROM entries WHERE session_id = ?", (store_id,))
                    self._counts.forget(conn, store_id)
                elif self._sessions.rows_for_path(source) or self._existing_by_id(header_id, source) is not None:
                    return None  # stored before: the whole-file import decides between grown and replaced
                else:
                    store_id = self._new_store_id_for(header_id, source)
                    conn.execute(
                        "INSERT INTO sessions (id, format, imported_at, updated_at) VALUES (?, ?, ?, ?)",
                        (store_id, format, now, now),
                    )

                def as_peeked(session: Session) -> None:
                    if session.id != header_id:
                        raise _NotAsPeeked

                writer, session, total = self._stream_rows(
                    conn, store_id, path, read, guess, counts, count_tokens, progress, as_peeked
                )
                self._update_session_row(conn, store_id, session, now, total)
                if counts:
                    # a new (or replaced) session: no counts were cached before, and its path total needs no query
                    # (summing the path's cached counts in SQL cost ~0.5 s per 100,000 entries)
                    self._counts.save_unless_cached(conn, store_id, "chars4", counts, refresh=False)
                path_tokens = _path_total(writer.path_index, counts)
                conn.execute("UPDATE sessions SET path_tokens = ? WHERE id = ?", (path_tokens, store_id))
        except (_NotAsPeeked, NotStreamable):
            return None  # rolled back; read whole instead
        return ImportReport(
            session_id=store_id,
            name=display_name(session.name, session.source_path, store_id),
            format=session.format,
            path=session.source_path,
            added=total,
            total=total,
            replaced=replacing,
            problems=session.problems,
        )

    def _import_grown_streamed(
        self,
        path: Path,
        session_id: str,
        count_tokens: bool,
        progress: ImportProgress | None,
        read: Callable[[EntrySink, StreamedRows], Session],
        guess: PathGuess | None,
    ) -> ImportReport | None:
        """A stored file that grew, its new records written as it is read; None when it is not such a file (nothing written).

        Why: the whole-file re-import held every record's row (~720 MB at 50,000 Claude Code
        records) to compare the keys and insert the tail. Here the old part's records are
        only compared with the stored keys as they come (their rows are kept as stored, as
        that import keeps them), the new ones are written as `_import_streamed` writes a new
        file's, and the end of the reading's changes rewrite the new rows and recount the old
        ones. What the whole-file import would call replaced rolls back (`NotGrown`) and is
        read whole, as is a file whose old end had no newline (its last record is compared).
        """
        from cutline.core.agents import NotStreamable

        source = str(path)
        counts: dict[str, int] = {}
        try:
            with no_cyclic_gc(), self._db.transaction() as conn:
                row = self._stored_row(session_id, source)
                if row is None or not self._may_have_grown(row, path):
                    return None
                store_id: str = row["id"]
                stored = [
                    key
                    for (key,) in conn.execute("SELECT id FROM entries WHERE session_id = ? ORDER BY seq", (store_id,))
                ]

                def as_grown(session: Session) -> None:
                    if (
                        session.id != session_id
                        or session.source_size is None
                        or session.source_size <= row["source_size"]
                        or session.header_line != row["header_line"]
                    ):
                        raise NotGrown

                writer, session, total = self._stream_rows(
                    conn, store_id, path, read, guess, counts, count_tokens, progress, as_grown, stored
                )
                self._update_session_row(conn, store_id, session, utc_now(), total)
                if counts:
                    self._counts.save_unless_cached(conn, store_id, "chars4", counts, refresh=False)
                self._counts.refresh_total(conn, store_id)  # grown: the path or its cached counts changed
        except (NotStreamable, CutlineError):
            return None  # rolled back; read whole instead (which decides grown or replaced, or raises)
        return ImportReport(
            session_id=store_id,
            name=display_name(session.name, session.source_path, store_id),
            format=session.format,
            path=session.source_path,
            added=total - writer.start,
            total=total,
            grown=True,
            problems=session.problems,
        )

    def _stream_rows(
        self,
        conn: sqlite3.Connection,
        store_id: str,
        path: Path,
        read: Callable[[EntrySink, StreamedRows], Session],
        guess: PathGuess | None,
        counts: dict[str, int],
        count_tokens: bool,
        progress: ImportProgress | None,
        check: Callable[[Session], None],
        stored: list[str] | None = None,
    ) -> tuple[StreamedRows, Session, int]:
        """Read `path` into rows written as they come (after the `stored` keys, for a grown file): (writer, session, rows).

        `check` raises when the session read is not the one the caller peeked (its transaction then rolls back).
        """
        writer = StreamedRows(
            conn, store_id, lambda conn, batch: self._insert_entry_rows(conn, batch), _ENTRY_BATCH, guess, stored
        )
        sink: EntrySink = _counting(writer, counts) if count_tokens else writer
        size = _file_size(path)
        if progress is not None:
            sink = _reporting(sink, size, progress)
        with _bulk_cache(conn, _BULK_ROWS if size >= _BULK_BYTES else 0):
            session = read(sink, writer)
            check(session)
            if progress is not None:
                progress("writing", 0, 0)
            total = writer.finish(session.leaf_id, _recount(counts) if count_tokens else None)
        return writer, session, total

    @staticmethod
    def _may_have_grown(row: Row, path: Path) -> bool:
        """`_grown_from`'s checks that need no reading: the file is longer and begins with the stored file's bytes."""
        old_size = row["source_size"]
        if old_size is None or row["source_sha256"] is None or not row["trailing_newline"]:
            return False
        try:
            return bool(path.stat().st_size > old_size and file_sha256(path, old_size) == row["source_sha256"])
        except OSError:
            return False

    def _import_while_counting(
        self, session: Session, rows: list[EntryRow], count: Callable[[Entry], int], counter: str
    ) -> tuple[ImportReport, dict[str, int] | None]:
        """`_import` on a writing thread while this one counts the entries; the counts join its transaction."""
        handoff: queue.Queue[dict[str, int] | None] = queue.Queue()
        reports: list[ImportReport] = []
        errors: list[BaseException] = []

        def write() -> None:
            try:
                reports.append(self._import(session, rows, handoff.get, counter))
            except BaseException as exc:
                errors.append(exc)

        writer = threading.Thread(target=write, name="cutline-import", daemon=True)
        writer.start()
        counts: dict[str, int] | None = None
        try:
            counts = {entry.id: count(entry) for entry in session.entries}
        finally:
            handoff.put(counts)  # None (nothing cached) when counting failed
            writer.join()
        if errors:
            raise errors[0]
        return reports[0], counts

    def _unchanged_file(self, path: Path) -> ImportReport | None:
        """The stored session's report when the file holds the bytes it was read from, else None.

        Its bytes are hashed unless its status is the one recorded the last time they were
        (`stat_key`): a write changes the changed-time, which no program sets; a status is
        recorded only once that time is `SETTLED_NS` old, so a write within the clock's tick
        after the hash cannot go unseen (as git's racy-clean rule).
        """
        rows = self._sessions.rows_for_path(str(path))
        row = rows[0] if rows else None
        if row is None or row["source_size"] is None or row["source_sha256"] is None:
            return None
        try:
            before = path.stat()
            if before.st_size != row["source_size"]:
                return None
            key = stat_key(before)
            if row["source_stat"] == key:
                return _report(row, unchanged=True)
            if file_sha256(path) != row["source_sha256"]:
                return None
            after = path.stat()
        except OSError:
            return None
        if stat_key(after) == key and settled(after):
            self._sessions.record_source_stat(row["id"], row["source_sha256"], key)
        return _report(row, unchanged=True)

    def _import(
        self,
        session: Session,
        rows: list[EntryRow],
        counts: CountsSource | None = None,
        counter: str = "chars4",
    ) -> ImportReport:
        """Store a session's header facts and its entry rows (see `entry_row`) in one transaction.

        `counts`, when given, is called once the entries are written (it may wait for them
        to be counted) and what it returns is cached under `counter` in the same transaction.
        """
        with no_cyclic_gc():
            ids = [entry_row[0] for entry_row in rows]
            keys = keys_of(ids)
            path_index = path_index_of(ids, [entry_row[1] for entry_row in rows], session.leaf_id)
            # deciding what to do happens inside the write transaction, so two processes
            # importing the same file cannot both decide to insert it
            with self._db.transaction() as conn:
                row = self._existing_row(session)
                if row is not None and _same_fingerprint(row, session):
                    self._cache_counts(conn, row["id"], counter, counts)
                    return _report(row, unchanged=True, problems=session.problems)
                now = utc_now()
                store_id: str = row["id"] if row is not None else self._new_store_id(session)
                start = self._grown_from(conn, row, session, keys, rows) if row is not None else None
                if row is None:
                    self._insert_session_row(conn, store_id, session, now)
                elif start is not None:
                    # the old rows' places; the new rows are inserted below with theirs
                    reindex_kept(conn, store_id, start, keys[:start], path_index)
                else:
                    conn.execute("DELETE FROM entries WHERE session_id = ?", (store_id,))
                    self._counts.forget(conn, store_id)
                added = self._insert_entries(conn, store_id, rows, keys=keys, start=start or 0, path_index=path_index)
                total = len(rows)
                self._update_session_row(conn, store_id, session, now, total)
                made = self._cache_counts(conn, store_id, counter, counts, refresh=False)
                if start is None:
                    # new or replaced: its cached counts are `made` alone (none were kept), so its path
                    # total needs no query (the query, twice here before, cost ~0.35 s each at 50,000 entries)
                    total_tokens = _path_total(path_index, made) if made and counter == "chars4" else None
                    conn.execute("UPDATE sessions SET path_tokens = ? WHERE id = ?", (total_tokens, store_id))
                else:
                    self._counts.refresh_total(conn, store_id)  # grown: the path or its cached counts changed
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

    def _cache_counts(
        self,
        conn: sqlite3.Connection,
        store_id: str,
        counter: str,
        counts: CountsSource | None,
        *,
        refresh: bool = True,
    ) -> dict[str, int] | None:
        """Cache the counts `counts` makes (unless all are cached) and return them; `refresh=False` leaves the path total to the caller."""
        made = counts() if counts is not None else None
        if made:
            self._counts.save_unless_cached(conn, store_id, counter, made, refresh=refresh)
        return made

    def _existing_row(self, session: Session) -> Row | None:
        """The stored session this one updates: the same file, else the same id from no other file."""
        return self._stored_row(session.id, session.source_path)

    def _stored_row(self, session_id: str, source_path: str | None) -> Row | None:
        if source_path:
            for row in self._sessions.rows_for_path(source_path):
                if row["id"] == session_id or row["id"].startswith(f"{session_id}-"):
                    return row
        return self._existing_by_id(session_id, source_path)

    def _existing_by_id(self, session_id: str, source_path: str | None) -> Row | None:
        """The stored session with this id when it came from no file (or this one has none)."""
        by_id = self._sessions.row(session_id)
        if by_id is not None and (by_id["source_path"] is None or source_path is None):
            return by_id
        return None

    def _new_store_id(self, session: Session) -> str:
        """The session's own id, or, when another file already holds that id, the id plus a hash of this file's path."""
        return self._new_store_id_for(session.id, session.source_path)

    def _new_store_id_for(self, session_id: str, source_path: str | None) -> str:
        if not self._sessions.exists(session_id):
            return session_id
        suffix = hashlib.sha256((source_path or "").encode()).hexdigest()
        for width in (8, 16, 64):
            candidate = f"{session_id}-{suffix[:width]}"
            if not self._sessions.exists(candidate):
                return candidate
        raise CutlineError(f"{source_path}: session {session_id} is already stored from this file")

    @staticmethod
    def _grown_from(
        conn: sqlite3.Connection, row: Row, session: Session, keys: list[str], rows: list[EntryRow]
    ) -> int | None:
        """How many leading entries a grown file shares with the stored session, or None when it changed otherwise."""
        old_size, new_size = row["source_size"], session.source_size
        if old_size is None or new_size is None or new_size <= old_size or not session.source_path:
            return None
        if row["source_sha256"] is None or row["header_line"] != session.header_line:
            return None
        from_store = is_store_ref(session.source_path)
        if not from_store:
            try:
                if file_sha256(Path(session.source_path), old_size) != row["source_sha256"]:
                    return None
            except OSError:
                return None
        # the keys alone: a raw line is read back only where it is compared (reading every one back held
        # the old file's text again, ~110 MB for 50,000 Claude Code records, to compare none of them)
        old: list[str] = [
            key for (key,) in conn.execute("SELECT id FROM entries WHERE session_id = ? ORDER BY seq", (row["id"],))
        ]
        if len(old) > len(keys) or old != keys[: len(old)]:
            return None
        # a store has no byte prefix to compare: its earlier events must be the same events
        if from_store and any(
            raw != rows[i][6]
            for i, (raw,) in enumerate(
                conn.execute("SELECT raw FROM entries WHERE session_id = ? ORDER BY seq", (row["id"],))
            )
        ):
            return None
        # an appended tail can only change the old last record if the old file did not end with a newline
        if old and not row["trailing_newline"]:
            (last_raw,) = conn.execute(
                "SELECT raw FROM entries WHERE session_id = ? ORDER BY seq DESC LIMIT 1", (row["id"],)
            ).fetchone()
            if last_raw != rows[len(old) - 1][6]:
                return None
        return len(old)

    @staticmethod
    def _insert_session_row(conn: sqlite3.Connection, store_id: str, session: Session, now: str) -> None:
        """A new session's row; `_update_session_row` fills in the rest in the same transaction."""
        conn.execute(
            "INSERT INTO sessions (id, format, imported_at, updated_at) VALUES (?, ?, ?, ?)",
            (store_id, session.format, now, now),
        )

    @staticmethod
    def _update_session_row(conn: sqlite3.Connection, store_id: str, session: Session, now: str, total: int) -> None:
        conn.execute(
            "UPDATE sessions SET name = ?, format = ?, version = ?, source_path = ?, source_size = ?, source_sha256 = ?,"
            " source_stat = NULL, header_line = ?, newline = ?, trailing_newline = ?, leaf_id = ?, cwd = ?, updated_at = ?,"
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
                PROBLEMS.dump_json(session.problems).decode(),
                json.dumps(session.header),
                store_id,
            ),
        )

    def _insert_entries(
        self,
        conn: sqlite3.Connection,
        store_id: str,
        entry_rows: list[EntryRow],
        *,
        keys: list[str],
        start: int,
        path_index: dict[str, int],
    ) -> int:
        """Insert `entry_rows[start:]` in batches, letting each go once handed over; returns how many were inserted.

        Why let go: sqlite3 binds a `str` through its UTF-8 form, which CPython then
        keeps on the string; a session's raw lines and models held to the end of the
        insert grew by their UTF-8 size (every non-ASCII line), ~140 MB more at the peak
        of a 50,000-record Claude Code import. The list keeps its length.
        """

        def rows() -> Iterator[StoredRow]:
            index_of = path_index.get
            for seq in range(start, len(entry_rows)):
                _, parent_id, kind, role, timestamp, line, raw, payload, facts = entry_rows[seq]
                entry_rows[seq] = _HANDED_OVER
                key = keys[seq]
                stored = payload if isinstance(payload, (str, bytes)) else stored_model(payload)
                yield (store_id, key, seq, line, parent_id, kind, role, index_of(key), timestamp, raw, stored, facts)

        added = 0
        with _bulk_cache(conn, len(entry_rows) - start):
            for batch in _batched(rows(), _ENTRY_BATCH):
                self._insert_entry_rows(conn, batch)
                added += len(batch)
        return added

    def _insert_entry_rows(self, conn: sqlite3.Connection, batch: Sequence[StoredRow]) -> None:
        conn.executemany(_INSERT_ENTRY, batch)
