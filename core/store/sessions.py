"""Stored sessions read back: the session list, naming a session by id / prefix / name / file, and rebuilding its entries.

The importer writes these tables; this repository only reads them. Entries are
rebuilt from their stored model (or, for pi message lines, from the raw line
alone), so a session loads without re-reading its file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ConfigDict, TypeAdapter

from cutline.core.agents.light import LightEntry
from cutline.core.agents.path_columns import PathColumns
from cutline.core.agents.path_window import LazyEntries, PathWindow, window_start
from cutline.core.errors import CutlineError, NotFoundError
from cutline.core.models import Entry, Problem, Session
from cutline.core.store.db import Row, StoreDatabase
from cutline.core.store.like import like_prefix
from cutline.core.store.listing import LIST_SESSIONS, SessionInfo, display_name, session_info
from cutline.core.store.memory import freeze_if_big, no_cyclic_gc
from cutline.core.store.rows import entry_from_row, light_or_entry_from_model_row, light_or_entry_from_row

_Built = TypeVar("_Built")

# built at its first use, not at import: a command that reads no stored problem builds no pydantic schema for it
# (a warm `tokens` then builds none at all, and pydantic's plugin loader, ~25 ms of imports, never runs)
PROBLEMS = TypeAdapter(list[Problem], config=ConfigDict(defer_build=True))

# the active path's ids, types, roles and facts, and whether a user message's line may set isMeta
# (the key spelled out or with a \u escape somewhere in the line); CASE reads the line of user rows only.
# `GLOB '*needle*'` rather than `instr(...) > 0`: the same answer (see `_PLAIN_CASE`: no needle holds GLOB's `*?[`,
# both match case by case, a stored line is JSON and holds no NUL), and GLOB skips to the needle's first character
_PATH_COLUMNS = r"""
    SELECT id, type, role, facts,
        CASE WHEN type = 'message' AND role = 'user' THEN raw GLOB '*isMeta*' OR raw GLOB '*\u*' ELSE 0 END
    FROM entries WHERE session_id = ? AND path_index IS NOT NULL ORDER BY path_index
"""

# the same for the formats read by their own readers (Claude Code's, Codex's), which set isMeta from what a record is
# (a rendered attachment, an injected message) rather than from a key of its line: the stored model says it
_PATH_COLUMNS_BY_MODEL = r"""
    SELECT id, type, role, facts,
        CASE WHEN type = 'message' AND role = 'user' THEN model_json GLOB '*"isMeta":true*' ELSE 0 END
    FROM entries WHERE session_id = ? AND path_index IS NOT NULL ORDER BY path_index
"""


# the active path's ids, types and facts, and whether each entry is plain for a planner (`PathWindow.plain`):
# a user, assistant or toolResult message, a user's line and model without `image` (nor a \u escape that
# could spell it): only a user's images make current pi's estimate differ from the stored chars4 count;
# and no `continuesMessage` (core.agents.boundaries: such a record is never a cut point, which the facts do not say)
# a byte per entry: 1 where a planner may take it from its facts and count alone (`PathWindow.plain`)
# A toolResult message is plain whatever its line holds: its facts are never a cut point nor a turn start, with or
# without `continuesMessage` (the planners' cut roles leave toolResult out), and its images do not change pi's
# estimate, so the \u escapes that could spell either do not matter (its lines were ~36% of a 100k file's bytes).
# Each test is `GLOB '*needle*'`, not `instr(...) = 0`: the same answer (a needle without GLOB's `*?[`, matched
# case by case as instr does; a stored line is JSON, which holds no NUL byte, where GLOB would stop), and SQLite's
# GLOB skips to the needle's first character where instr compares at every byte: this query reads every message's
# line, ~100 MB at 100,000 entries, and the cold plan's window query went from ~0.27 to ~0.17 s CPU
_PLAIN_CASE = r"""CASE WHEN type = 'message' AND role = 'toolResult' THEN 1
        WHEN type = 'message' AND role IN ('assistant', 'user')
            AND raw NOT GLOB '*continuesMessage*' AND raw NOT GLOB '*\u*'
            AND coalesce(model_json, '') NOT GLOB '*continuesMessage*' AND coalesce(model_json, '') NOT GLOB '*\u*'
            AND (role <> 'user' OR (raw NOT GLOB '*image*' AND coalesce(model_json, '') NOT GLOB '*image*'))
        THEN 1 ELSE 0 END"""

_PATH_WINDOW = (
    "SELECT id, type, facts, "
    + _PLAIN_CASE
    + " FROM entries WHERE session_id = ? AND path_index IS NOT NULL ORDER BY path_index"
)
# the same for Claude Code and Codex rows: an assistant or toolResult message is plain whether or not it continues a
# message, since their facts are made from the final model, continuation marks included (`entry_facts`: such a
# record is no CUT_POINT; a stream's amended rows get new facts), and only a user's images change pi's estimate
# (Claude Code 50k: 3,529 continued assistant records no longer rebuilt for a plan)
# An `other` record (an attachment, a snapshot, an event) gives the model nothing and edits nothing: 2, silent
# (`PathWindow.plain`), unless its model names a context_edit (a record of that type name in a file) or has a \u escape
_PATH_WINDOW_BY_MODEL = (
    "SELECT id, type, facts, CASE WHEN type = 'message' AND role IN ('assistant', 'toolResult') THEN 1"
    r" WHEN type = 'other' AND coalesce(model_json, '') NOT GLOB '*context_edit*'"
    r" AND coalesce(model_json, '') NOT GLOB '*\u*' AND coalesce(model_json, '') <> '' THEN 2 ELSE "
    + _PLAIN_CASE
    + " END FROM entries WHERE session_id = ? AND path_index IS NOT NULL ORDER BY path_index"
)


# the path's rows that may show current pi wrote it (`is_current_pi`): a system message, a compaction naming systemMessage
_CURRENT_PI_ROWS = """
    SELECT type, CASE WHEN type = 'compaction' THEN raw END FROM entries
    WHERE session_id = ? AND path_index IS NOT NULL
        AND ((type = 'message' AND role = 'system') OR (type = 'compaction' AND instr(raw, '"systemMessage"') > 0))
    ORDER BY path_index
"""

# rows of a long read fetched per hold of the store's lock (rebuilt as entries outside it)
_ROWS_PER_LOCK = 512

# the session formats read by pi's reader (`read_pi`), whose flags `Sessions.path_columns` can tell from the columns
_READ_BY_PI = frozenset({"pi", "openclaw"})
# the formats whose stored models tell every flag `Sessions.path_columns` reads that the facts do not hold
_COLUMNS_BY_MODEL = frozenset({"claude_code", "codex"})
# the formats whose stored path `path_window` windows (their readers put their agents' context rules in the neutral model)
_WINDOWED = frozenset({"pi", "claude_code", "codex"})
# a row's raw line as an entry read for a plan, a summary or an audit of a Claude Code or Codex path needs it: a
# message or `other` entry with its model stored is rebuilt without its line (only their write-back and export read
# those lines, from the whole session; Claude Code 50k: ~75 MB of attachment lines held by a plan); any other keeps it
_RAW_LINE = "raw"
_RAW_LINE_BY_MODEL = "CASE WHEN type IN ('message', 'other') AND coalesce(model_json, '') <> '' THEN '' ELSE raw END"


class AmbiguousSessionError(NotFoundError):
    """A session reference matches more than one stored session."""


def _names(row: Row) -> set[str]:
    """What a person may call a stored session: its display name and its file's stem."""
    names = {display_name(row["name"], row["source_path"], row["id"])}
    if row["source_path"]:
        names.add(Path(row["source_path"]).stem)
    return names


def _candidate(row: Row) -> str:
    """One session of an ambiguity error: its id, name and source file, so the user can pick it."""
    name = display_name(row["name"], row["source_path"], row["id"])
    return f"{row['id']} ({name}: {row['source_path']})" if row["source_path"] else f"{row['id']} ({name})"


def _ambiguous(how: str, ref: str, matches: list[Row]) -> AmbiguousSessionError:
    """The refusal of a reference several sessions fit, listing them (ten at most) so the user can pick one."""
    listed = ", ".join(_candidate(row) for row in sorted(matches, key=lambda r: r["id"])[:10])
    more = f" and {len(matches) - 10} more" if len(matches) > 10 else ""
    return AmbiguousSessionError(
        f"{how} {ref!r} matches {len(matches)} sessions: {listed}{more}; name one by its full id or its file path"
    )


def session_from_row(row: Row, entries: list[Entry]) -> Session:
    """A session from its stored row and its entries (as read, without validation)."""
    return Session.model_construct(
        id=row["id"],
        format=row["format"],
        version=row["version"],
        source_path=row["source_path"],
        name=row["name"],
        cwd=row["cwd"],
        header=json.loads(row["header_json"]),
        header_line=row["header_line"],
        entries=entries,
        leaf_id=row["leaf_id"],
        problems=PROBLEMS.validate_json(row["problems_json"]),
        newline=row["newline"],
        trailing_newline=bool(row["trailing_newline"]),
        source_size=row["source_size"],
        source_sha256=row["source_sha256"],
    )


class Sessions:
    """The sessions and entries tables, read: lists, lookups by reference, and whole sessions or parts of their path."""

    def __init__(self, database: StoreDatabase) -> None:
        self._db = database

    # -- rows ----------------------------------------------------------------

    def row(self, session_id: str) -> Row | None:
        """The stored row of a session, by its exact id."""
        return self._db.one("SELECT * FROM sessions WHERE id = ?", (session_id,))

    def rows_for_path(self, source_path: str) -> list[Row]:
        """Rows of the sessions imported from this file, most recently updated first."""
        return self._db.rows("SELECT * FROM sessions WHERE source_path = ? ORDER BY updated_at DESC", (source_path,))

    def record_source_stat(self, session_id: str, sha256: str, key: str) -> None:
        """Record the file status under which the session's file was just hashed as its stored bytes (`sha256`).

        Only on the row that still has those bytes (an import in between may have read others), and only if the
        store is free now: a command that only reads never waits to record it.
        """
        self._db.write_if_free(
            "UPDATE sessions SET source_stat = ? WHERE id = ? AND source_sha256 = ?", (key, session_id, sha256)
        )

    def exists(self, session_id: str) -> bool:
        """Whether a session with exactly this id is stored."""
        return self._db.one("SELECT id FROM sessions WHERE id = ?", (session_id,)) is not None

    # -- listing and naming -----------------------------------------------

    def resolve(self, ref: str) -> str:
        """The id of the session `ref` names: an exact id, an exact name, its source file's path, or a unique prefix.

        An exact id wins, then an exact name (a file's stem counts as one), then the file's
        path; only then are id prefixes and name prefixes tried, together. Why: a bare name
        must not open another session whose id happens to start with it. A reference that
        fits several sessions at the first level it matches is refused with the candidates.
        """
        ref = ref.strip()
        if not ref:
            raise NotFoundError("no session given")
        rows = self._db.rows("SELECT id, name, source_path, updated_at FROM sessions ORDER BY updated_at DESC")
        if any(row["id"] == ref for row in rows):
            return ref
        by_prefix = [row for row in rows if row["id"].startswith(ref)]
        by_name = [row for row in rows if ref in _names(row)]
        if len(by_name) == 1:
            return str(by_name[0]["id"])
        if len(by_name) > 1:
            named = {row["id"] for row in by_name}
            others = [row for row in by_prefix if row["id"] not in named]
            raise _ambiguous("name", ref, by_name + others)
        try:
            as_path = str(Path(ref).expanduser().resolve())
        except (OSError, RuntimeError):
            as_path = ref
        by_path = [row for row in rows if row["source_path"] in (ref, as_path)]
        if by_path:
            return str(by_path[0]["id"])
        by_name_prefix = [row for row in rows if any(name.startswith(ref) for name in _names(row))]
        prefixed = {row["id"] for row in by_prefix}
        candidates = by_prefix + [row for row in by_name_prefix if row["id"] not in prefixed]
        if len(candidates) == 1:
            return str(candidates[0]["id"])
        if candidates:
            how = "id prefix" if not by_name_prefix else "name prefix" if not by_prefix else "id or name prefix"
            raise _ambiguous(how, ref, candidates)
        raise NotFoundError(f"no stored session matches {ref!r} (try `cutline ls`)")

    def info(self, ref: str) -> SessionInfo:
        """The list row of one session."""
        session_id = self.resolve(ref)
        row = self._db.one(LIST_SESSIONS + " WHERE s.id = ?", (session_id,))
        if row is None:
            raise NotFoundError(f"no stored session matches {ref!r}")
        return session_info(row)

    # -- entries -------------------------------------------------------------

    def load(self, ref: str) -> Session:
        """Rebuild a stored session (all branches, in file order) from its serialized entries."""
        session_id = self.resolve(ref)
        with self._db.reading() as conn, no_cyclic_gc():
            row = self.row(session_id)
            if row is None:
                raise NotFoundError(f"no stored session matches {ref!r}")
            cursor = conn.execute(
                "SELECT model_json, raw, line FROM entries WHERE session_id = ? ORDER BY seq", (session_id,)
            )
            entries = [entry_from_row(model_json, raw, line) for model_json, raw, line in cursor]
            freeze_if_big(len(entries))
        return session_from_row(row, entries)

    def header(self, session_id: str) -> Session:
        """A stored session's header facts without its entries (a view that reads entries as it needs them)."""
        row = self.row(session_id)
        if row is None:
            raise NotFoundError(f"no stored session matches {session_id!r}")
        return session_from_row(row, [])

    def fingerprint(self, session_id: str) -> str | None:
        """The SHA-256 of the session file as last imported (None when unknown)."""
        row = self._db.one("SELECT source_sha256 FROM sessions WHERE id = ?", (session_id,))
        return str(row["source_sha256"]) if row is not None and row["source_sha256"] is not None else None

    def path_entry_ids(self, session_id: str) -> list[str]:
        """Ids of the active path, root first, as stored."""
        with self._db.reading() as conn:
            cursor = conn.execute(
                "SELECT id FROM entries WHERE session_id = ? AND path_index IS NOT NULL ORDER BY path_index",
                (session_id,),
            )
            return [row[0] for row in cursor]

    def path_length(self, session_id: str) -> int:
        """How many entries the stored active path has (read from the path index, no entry is rebuilt)."""
        with self._db.reading() as conn:
            row = conn.execute(
                "SELECT count(*) FROM entries WHERE session_id = ? AND path_index IS NOT NULL", (session_id,)
            ).fetchone()
        return int(row[0])

    def path_facts(
        self, session_id: str, counter: str = "chars4", *, plain: bytearray | None = None
    ) -> tuple[list[str], list[str], list[str | None], list[int | None]]:
        """Ids, types, stored index facts (core.agents.index_facts) and cached `counter` counts of the active path, root first.

        A fact or a count is None where none is stored. One query: a view of a long path
        needs all four and each pass over 100,000 rows costs a few hundred milliseconds.
        With `plain`, it receives a byte per entry: 1 where a planner may take the entry
        from its facts and count alone (`PathWindow.plain`, the same test as `path_window`'s).
        """
        ids: list[str] = []
        kinds: list[str] = []
        facts: list[str | None] = []
        counts: list[int | None] = []
        marks = plain if plain is not None else bytearray()
        mark = marks.append
        with self._db.reading() as conn:
            cursor = conn.execute(
                "SELECT e.id, e.type, e.facts, t.tokens, "
                + (_PLAIN_CASE if plain is not None else "0")
                + " FROM entries e LEFT JOIN token_counts t"
                " ON t.session_id = e.session_id AND t.entry_id = e.id AND t.counter = ?"
                " WHERE e.session_id = ? AND e.path_index IS NOT NULL ORDER BY e.path_index",
                (counter, session_id),
            )
            for entry_id, kind, fact, tokens, is_plain in cursor:  # row by row: no list of 100,000 row tuples on top
                ids.append(entry_id)
                kinds.append(kind)
                facts.append(fact)
                counts.append(tokens)
                mark(is_plain)
        return ids, kinds, facts, counts

    def path_entries(
        self, session_id: str, start: int = 0, stop: int | None = None, *, by_model: bool = False
    ) -> list[Entry]:
        """The entries at positions [start, stop) of the active path, rebuilt without loading the rest of the session.

        Why: a view of a long session needs only the rows on screen; the path index is stored per entry.
        The rows are fetched under the store's lock `_ROWS_PER_LOCK` at a time and rebuilt
        outside it (one statement, so one snapshot): a run reading 100,000 entries held the
        lock for the whole rebuild, and the desk's list, reading the rows coming into view,
        waited (PageUp 19.7 s during a run). With `by_model` (a Claude Code or Codex
        path), a message or `other` entry comes without its raw line (`_RAW_LINE_BY_MODEL`).
        """
        line_of = _RAW_LINE_BY_MODEL if by_model else _RAW_LINE
        return self._path_rows(session_id, start, stop, line_of, entry_from_row)

    def path_light_entries(
        self, session_id: str, positions: list[int], *, by_model: bool = False
    ) -> list[Entry | LightEntry]:
        """The entries at these (ascending) positions of the active path, as `path_entries` rebuilds them, but a light
        entry for each message msgspec reads: a pi message line (`light_or_entry_from_row`), or with `by_model` a
        Claude Code or Codex message's stored model (`light_or_entry_from_model_row`).

        For a reader of the messages' values only (the extractive summary's walk over the span).
        Only the rows asked for are built: a stretch's rows in between (a Claude Code or Codex
        record that gives no message) are skipped, and sparse positions are read by position.
        """
        if not positions:
            return []
        line_of, build = (
            (_RAW_LINE_BY_MODEL, light_or_entry_from_model_row) if by_model else (_RAW_LINE, light_or_entry_from_row)
        )
        lo, hi = positions[0], positions[-1] + 1
        found: dict[int, Entry | LightEntry] = {}
        if hi - lo <= 2 * len(positions):
            wanted = set(positions)
            rows = self._locked_rows(
                f"SELECT path_index, model_json, {line_of}, line FROM entries WHERE session_id = ? AND path_index >= ?"
                " AND path_index < ? ORDER BY path_index",
                (session_id, lo, hi),
            )
            found = {at: build(model_json, raw, line) for at, model_json, raw, line in rows if at in wanted}
        else:
            for index, model_json, raw, line in self._rows_at(session_id, positions, line_of):
                found[index] = build(model_json, raw, line)
        if len(found) != len(positions):
            raise CutlineError(f"session {session_id} changed in the store while it was read: run the command again")
        return [found[at] for at in positions]

    def _path_rows(
        self,
        session_id: str,
        start: int,
        stop: int | None,
        line_of: str,
        build: Callable[[str, str, int | None], _Built],
    ) -> list[_Built]:
        """`build(model_json, raw line, line)` of each path row in [start, stop), built outside the store's lock."""
        rows = self._locked_rows(
            f"SELECT model_json, {line_of}, line FROM entries WHERE session_id = ? AND path_index >= ? AND path_index < ?"
            " ORDER BY path_index",
            (session_id, start, stop if stop is not None else 2**63 - 1),
        )
        return [build(model_json, raw, line) for model_json, raw, line in rows]

    def _locked_rows(self, sql: str, parameters: tuple[Any, ...]) -> Iterator[Any]:
        """The rows of one statement (one snapshot), fetched under the store's lock `_ROWS_PER_LOCK` at a time and
        handed on outside it.

        Why: a run reading 100,000 entries held the lock for the whole rebuild, and the desk's
        list, reading the rows coming into view, waited (PageUp 19.7 s during a run).
        """
        lock = self._db.lock
        with lock:
            cursor = self._db.conn.execute(sql, parameters)
            rows = cursor.fetchmany(_ROWS_PER_LOCK)
        try:
            while rows:
                yield from rows
                if len(rows) < _ROWS_PER_LOCK:
                    break
                with lock:
                    rows = cursor.fetchmany(_ROWS_PER_LOCK)
        finally:
            with lock:
                cursor.close()

    def compaction_entries(self, prefix: str) -> list[tuple[str, str]]:
        """(session id, entry id) of every stored compaction entry whose id starts with `prefix`, by session and order."""
        with self._db.reading() as conn:
            # sorted here, not in SQL: ordering there made SQLite scan every entry by (session, seq)
            # instead of the compaction entries' own index
            rows: list[tuple[str, str, int]] = conn.execute(
                "SELECT session_id, id, seq FROM entries WHERE type = 'compaction' AND id LIKE ? ESCAPE '\\'",
                (like_prefix(prefix),),
            ).fetchall()
        rows.sort(key=lambda row: (row[0], row[2]))
        return [(session_id, entry_id) for session_id, entry_id, _ in rows if entry_id.startswith(prefix)]

    # -- a window of the path (issue 12: audit and compact without the whole session) --------

    def path_window(
        self,
        session_id: str,
        counter: str = "chars4",
        through: str | None = None,
        *,
        before: bool = False,
        flags_only: bool = False,
        lazy: bool = False,
    ) -> PathWindow | None:
        """The active path (up to and including entry `through` when given) as a `PathWindow`, or None to load it whole.

        With `before`, the window also covers the context of the path without its last
        entry (the context a compaction replaced, for its audit). With `flags_only`, each
        entry's facts keep only their flags (`f`) and a compaction's first kept entry (`k`):
        enough to place the window, read its entries and rebuild the context, not to plan
        or audit from; why: the review desk runs a compaction of a plan it has made, and
        the full facts of 100,000 entries are ~50 MB of dicts. With `lazy`, the window's own
        entries are read when first asked for (`LazyEntries`) and the window marks the
        entries a planner may take from their facts (`PathWindow.plain`): a plan of a path
        with no compaction (its own window) then reads a few entries, not 100,000; for a
        process that plans or compacts once (the store must not change meanwhile: a read
        that finds fewer entries there is one clear error).

        None, so the caller loads the whole session, for anything but a pi, Claude Code or
        Codex session (OpenClaw sessions and pi version-4 files, OpenClaw's, are not
        windowed: their compactions and resets are read differently; Claude Code's and
        Codex's readers put their rules in the neutral model, and their windows read rows
        without the raw lines none of their readers needs), for a path with an
        entry lacking stored facts or a cached `counter` count, for `through` not on the
        path, and where `window_start` says the path needs its whole length.
        """
        row = self.row(session_id)
        if row is None or row["format"] not in _WINDOWED or row["version"] == 4:
            return None
        with no_cyclic_gc():
            by_model = row["format"] in _COLUMNS_BY_MODEL
            window = self._path_window(session_id, counter, through, before, flags_only, lazy, by_model)
            freeze_if_big(len(window) if window is not None else 0)
        return window

    def _path_window(
        self,
        session_id: str,
        counter: str,
        through: str | None,
        before: bool,
        flags_only: bool,
        lazy: bool,
        by_model: bool = False,
    ) -> PathWindow | None:
        """`path_window`, with the collector paused by the caller (it builds ~100,000 small dicts that stay).

        With `by_model` (Claude Code, Codex: their stored models tell what pi's lines do), entries are read without
        the raw lines no reader of the window needs, and the plain marks are `_PATH_WINDOW_BY_MODEL`'s.
        """
        with self._db.reading() as conn:
            # two plain reads instead of `path_facts`'s join, row by row: ~0.1 s less at 100,000 entries
            rows = conn.execute(_PATH_WINDOW_BY_MODEL if by_model else _PATH_WINDOW, (session_id,)).fetchall()
            cached: dict[str, int] = dict(
                conn.execute(
                    "SELECT entry_id, tokens FROM token_counts WHERE session_id = ? AND counter = ?",
                    (session_id, counter),
                ).fetchall()
            )
        if not rows:
            return None
        ids: list[str] = [row[0] for row in rows]
        kinds: list[str] = [row[1] for row in rows]
        texts: list[str | None] = [row[2] for row in rows]
        plain = bytes(row[3] for row in rows) if lazy and not flags_only else None
        del rows
        if through is not None:
            try:
                stop = ids.index(through) + 1
            except ValueError:
                return None
            del ids[stop:], kinds[stop:], texts[stop:]
            plain = plain[:stop] if plain is not None else None
        found = [cached.get(entry_id) for entry_id in ids]
        counts = [count for count in found if count is not None]
        if len(counts) != len(ids) or any(text is None for text in texts):
            return None
        facts: list[dict[str, Any]] = []
        flags: dict[int, dict[str, Any]] = {}  # with `flags_only`: one shared dict per flags value
        for at in range(0, len(texts), 4_096):
            chunk = json.loads("[" + ",".join(t for t in texts[at : at + 4_096] if t is not None) + "]")
            if flags_only:
                chunk = [
                    {"f": fact["f"], "k": fact["k"]} if "k" in fact else flags.setdefault(fact["f"], {"f": fact["f"]})
                    for fact in chunk
                ]
            facts.extend(chunk)
        start = window_start(ids, kinds, facts)
        if start is None:
            return None
        if before:
            earlier = window_start(ids[:-1], kinds[:-1], facts[:-1])
            start = min(start, earlier if earlier is not None else 0)

        def fetch(lo: int, hi: int) -> list[Entry]:
            entries = self.path_entries(session_id, lo, hi, by_model=by_model)
            if len(entries) != hi - lo:
                raise CutlineError(
                    f"session {session_id} changed in the store while it was read: run the command again"
                )
            return entries

        def fetch_at(indices: list[int]) -> dict[int, Entry]:
            found = self.path_entries_at(session_id, indices, by_model=by_model)
            if len(found) != len(indices):
                raise CutlineError(
                    f"session {session_id} changed in the store while it was read: run the command again"
                )
            return found

        def fetch_light(positions: list[int]) -> list[Entry | LightEntry]:
            return self.path_light_entries(session_id, positions, by_model=by_model)

        if lazy:
            held = LazyEntries(start, len(ids), fetch, fetch_at)
            return PathWindow(ids, kinds, facts, counts, start, held, fetch, plain, fetch_light=fetch_light)
        tail = self.path_entries(session_id, start, len(ids), by_model=by_model)
        return PathWindow(ids, kinds, facts, counts, start, tail, fetch, fetch_light=fetch_light)

    # -- the path as columns (issue 12: tokens and timeline without the whole session) --------

    def path_columns(self, session_id: str) -> PathColumns | None:
        """The active path as `PathColumns` (ids, types, roles, index facts), or None to load the session whole.

        None for sessions pi's reader did not read (Claude Code's and Codex's readers set
        flags the facts do not hold) and for a path with an entry without stored facts. pi
        files and OpenClaw's (its JSONL and its store's events go through pi's reader; its
        projection of the active path is stored with the entries it moves) are read. A pi
        context_edit is read from its entry and its target's (`PathColumns.omitted`).
        Why the `isMeta` probe is enough: a pi entry is `isMeta` only when its line, read by
        the reader's fast path, has that key at its top level, and a key that reads as
        `isMeta` is spelled `isMeta` or with a `\\u` escape in the line.
        """
        row = self.row(session_id)
        if row is None or row["format"] not in _READ_BY_PI | _COLUMNS_BY_MODEL:
            return None
        query = _PATH_COLUMNS if row["format"] in _READ_BY_PI else _PATH_COLUMNS_BY_MODEL
        ids: list[str] = []
        kinds: list[str] = []
        roles: list[str | None] = []
        texts: list[str] = []
        may_be_meta: list[int] = []
        with self._db.reading() as conn:
            for entry_id, kind, role, fact, probe in conn.execute(query, (session_id,)):
                if fact is None:
                    return None
                if probe:
                    may_be_meta.append(len(ids))
                ids.append(entry_id)
                kinds.append(kind)
                roles.append(role)
                texts.append(fact)
        if not ids:
            return None

        def fetch(indices: list[int]) -> dict[int, Entry]:
            return self.path_entries_at(session_id, indices)

        return PathColumns.from_texts(session_id, ids, kinds, roles, texts, may_be_meta, fetch)

    def path_is_current_pi(self, session_id: str) -> bool:
        """`is_current_pi` of the stored active path: a system message on it, or a compaction with a systemMessage object.

        Read from the rows that can say so (their type, role, and a compaction's line naming
        the key), not from every entry.
        """
        with self._db.reading() as conn:
            rows = conn.execute(_CURRENT_PI_ROWS, (session_id,)).fetchall()
        for kind, raw in rows:
            if kind == "message":
                return True
            try:
                value = json.loads(raw)
            except (ValueError, RecursionError):
                continue
            if type(value) is dict and isinstance(value.get("systemMessage"), dict):
                return True
        return False

    def path_leaf(self, session_id: str) -> Entry | None:
        """The last entry of the stored active path (None: the path is empty), rebuilt alone with its raw line."""
        return self._one_entry(
            "SELECT model_json, raw, line FROM entries WHERE session_id = ? AND path_index IS NOT NULL"
            " ORDER BY path_index DESC LIMIT 1",
            session_id,
        )

    def path_index_of(self, session_id: str, entry_id: str) -> int | None:
        """Where entry `entry_id` sits on the stored active path (None: not on it), read from its row alone."""
        with self._db.reading() as conn:
            row = conn.execute(
                "SELECT path_index FROM entries WHERE session_id = ? AND id = ? AND path_index IS NOT NULL",
                (session_id, entry_id),
            ).fetchone()
        return None if row is None else int(row[0])

    def raw_lines(self, session_id: str) -> Iterator[str]:
        """Every stored entry's raw line in file order (as `load` ends up with them), streamed: no entry rebuilt.

        Fetched under the store's lock a slice at a time (`_locked_rows`), as `path_entries` does, so a
        reader of another window is not held up while the lines are looked at.
        """
        for (raw,) in self._locked_rows("SELECT raw FROM entries WHERE session_id = ? ORDER BY seq", (session_id,)):
            yield raw

    def last_entry(self, session_id: str) -> Entry | None:
        """The session's last stored entry in file order (as `load` ends), rebuilt alone with its raw line."""
        return self._one_entry(
            "SELECT model_json, raw, line FROM entries WHERE session_id = ? ORDER BY seq DESC LIMIT 1", session_id
        )

    def _one_entry(self, query: str, session_id: str) -> Entry | None:
        with self._db.reading() as conn:
            row = conn.execute(query, (session_id,)).fetchone()
        return None if row is None else entry_from_row(row[0], row[1], row[2])

    def path_entries_at(self, session_id: str, indices: list[int], *, by_model: bool = False) -> dict[int, Entry]:
        """The entries at these positions of the active path, by position, rebuilt without loading the rest (`path_entries`)."""
        line_of = _RAW_LINE_BY_MODEL if by_model else _RAW_LINE
        rows = self._rows_at(session_id, indices, line_of)
        return {index: entry_from_row(model_json, raw, line) for index, model_json, raw, line in rows}

    def _rows_at(self, session_id: str, positions: list[int], line_of: str) -> list[tuple[int, str, str, int | None]]:
        """The (path index, model JSON, raw line, line number) rows at these positions of the active path, 500 to a query."""
        rows: list[tuple[int, str, str, int | None]] = []
        with self._db.reading() as conn:
            for at in range(0, len(positions), 500):
                chunk = positions[at : at + 500]
                rows.extend(
                    conn.execute(
                        f"SELECT path_index, model_json, {line_of}, line FROM entries WHERE session_id = ? AND"
                        f" path_index IN ({','.join('?' * len(chunk))})",
                        (session_id, *chunk),
                    )
                )
        return rows

    def holds_entry(self, session_id: str, entry_id: str) -> bool:
        """Whether any stored entry of the session (on the path or not, a repeated id's earlier records too) has this id."""
        with self._db.reading() as conn:
            row = conn.execute(
                "SELECT 1 FROM entries WHERE session_id = ? AND (id = ? OR id LIKE ? ESCAPE '\\') LIMIT 1",
                (session_id, entry_id, like_prefix(entry_id + "~")),
            ).fetchone()
        return row is not None

    def repeats_id(self, session_id: str, entry_id: str) -> bool:
        """Whether the session file holds more than one record with this id (the earlier ones stored as `id~seq`)."""
        with self._db.reading() as conn:
            row = conn.execute(
                "SELECT 1 FROM entries WHERE session_id = ? AND id LIKE ? ESCAPE '\\' LIMIT 1",
                (session_id, like_prefix(entry_id + "~")),
            ).fetchone()
        return row is not None

    def latest_path_compaction(self, session_id: str) -> str | None:
        """The id of the last compaction entry on the stored active path, None when it has none."""
        with self._db.reading() as conn:
            row = conn.execute(
                "SELECT id FROM entries WHERE session_id = ? AND path_index IS NOT NULL AND type = 'compaction'"
                " ORDER BY path_index DESC LIMIT 1",
                (session_id,),
            ).fetchone()
        return None if row is None else str(row[0])

    # -- what a write-back and its drift warning ask of a stored session (session_writes) ---------

    def has_entry(self, session_id: str, entry_id: str) -> bool:
        """Whether a stored entry of the session has exactly this id (as a loaded session's `by_id` would find it)."""
        with self._db.reading() as conn:
            row = conn.execute(
                "SELECT 1 FROM entries WHERE session_id = ? AND id = ? LIMIT 1", (session_id, entry_id)
            ).fetchone()
        return row is not None

    def highest_line(self, session_id: str) -> int | None:
        """The highest line number of the session's stored entries (None: it has none), no entry rebuilt."""
        with self._db.reading() as conn:
            row = conn.execute("SELECT max(line) FROM entries WHERE session_id = ?", (session_id,)).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def first_compaction_at(self, session_id: str, line: int | None, entry_id: str) -> Entry | None:
        """The first compaction entry in file order on this line or with this id, rebuilt alone with its raw line."""
        with self._db.reading() as conn:
            row = conn.execute(
                "SELECT model_json, raw, line FROM entries WHERE session_id = ? AND type = 'compaction'"
                " AND (line = ? OR id = ?) ORDER BY seq LIMIT 1",
                (session_id, line, entry_id),
            ).fetchone()
        return None if row is None else entry_from_row(row[0], row[1], row[2])

    def lines_after(self, session_id: str, line: int) -> Iterator[tuple[int, str]]:
        """(line, raw line) of the stored entries after `line`, in file order, streamed (`raw_lines`' way)."""
        sql = "SELECT line, raw FROM entries WHERE session_id = ? AND line > ? ORDER BY seq"
        yield from self._locked_rows(sql, (session_id, line))

    # -- what `cutline context` asks of a stored session (session_writes.stored_wire_context) ---------

    def first_seq_from(self, session_id: str, path_index: int) -> int | None:
        """The lowest file position (`seq`) of the stored active path's entries from position `path_index` on (None: none)."""
        with self._db.reading() as conn:
            row = conn.execute(
                "SELECT min(seq) FROM entries WHERE session_id = ? AND path_index >= ?", (session_id, path_index)
            ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def lines_from(self, session_id: str, seq: int) -> Iterator[tuple[int | None, str]]:
        """(line, raw line) of the stored entries from file position `seq` on, in file order, streamed (`raw_lines`' way)."""
        sql = "SELECT line, raw FROM entries WHERE session_id = ? AND seq >= ? ORDER BY seq"
        yield from self._locked_rows(sql, (session_id, seq))

    def entry_facts(self, session_id: str, entry_id: str) -> str | None:
        """The stored index facts (JSON text) of the entry with exactly this id (None: no such entry or no facts)."""
        with self._db.reading() as conn:
            row = conn.execute(
                "SELECT facts FROM entries WHERE session_id = ? AND id = ? LIMIT 1", (session_id, entry_id)
            ).fetchone()
        return None if row is None or row[0] is None else str(row[0])

    def path_has_type(self, session_id: str, kind: str) -> bool:
        """Whether an entry of this type lies on the stored active path."""
        with self._db.reading() as conn:
            row = conn.execute(
                "SELECT 1 FROM entries WHERE session_id = ? AND type = ? AND path_index IS NOT NULL LIMIT 1",
                (session_id, kind),
            ).fetchone()
        return row is not None
