"""The per-entry, per-counter token count cache, and counting a stored session through it.

The counters themselves (`cutline.core.tokens`) are pure and know nothing of the
store; this module is the glue: read what is cached, count only what is missing,
and keep the new counts.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import msgspec

from cutline.core.models import Session
from cutline.core.store.db import StoreDatabase
from cutline.core.store.schema import PATH_TOKENS_SUM
from cutline.core.tokens import (
    TokenCounter,
    TokenReport,
    calibrated_counts,
    entry_tokens,
    gc_paused,
    get_counter,
    token_report,
)

if TYPE_CHECKING:
    from cutline.core.store import Store

_ANY_CHARS4 = "SELECT 1 FROM token_counts WHERE session_id = ? AND counter = 'chars4' LIMIT 1"
_UPSERT = "INSERT OR REPLACE INTO token_counts (session_id, entry_id, counter, tokens) VALUES (?, ?, ?, ?)"
# the same rows from one JSON object of counts by entry id, read by SQLite itself (see `_upsert_all`)
_UPSERT_JSON = "INSERT OR REPLACE INTO token_counts (session_id, entry_id, counter, tokens) SELECT ?, key, ?, value FROM json_each(?)"
_encode = msgspec.json.Encoder().encode


def _upsert_all(conn: sqlite3.Connection, session_id: str, counter: str, counts: Mapping[str, int]) -> None:
    """`_UPSERT` of every count: one statement over the counts as a JSON object, else one row at a time.

    Why: binding four values per row cost ~0.2 s of a 100,000-entry import, SQLite reading the
    same counts from one JSON text ~0.1 s. The JSON is taken only where SQLite reads back
    exactly the keys and values given: msgspec writes a key without escapes unless it holds a
    quote, a backslash or a control character (any escape sends it to the rows), and refuses
    a lone surrogate; a SQLite without JSON functions takes the rows too.
    """
    encoded: str | None
    try:
        encoded = _encode(counts).decode()
    except (TypeError, ValueError, OverflowError, UnicodeError):
        encoded = None
    if encoded is not None and "\\" not in encoded:
        try:
            conn.execute(_UPSERT_JSON, (session_id, counter, encoded))
            return
        except sqlite3.OperationalError:  # no json_each: nothing was written
            pass
    conn.executemany(_UPSERT, [(session_id, entry_id, counter, tokens) for entry_id, tokens in counts.items()])


class TokenCounts:
    """The token_counts table: cached counts of a session's entries, one set per counter."""

    def __init__(self, database: StoreDatabase) -> None:
        self._db = database

    def get(self, session_id: str, counter: str) -> dict[str, int]:
        """Cached token counts of a session's entries under one counter."""
        with self._db.reading() as conn:
            cursor = conn.execute(
                "SELECT entry_id, tokens FROM token_counts WHERE session_id = ? AND counter = ?", (session_id, counter)
            )
            return dict(cursor)  # built as the rows come: no list of 50,000 tuples made first

    def path_counts(self, session_id: str, counter: str) -> list[int] | None:
        """Cached counts of the active path's entries in path order; None unless every one is cached.

        Why: a view can draw a long session's rows and token bars before the session is rebuilt.
        """
        with self._db.reading() as conn:
            cursor = conn.execute(
                "SELECT t.tokens FROM entries e LEFT JOIN token_counts t"
                " ON t.session_id = e.session_id AND t.entry_id = e.id AND t.counter = ?"
                " WHERE e.session_id = ? AND e.path_index IS NOT NULL ORDER BY e.path_index",
                (counter, session_id),
            )
            counts: list[int | None] = [row[0] for row in cursor]
        if any(tokens is None for tokens in counts):
            return None
        return [int(tokens) for tokens in counts if tokens is not None]

    def save(self, session_id: str, counter: str, counts: Mapping[str, int]) -> None:
        """Cache token counts (replacing earlier ones for the same entries and counter)."""
        with self._db.transaction() as conn:
            conn.executemany(
                _UPSERT, [(session_id, entry_id, counter, int(tokens)) for entry_id, tokens in counts.items()]
            )
            if counter == "chars4":
                self.refresh_total(conn, session_id)

    @staticmethod
    def refresh_total(conn: sqlite3.Connection, session_id: str) -> None:
        """Within an open transaction: the session row's chars4 total of its active path, after its counts or path changed."""
        counted = conn.execute(_ANY_CHARS4, (session_id,)).fetchone() is not None
        total = conn.execute(PATH_TOKENS_SUM, (session_id,)).fetchone()[0] if counted else None
        conn.execute("UPDATE sessions SET path_tokens = ? WHERE id = ?", (total, session_id))

    @staticmethod
    def save_unless_cached(
        conn: sqlite3.Connection, session_id: str, counter: str, counts: Mapping[str, int], *, refresh: bool = True
    ) -> None:
        """Within an open transaction: cache counts made while importing, unless every one is cached already.

        `refresh=False` leaves the session's path total to the caller (who knows it without a query).
        """
        if not counts:
            return
        cached = conn.execute(
            "SELECT count(*) FROM token_counts WHERE session_id = ? AND counter = ?", (session_id, counter)
        ).fetchone()[0]
        if cached == len(counts):
            return
        _upsert_all(conn, session_id, counter, counts)
        if counter == "chars4" and refresh:
            TokenCounts.refresh_total(conn, session_id)

    @staticmethod
    def forget(conn: sqlite3.Connection, session_id: str) -> None:
        """Within an open transaction: drop every cached count of a session (its entries are being replaced)."""
        conn.execute("DELETE FROM token_counts WHERE session_id = ?", (session_id,))


def count_entries(store: Store, session: Session, counter: TokenCounter | str = "chars4") -> dict[str, int]:
    """Per-entry tokens for every entry of a session, cached in the store and counted only where missing.

    `calibrated` counts are chars4 counts scaled by the session's fitted ratio at call
    time and are not stored, since the ratio changes as the session grows.
    """
    name = counter if isinstance(counter, str) else counter.name
    if name == "calibrated":
        return calibrated_counts(session, count_entries(store, session, "chars4"))
    cached = store.counts.get(session.id, name)
    missing = [e for e in session.entries if e.id not in cached]
    if not missing:
        return {e.id: cached[e.id] for e in session.entries}
    resolved = get_counter(counter) if isinstance(counter, str) else counter
    with gc_paused():
        new = {e.id: entry_tokens(e, resolved) for e in missing}
        store.counts.save(session.id, name, new)
    merged = {**cached, **new}
    return {e.id: merged[e.id] for e in session.entries}


def stored_path_counts(store: Store, session_id: str, ids: list[str], counter: str, window: int = 2_048) -> list[int]:
    """A stored counter's counts of a path's entries (`ids`, root first) in path order, from the cache; the path entries it lacks are counted and cached.

    As `count_entries` does for the whole session, but only the missing entries on the path
    are read and counted, `window` at a time, each window's counts saved as it is done (no
    long write holds the store; the desk counts on a thread): a session that grew is
    counted for its new entries alone, and a long path never held as entries.
    """
    cached = store.counts.get(session_id, counter)
    found: list[int | None] = list(map(cached.get, ids))
    del cached
    if None not in found:  # a scan in C: the warm case, every count cached
        return found  # type: ignore[return-value]  # every one is an int
    missing = [i for i, count in enumerate(found) if count is None]
    resolved = get_counter(counter)
    for at in range(0, len(missing), window):
        new: dict[str, int] = {}
        for i, entry in store.sessions.path_entries_at(session_id, missing[at : at + window]).items():
            found[i] = new[ids[i]] = entry_tokens(entry, resolved)
        store.counts.save(session_id, counter, new)
    return [count if count is not None else 0 for count in found]


def cached_token_report(store: Store, session: Session, counters: Iterable[str] | None = None) -> TokenReport:
    """`token_report` of a stored session, its counts read from (and added to) the store's cache."""
    return token_report(session, counters, lambda name: count_entries(store, session, name))
