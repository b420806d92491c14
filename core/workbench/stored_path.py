"""A long session's active path as the desk uses it, built from the store's columns instead of rebuilt entries.

Why: rebuilding a 100,000-entry session as models costs ~2 s and ~900 MB; the desk
needs only the plan's index, the tool pairs, the calls' file paths, where the last
compaction's context starts and the calibration, all of which the stored index facts
(core.agents.index_facts) give. Rows are read from the store as they come into view.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cutline.core.agents.index_facts import CONTEXT_EDIT, PI_CURRENT_SIGN
from cutline.core.agents.path_window import PathWindow
from cutline.core.engine.path_index import PathIndex
from cutline.core.models import Entry, Session
from cutline.core.tokens import (
    Calibration,
    StoredCalls,
    calibrated_ratio,
    call_estimates,
    fit_calibration,
    stored_calls,
    stored_model_calls,
    stored_usage_samples,
)
from cutline.core.workbench.entries import StoredEntries, pair_rows

if TYPE_CHECKING:
    from cutline.core.store import Store


# the facts' keys current pi's projection reads from a plain entry (flags, file ops, usage, results)
# and the index from a compaction (its first kept entry)
_PLANNED = ("f", "o", "u", "r", "k")


@dataclass
class StoredPath:
    """What the desk shows and plans of a stored path, without its entries in memory."""

    entries: StoredEntries
    ids: list[str]
    kinds: list[str]
    facts: list[dict[str, Any]]
    plain: bytes = b""  # per entry: 1 where a planner may take it from its facts and count alone (`PathWindow.plain`)
    _first_index: PathIndex | None = None
    _calibration_input: StoredCalls = field(default_factory=lambda: StoredCalls(b"", {}, {}))
    _context_edits: bool = False

    def index(self, tokens: list[int], counter: str) -> PathIndex:
        """The plan's index over these counts (the same as `index_path` of the rebuilt path); the first one kept for the others."""
        if self._first_index is not None:
            return self._first_index.retokened(tokens, counter)
        self._first_index = PathIndex.from_facts(self.window(tokens), tokens, counter, self.ids, self.kinds, self.facts)
        return self._first_index

    def window(self, tokens: list[int]) -> Sequence[Entry]:
        """The path as the planner reads it: a `PathWindow` over the stored rows, its plain entries marked.

        Why: current pi's projection otherwise reads every entry of a path with no
        compaction (100,000 rebuilt from the store, ~20 s CPU at 100k, on the desk's
        loading worker); with the marks it reads the few the facts do not tell (as the
        CLI's cold plan does, `Sessions.path_window(lazy=True)`).
        """
        if len(self.plain) != len(self.ids):
            return self.entries

        def before_start(lo: int, hi: int) -> list[Entry]:
            raise IndexError(lo)  # the window starts at 0: nothing is before it

        return PathWindow(self.ids, self.kinds, self.facts, tokens, 0, self.entries, before_start, self.plain)

    def keep_less(self) -> None:
        """Let the parsed facts go once the index, pairs and call paths are made; keep what calibrating needs.

        Why: the facts of 100,000 entries are ~45 MB of small dicts a loaded desk does not use.
        """
        if not self.facts:
            return
        self._calibration_input = stored_calls(self.facts)
        self._context_edits = self.has_context_edits()
        facts, self.facts = self.facts, []
        if self.plain:
            # the planner's window reads them again for another counter's index: slimmed in place to what it reads
            for at in range(len(facts)):
                fact = facts[at]
                facts[at] = {key: fact[key] for key in _PLANNED if key in fact}
            return
        while facts:  # a slice at a time: 100,000 dicts freed at once hold the interpreter (and the screen) ~50 ms
            del facts[-4_096:]

    def pairs(self) -> tuple[dict[int, int], dict[int, int]]:
        """`pair_numbers` of the path: call rows by their first call, result rows by the call they answer."""
        return pair_rows(([call_id for call_id, _ in fact.get("c", ())], fact.get("r", ())) for fact in self.facts)

    def call_paths(self) -> dict[str, str]:
        """Tool call id -> the file path it named."""
        return {call_id: named for fact in self.facts for call_id, named in fact.get("c", ()) if named is not None}

    def outside_end(self) -> int:
        """Path index before which entries are already out of the context (dropped by the latest compaction)."""
        for i in range(len(self.kinds) - 1, -1, -1):
            if self.kinds[i] == "compaction":
                kept = self.facts[i].get("k")
                start = self._position(kept, i) if kept else i
                return min(start, i)
        return 0

    def _position(self, entry_id: str, default: int) -> int:
        try:
            return self.ids.index(entry_id)
        except ValueError:
            return default

    def has_context_edits(self) -> bool:
        """Whether a pi context_edit is on the path (what it omits from the context depends on the whole path)."""
        if not self.facts:
            return self._context_edits
        return any(fact["f"] & CONTEXT_EDIT for fact in self.facts)

    def calibration(self, chars4: list[int]) -> Calibration | None:
        """`calibrate` of the path from its facts; None when a context_edit makes the weights depend on the whole path."""
        if self.has_context_edits():
            return None
        calls = stored_calls(self.facts) if self.facts else self._calibration_input
        return fit_calibration(stored_usage_samples(self.ids, self.kinds, calls, chars4))

    def calibration_ratio(self, chars4: list[int]) -> float | None:
        """`calibration(chars4).ratio`, fitted without making its samples; None where `calibration` is None.

        Why: the desk needs only the ratio (the calibrated counter, an entry's counts); the
        samples of 45,000 model calls were ~26 MB and ~1.3 s of the entry count at launch.
        """
        if self.has_context_edits():
            return None
        calls = stored_calls(self.facts) if self.facts else self._calibration_input
        made = stored_model_calls(self.ids, self.kinds, calls)
        return calibrated_ratio(made, call_estimates(calls.weights, chars4, made))


def stored_path(
    store: Store, session_id: str, entries: StoredEntries | None = None
) -> tuple[StoredPath, list[int]] | None:
    """The stored path of a session and its cached chars4 counts; None when some entry has no stored facts or count."""
    plain = bytearray()
    ids, kinds, texts, counts = store.sessions.path_facts(session_id, "chars4", plain=plain)
    if any(text is None for text in texts) or any(count is None for count in counts):
        return None
    if entries is None:

        def fetch(start: int, stop: int) -> list[Entry]:
            return list(store.sessions.path_entries(session_id, start, stop))

        entries = StoredEntries(len(ids), fetch)
    found = StoredPath(entries, ids, kinds, parse_all(texts), bytes(plain))
    return found, [count for count in counts if count is not None]


def parse_all(texts: list[str | None], chunk: int = 4_096) -> list[dict[str, Any]]:
    """Stored facts parsed a chunk of entries per parser call.

    Why chunks: a parser call per entry cost several times more than one call for the
    whole path, but one call holds the interpreter (and so the screen) for the whole
    6 MB; a few thousand entries take a few milliseconds.
    """
    facts: list[dict[str, Any]] = []
    for start in range(0, len(texts), chunk):
        part = [text for text in texts[start : start + chunk] if text is not None]
        facts.extend(json.loads("[" + ",".join(part) + "]"))
    return facts


def telling_session(header: Session, stored: StoredPath) -> Session:
    """The header with the path's entries a write-back plan looks at (compactions, current pi's signs, the last one), chained.

    Why: a pi v3 session's plan reads only those (is the file current pi's, has it entries);
    the session shown from stored columns has none of its entries in memory.
    """
    last = len(stored.ids) - 1
    telling = [
        i
        for i, kind in enumerate(stored.kinds)
        if kind == "compaction" or stored.facts[i]["f"] & PI_CURRENT_SIGN or i == last
    ]
    entries: list[Entry] = []
    for i in telling:
        entry = stored.entries[i]
        entries.append(entry.model_copy(update={"parentId": entries[-1].id if entries else None}))
    return header.model_copy(update={"entries": entries, "leaf_id": entries[-1].id if entries else None})
