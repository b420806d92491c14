"""A stored session's active path as columns (ids, types, roles, index facts), with its entries read only where asked for.

Why: `cutline tokens` and `cutline timeline` of a 100,000-entry pi session need, per
entry, its id, type, role, whether it starts a person's turn or is a model call, its
recorded usage and its cached counts; rebuilding every entry as a model for those cost
~2.3 s. The importer stores all of them (core.agents.index_facts), except one flag the
timeline reads, `isMeta`, and what a pi context_edit omits: the rows that may hold them
are read as entries (`PathColumns.flagged`, `PathColumns.omitted`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import msgspec

from cutline.core.agents.context import context_edits
from cutline.core.agents.index_facts import CONTEXT_EDIT, IN_CONTEXT, WEIGHT
from cutline.core.models import Entry

# the entries at these path indices, by path index
FetchAt = Callable[[list[int]], dict[int, Entry]]


class _Facts(msgspec.Struct, gc=False):
    """The index facts the columns keep: flags, prompt tokens, firstKept, usage, and whether there are tool results.

    Not tracked by the cyclic collector (`gc=False`: ints, a string and raw bytes hold no
    cycle): 100,000 tracked objects made the collector run over and over while decoding.
    """

    f: int
    p: int = 0
    k: str | None = None
    u: int | None = None
    r: msgspec.Raw = msgspec.Raw(b"")


_decode = msgspec.json.Decoder(list[_Facts]).decode
_CHUNK = 4_096


def _parsed(texts: list[str]) -> list[_Facts]:
    """Stored facts (JSON objects) decoded into the few fields kept, a chunk of entries per call; the other keys are skipped."""
    facts: list[_Facts] = []
    for at in range(0, len(texts), _CHUNK):
        facts.extend(_decode("[" + ",".join(texts[at : at + _CHUNK]) + "]"))
    return facts


def _parsed_loosely(texts: list[str]) -> list[_Facts]:
    """`_parsed` of facts the typed decoder refuses (a value of another type than the importer writes), kept as read."""
    import json

    facts: list[_Facts] = []
    for at in range(0, len(texts), _CHUNK):
        for fact in json.loads("[" + ",".join(texts[at : at + _CHUNK]) + "]"):
            has_results = msgspec.Raw(b"[]" if "r" in fact else b"")
            facts.append(_Facts(fact["f"], fact.get("p", 0), fact.get("k"), fact.get("u"), has_results))
    return facts


@dataclass
class PathColumns:
    """The active path of a stored pi session as columns, root first, and a way to read any of its entries.

    `flags`, `prompts` (`p` > 0), `kept` (`k`), `usage` (`u`) and `results` (rows with `r`)
    come from the stored index facts. `flagged` are the message rows whose entry may
    carry a flag the facts do not hold (see `Sessions.path_columns`); readers that need
    those flags read these rows as entries (`entries_at`).
    """

    session_id: str
    ids: list[str]
    kinds: list[str]
    roles: list[str | None]
    flags: list[int]
    prompts: dict[int, int]
    kept: dict[int, str]
    usage: dict[int, int]
    results: set[int]
    flagged: list[int]
    fetch: FetchAt
    _weights: bytes | None = field(default=None, init=False, repr=False)  # `weights()`, once made

    @classmethod
    def from_texts(
        cls,
        session_id: str,
        ids: list[str],
        kinds: list[str],
        roles: list[str | None],
        texts: list[str],
        may_be_meta: list[int],
        fetch: FetchAt,
    ) -> PathColumns:
        """The columns from the stored facts' JSON texts (`may_be_meta`: user message rows whose stored line may set `isMeta`)."""
        try:
            parsed = _parsed(texts)
        except msgspec.ValidationError:
            parsed = _parsed_loosely(texts)
        flags = [fact.f for fact in parsed]
        return cls(
            session_id,
            ids,
            kinds,
            roles,
            flags,
            {i: fact.p for i, fact in enumerate(parsed) if fact.p > 0},
            {i: fact.k for i, fact in enumerate(parsed) if fact.k},
            {i: fact.u for i, fact in enumerate(parsed) if fact.u is not None},
            {i for i, fact in enumerate(parsed) if len(fact.r)},
            _flagged(kinds, roles, flags, may_be_meta),
            fetch,
        )

    def weights(self) -> bytes:
        """`context_weight` of the path: 1 where an entry adds a message when it lies in the kept context.

        The stored `WEIGHT`, except for the entries a pi context_edit omits (`omitted`).
        """
        if self._weights is None:
            weights = bytearray(1 if flag & WEIGHT else 0 for flag in self.flags)
            omitted = self.omitted()
            if omitted:
                for i, entry_id in enumerate(self.ids):
                    if entry_id in omitted:
                        weights[i] = 0
            self._weights = bytes(weights)
        return self._weights

    def omitted(self) -> set[str]:
        """Ids of the entries the path's pi context_edits omit, as `context_weight` finds them.

        `context_edits` of the path's edits and their targets alone (each target at its last
        place on the path, as the whole path's lookup by id finds it) gives the same edits:
        an edit reads nothing but itself and its target.
        """
        edits = [i for i, flag in enumerate(self.flags) if flag & CONTEXT_EDIT]
        if not edits:
            return set()
        held = self.entries_at(edits)
        last = {entry_id: i for i, entry_id in enumerate(self.ids)}
        targets = {
            last[target]
            for entry in held.values()
            if isinstance(target := entry.data.get("targetId"), str) and target in last
        }
        held.update(self.entries_at(sorted(targets.difference(held))))
        path = [held[i] for i in sorted(held)]
        return {target for target, message in context_edits(path).items() if message is None}

    def entries_at(self, indices: list[int]) -> dict[int, Entry]:
        """The entries at these path indices, rebuilt from the store."""
        return self.fetch(indices) if indices else {}


def _flagged(kinds: list[str], roles: list[str | None], flags: list[int], may_be_meta: list[int]) -> list[int]:
    """Message rows of a user or an assistant whose flags the facts leave open, in path order.

    A message entry without `IN_CONTEXT` is a sidechain or compact-summary record (the
    facts do not say which); `may_be_meta` rows may be `isMeta` records.
    """
    open_rows = set(may_be_meta)
    for i, flag in enumerate(flags):
        if not flag & IN_CONTEXT and kinds[i] == "message" and roles[i] in ("user", "assistant"):
            open_rows.add(i)
    return sorted(open_rows)
