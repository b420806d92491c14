"""A long session's active path as the review desk uses it, built from the store's columns instead of rebuilt entries.

Why: rebuilding a 100,000-entry session as models costs ~2 s and ~900 MB; the desk
needs only the plan's index, the tool pairs, the calls' file paths, where the last
compaction's context starts and the calibration, all of which the stored index facts
(core.agents.index_facts) give. Rows are read from the store as they come into view.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from cutline.app.widgets.message_list import StoredEntries
from cutline.core.agents.index_facts import CONTEXT_EDIT, WEIGHT
from cutline.core.engine.path_index import PathIndex
from cutline.core.models import Entry
from cutline.core.tokens import Calibration, UsageSample, fit_calibration


@dataclass
class StoredPath:
    """What the desk shows and plans of a stored path, without its entries in memory."""

    entries: StoredEntries
    ids: list[str]
    kinds: list[str]
    facts: list[dict[str, Any]]

    def index(self, tokens: list[int], counter: str) -> PathIndex:
        """The plan's index over these counts (the same as `index_path` of the rebuilt path)."""
        return PathIndex.from_facts(self.entries, tokens, counter, self.ids, self.kinds, self.facts)

    def pairs(self) -> tuple[dict[int, int], dict[int, int]]:
        """`pair_numbers` of the path: call rows by their first call, result rows by the call they answer."""
        call_pair: dict[str, tuple[int, int]] = {}
        pair_of_row: dict[int, int] = {}
        partner: dict[int, int] = {}
        counter = 0
        for index, fact in enumerate(self.facts):
            for call_id, _ in fact.get("c", ()):
                call_pair[call_id] = (counter, index)
                pair_of_row.setdefault(index, counter)
                counter += 1
            for call_id in fact.get("r", ()):
                found = call_pair.get(call_id)
                if found is None:
                    continue
                number, call_row = found
                pair_of_row.setdefault(index, number)
                partner.setdefault(index, call_row)
                partner.setdefault(call_row, index)
        return pair_of_row, partner

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
        return any(fact["f"] & CONTEXT_EDIT for fact in self.facts)

    def calibration(self, chars4: list[int]) -> Calibration | None:
        """`calibrate` of the path from its facts; None when a context_edit makes the weights depend on the whole path."""
        if self.has_context_edits():
            return None
        prefix = [0]
        for i, fact in enumerate(self.facts):
            prefix.append(prefix[-1] + (chars4[i] if fact["f"] & WEIGHT else 0))
        samples: list[UsageSample] = []
        last_compaction = kept_from = -1
        seen: dict[str, int] = {}
        for i, fact in enumerate(self.facts):
            entry_id = self.ids[i]
            if self.kinds[i] == "compaction":
                last_compaction = i
                first_kept = fact.get("k")
                kept_from = seen.get(first_kept, -1) if first_kept else -1
            seen.setdefault(entry_id, i)
            real = fact.get("p", 0)
            if real <= 0:
                continue
            if last_compaction < 0:
                estimate = prefix[i]
            else:
                estimate = chars4[last_compaction] + prefix[i] - prefix[last_compaction + 1]
                if kept_from >= 0:
                    estimate += prefix[last_compaction] - prefix[kept_from]
            # built without validation: the fields are ints and an id read from the store
            samples.append(UsageSample.model_construct(pathIndex=i, entryId=entry_id, real=real, estimate=estimate))
        return fit_calibration(samples)


def stored_path(
    store: Any, session_id: str, entries: StoredEntries | None = None
) -> tuple[StoredPath, list[int]] | None:
    """The stored path of a session and its cached chars4 counts; None when some entry has no stored facts or count."""
    ids, kinds, texts, counts = store.sessions.path_facts(session_id, "chars4")
    if any(text is None for text in texts) or any(count is None for count in counts):
        return None
    if entries is None:

        def fetch(start: int, stop: int) -> list[Entry]:
            return list(store.sessions.path_entries(session_id, start, stop))

        entries = StoredEntries(len(ids), fetch)
    # one parse of the whole path's facts: a parser call per entry cost several times more
    facts: list[dict[str, Any]] = json.loads("[" + ",".join(text for text in texts if text is not None) + "]")
    return StoredPath(entries, ids, kinds, facts), [count for count in counts if count is not None]
