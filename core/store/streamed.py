"""Writing a new session's entry rows while its file is still being read, a batch at a time.

Why: keeping every row until the file was read held each entry's row next to the
file's lines (~140 MB more at the peak of a 100,000-entry import). Rows are written as
they come, with each entry's key and place on the active path guessed from what was
read so far (its id; its parent's place + 1, or the reader's own guess), and the few
guesses the rest of the file proves wrong (an id repeated later, an entry off the final
path) are fixed at the end. A reader that changes entries once the whole file is read
(Claude Code's, see `AgentAdapter.read_streamed`) names them (`amend`): their rows are
read back, changed and written again. The same rows as a whole-file import result, in
the same transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from cutline.core.agents.adapter import PathGuess
from cutline.core.agents.entries import OtherEntry
from cutline.core.agents.jsonl import NotStreamable
from cutline.core.agents.light import LightEntry
from cutline.core.errors import CutlineError
from cutline.core.models import Entry
from cutline.core.store.rows import entry_from_row, entry_row, keys_of, path_index_of, row_model, stored_model

BATCH = 2000

# One row of the entries table, in `INSERT`'s order (the model as str or as its UTF-8 bytes).
StoredRow = tuple[str, str, int, int, str | None, str, str | None, int | None, str | None, str, str | bytes, str]

# the model may come as the UTF-8 bytes pydantic wrote (`rows.stored_model`): CAST stores them as the TEXT
# its str would be (the same bytes, which SQLite keeps as given), without decoding and re-encoding them here
INSERT = (
    "INSERT INTO entries"
    " (session_id, id, seq, line, parent_id, type, role, path_index, timestamp, raw, model_json, facts)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS TEXT), ?)"
)
_COLLIDE = "entry ids collide with the keys given to repeated ids"
# rows read back and rewritten at a time by `StreamedRows.finish` (the ids in one `IN (...)`)
_AMEND_BATCH = 500
_AMENDED = (
    "UPDATE entries SET parent_id = ?, type = ?, role = ?, timestamp = ?, model_json = CAST(? AS TEXT), facts = ?"
    " WHERE session_id = ? AND seq = ?"
)


class NotGrown(NotStreamable):
    """A re-imported file's records are not the stored ones followed by new ones (the import rolls back and reads it whole)."""


class StreamedRows:
    """A reader sink that inserts each entry's row into `store_id`'s entries in batches; `finish` fixes the guesses."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        store_id: str,
        insert: Callable[[sqlite3.Connection, list[StoredRow]], None] | None = None,
        batch: int = BATCH,
        guess: PathGuess | None = None,
        stored: list[str] | None = None,
    ) -> None:
        self._conn = conn
        self._store_id = store_id
        self._insert = insert if insert is not None else _insert
        self._batch = batch
        self._guess = guess  # the reader's guess of each row's path_index, else one deeper than its parent
        self._pending: list[StoredRow] = []
        self.ids: list[str] = []
        self._parents: list[str | None] = []
        self._written: list[int | None] = []  # the path_index each row was written with
        self._last_seq: dict[str, int] = {}
        self._depth: dict[str, int] = {}
        self.path_index: dict[str, int] = {}  # set by `finish`: the active path's ids and places
        self._amends: dict[int, Callable[[Entry], None]] = {}
        self.path_fixes = 0  # set by `finish`: the rows whose guessed path_index was wrong
        # a grown file's re-import: the keys stored of its old part, whose rows are kept (not written again)
        self._stored = stored if stored is not None else []
        self.start = len(self._stored)

    def __call__(self, entry: Entry | LightEntry | OtherEntry, from_line: bool) -> None:
        """Take one entry as the reader hands it over (see `row_sink`)."""
        seq = len(self.ids)
        if seq < self.start:
            self._kept(entry, seq)
            return
        entry_id, parent_id, kind, role, timestamp, line, raw, payload, facts = entry_row(
            entry, row_model(entry, from_line)
        )
        earlier = self._last_seq.get(entry_id)
        if earlier is not None:
            if earlier < self.start:
                raise NotGrown  # an old record's key changes: main's keys comparison calls the file replaced
            self._rename(entry_id, earlier)
        self._last_seq[entry_id] = seq
        depth: int | None
        if self._guess is not None:
            depth = self._guess(entry)
        else:
            depth = self._depth.get(parent_id, -1) + 1 if parent_id is not None else 0
            self._depth[entry_id] = depth
        self.ids.append(entry_id)
        self._parents.append(parent_id)
        self._written.append(depth)
        stored = payload if isinstance(payload, (str, bytes)) else stored_model(payload)
        self._pending.append(
            (self._store_id, entry_id, seq, line, parent_id, kind, role, depth, timestamp, raw, stored, facts)
        )
        if len(self._pending) >= self._batch:
            self.flush()

    def _kept(self, entry: Entry | LightEntry | OtherEntry, seq: int) -> None:
        """A record of a grown file's old part: its row is stored already (none is built); only its id and parent are kept."""
        entry_id, parent_id = entry.id, entry.parentId
        if self._guess is not None:
            self._guess(entry)  # the guess counts the records before the new ones
        else:
            self._depth[entry_id] = self._depth.get(parent_id, -1) + 1 if parent_id is not None else 0
        self._last_seq[entry_id] = seq
        self.ids.append(entry_id)
        self._parents.append(parent_id)
        self._written.append(None)

    def flush(self) -> None:
        """Insert the rows not written yet."""
        if self._pending:
            try:
                self._insert(self._conn, self._pending)
            except sqlite3.IntegrityError:
                raise CutlineError(_COLLIDE) from None
            self._pending = []

    def _rename(self, entry_id: str, earlier: int) -> None:
        """A repeated id: its earlier record gets the key `id~seq` and leaves the path (the later record wins)."""
        self.flush()
        try:
            self._conn.execute(
                "UPDATE entries SET id = ?, path_index = NULL WHERE session_id = ? AND id = ?",
                (f"{entry_id}~{earlier}", self._store_id, entry_id),
            )
        except sqlite3.IntegrityError:
            raise CutlineError(_COLLIDE) from None
        self._written[earlier] = None

    def amend(self, seq: int, fix: Callable[[Entry], None]) -> None:
        """A row written earlier whose entry the end of the reading changed (an `EntryAmend`): `finish` rewrites it."""
        self._amends[seq] = fix

    def _rewrite(self, recount: Callable[[Entry], None] | None) -> None:
        """Rebuild each amended entry from its row, change it, and write its row again (`recount` told each, last of its id)."""
        amended = sorted(self._amends)
        fixes, self._amends = self._amends, {}
        for at in range(0, len(amended), _AMEND_BATCH):
            batch = amended[at : at + _AMEND_BATCH]
            marks = ", ".join("?" * len(batch))
            rows = self._conn.execute(
                f"SELECT seq, model_json, raw, line FROM entries WHERE session_id = ? AND seq IN ({marks})",
                (self._store_id, *batch),
            ).fetchall()
            updates = []
            for seq, serialized, raw, line in rows:
                entry = entry_from_row(serialized, raw, line)
                if seq < self.start:
                    # a grown file's old row stays as stored (as the whole-file re-import keeps it); its
                    # parent and count are the changed entry's, from the parent as read (not as stored)
                    entry.parentId = self._parents[seq]
                    fixes[seq](entry)
                    self._parents[seq] = entry.parentId
                    if recount is not None and self._last_seq.get(entry.id) == seq:
                        recount(entry)
                    continue
                fixes[seq](entry)
                _, parent_id, kind, role, timestamp, _, _, _, facts = entry_row(entry, "")
                self._parents[seq] = parent_id
                updates.append((parent_id, kind, role, timestamp, stored_model(entry), facts, self._store_id, seq))
                if recount is not None and self._last_seq.get(entry.id) == seq:
                    recount(entry)
            self._conn.executemany(_AMENDED, updates)

    def finish(self, leaf_id: str | None, recount: Callable[[Entry], None] | None = None) -> int:
        """Write what is pending, rewrite the amended rows, and set path_index where the whole file proved a guess wrong.

        Returns the row count; `recount` is told each amended entry (its token count changes with it).
        """
        self.flush()
        self._rewrite(recount)
        # every id once (as `_last_seq` counts them): the ids are the keys, as `keys_of` would find at 100,000 more steps;
        # else it raises on a collision the inserts did not meet
        keys = self.ids if len(self._last_seq) == len(self.ids) else keys_of(self.ids)
        if keys[: self.start] != self._stored:
            raise NotGrown
        path_index = self.path_index = path_index_of(self.ids, self._parents, leaf_id)
        fixes = [
            (index, self._store_id, key)
            for key, written in zip(keys[self.start :], self._written[self.start :], strict=True)
            if (index := path_index.get(key)) != written
        ]
        self._conn.executemany("UPDATE entries SET path_index = ? WHERE session_id = ? AND id = ?", fixes)
        self.path_fixes = len(fixes)
        if self.start:
            self._reindex_kept(path_index)
        return len(self.ids)

    def _reindex_kept(self, path_index: dict[str, int]) -> None:
        """The old rows' path_index set as the whole-file re-import sets it (`reindex_kept`, as `Importer._import` does)."""
        reindex_kept(self._conn, self._store_id, self.start, self._stored, path_index)


def reindex_kept(
    conn: sqlite3.Connection, store_id: str, start: int, kept: list[str], path_index: dict[str, int]
) -> None:
    """A grown session's old rows (the first `start`, keys `kept`): path_index set to their place on the new path, or NULL.

    Why only these: the new rows are written with their place; an UPDATE for each of them before it
    exists changed nothing (one per appended entry on a whole-file re-import).
    """
    current: dict[str, int] = dict(
        conn.execute(
            "SELECT id, path_index FROM entries WHERE session_id = ? AND seq < ? AND path_index IS NOT NULL",
            (store_id, start),
        ).fetchall()
    )
    conn.executemany(
        "UPDATE entries SET path_index = NULL WHERE session_id = ? AND id = ?",
        [(store_id, key) for key in current if key not in path_index],
    )
    # an old row off the path before is on it again when the new records continue its branch (pi's /tree, a
    # return to a rewound branch): set too
    conn.executemany(
        "UPDATE entries SET path_index = ? WHERE session_id = ? AND id = ?",
        [
            (index, store_id, key)
            for key in kept
            if (index := path_index.get(key)) is not None and current.get(key) != index
        ],
    )


def _insert(conn: sqlite3.Connection, batch: list[StoredRow]) -> None:
    conn.executemany(INSERT, batch)
