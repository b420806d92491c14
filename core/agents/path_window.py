"""A stored session's active path with full entries only from a window near its end, every earlier one read when asked for.

Why: a compaction of a 100,000-entry pi session reads the span after the latest
compaction's first kept entry (~10% of the path); rebuilding every entry as a model
cost ~2.3 s. The plan comes from the path's stored index facts (core.agents.index_facts);
the engine and the audit read entries through this sequence, which holds the window
and fetches anything before it (correct for any reader, fast for the ones that stay
in the window).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, overload

from cutline.core.agents.context import context_indices
from cutline.core.agents.index_facts import CONTEXT_EDIT, IN_CONTEXT, PI_CURRENT_SIGN, RESET, WEIGHT
from cutline.core.agents.light import LightEntry
from cutline.core.models import Entry

Fetch = Callable[[int, int], list[Entry]]
# positions [lo, hi) of the path, a light entry where the store row is a pi message line msgspec reads
FetchLight = Callable[[list[int]], list[Entry | LightEntry]]
# entry types whose entry must be read to tell whether it gives a summary a message (`PathWindow.gives_message`)
_READ_TO_TELL = frozenset(("custom_message", "branch_summary"))
FetchAt = Callable[[list[int]], dict[int, Entry]]
# entries fetched at once for a read before the window (explanations look at one or two)
_CHUNK = 64
# entries fetched at once by a walk over the held part (`LazyEntries`)
_RUN = 2_048


def window_start(ids: list[str], kinds: list[str], facts: list[dict[str, Any]]) -> int | None:
    """Where the window of a path starts: the latest compaction or its first kept entry, whichever is earlier.

    None when the path cannot be read from a window: a pi `context_edit` (what it omits
    or replaces may lie anywhere before it) or an OpenClaw reset (its kept entries are
    chosen from the whole path). 0 when there is no compaction: the context is the whole path.
    Why this start: every reader of the context (`context_indices`, pi's and current pi's
    planners, the rebuilt context after a new compaction) starts at the latest compaction's
    summary and its kept entries.
    """
    last = -1
    for i, fact in enumerate(facts):
        if fact["f"] & (CONTEXT_EDIT | RESET):
            return None
        if kinds[i] == "compaction":
            last = i
    if last < 0:
        return 0
    kept = facts[last].get("k")
    if kept:
        try:
            return min(last, ids.index(kept, 0, last))
        except ValueError:
            return last
    return last


class LazyEntries(Sequence[Entry]):
    """Positions [lo, hi) of a stored path as a sequence whose entries are read from the store when first asked for.

    Why: a path with no compaction is its own window, and a plan reads only a few of
    its 100,000 entries (the rest it takes from the stored facts); rebuilding every
    entry as a model cost ~2 s and ~700 MB. A read fetches the block of `_CHUNK`
    entries around it; a walk over the whole (`__iter__`) fetches `_RUN` at a time.
    """

    def __init__(self, lo: int, hi: int, fetch: Fetch, fetch_at: FetchAt | None = None) -> None:
        self._lo = lo
        self._n = max(0, hi - lo)
        self._fetch = fetch
        self._fetch_at = fetch_at
        self._held: dict[int, Entry] = {}
        self.fetched = 0  # entries read from the store (a test counts them)

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> Entry: ...

    @overload
    def __getitem__(self, i: slice) -> list[Entry]: ...

    def __getitem__(self, i: int | slice) -> Entry | list[Entry]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        found = self._held.get(i)
        if found is None:
            lo = i - i % _CHUNK
            self._read(lo, min(self._n, lo + _CHUNK))
            found = self._held[i]
        return found

    def _read(self, lo: int, hi: int) -> None:
        """Read positions [lo, hi) (relative), keeping what is held already."""
        entries = self._fetch(self._lo + lo, self._lo + hi)
        held = self._held
        for k, entry in enumerate(entries, lo):
            held.setdefault(k, entry)
        self.fetched += len(entries)

    def prefetch(self, indices: list[int]) -> None:
        """Read the entries at these (relative) positions in one go, where not held yet (needs `fetch_at`)."""
        missing = [k for k in indices if 0 <= k < self._n and k not in self._held]
        if not missing or self._fetch_at is None:
            return
        found = self._fetch_at([self._lo + k for k in missing])
        for k in missing:
            self._held[k] = found[self._lo + k]
        self.fetched += len(missing)

    def __iter__(self) -> Iterator[Entry]:
        held = self._held
        for lo in range(0, self._n, _RUN):
            hi = min(self._n, lo + _RUN)
            if any(k not in held for k in range(lo, hi)):
                self._read(lo, hi)
            for k in range(lo, hi):
                yield held[k]

    def __reversed__(self) -> Iterator[Entry]:
        for k in range(self._n - 1, -1, -1):
            yield self[k]

    @property
    def held(self) -> int:
        """How many entries the sequence keeps (those read by `__getitem__`, `prefetch` and `__iter__`)."""
        return len(self._held)

    def read(self) -> list[Entry]:
        """Every entry, read once."""
        return list(self)

    def read_unkept(self, indices: list[int]) -> list[Entry]:
        """The entries at these (relative, ascending) positions, read where not held, and not kept.

        Why: a summary of an uncompacted path walks ~100,000 entries once; keeping each
        one read (as `__getitem__` does) held them all (~700 MB at 100k).
        """
        held = self._held
        if all(k in held for k in indices):
            return [held[k] for k in indices]
        lo, hi = indices[0], indices[-1] + 1
        if hi - lo <= 2 * len(indices) or self._fetch_at is None:
            block = self._fetch(self._lo + lo, self._lo + hi)
            self.fetched += len(block)
            return [held.get(k) or block[k - lo] for k in indices]
        found = self._fetch_at([self._lo + k for k in indices])
        self.fetched += len(indices)
        return [held.get(k) or found[self._lo + k] for k in indices]


class PathWindow(Sequence[Entry]):
    """The active path as a sequence: entries from `start` on held, the ones before fetched on demand.

    `ids`, `kinds`, `facts` (parsed) and `counts` are the stored columns of the whole
    path (`Sessions.path_window` reads them), so a planner index and usage samples need no entry.
    `tail` may be a `LazyEntries` (held entries read when first asked for). `plain`, when
    given, marks each position whose entry a planner may take from its facts and count
    alone (`Sessions.path_window`: a user, assistant or toolResult message that reaches the
    model, whose stored chars4 count is current pi's estimate too; see rules.pi_current), and
    2 where the entry gives the model nothing (a Claude Code or Codex `other` record).
    """

    def __init__(
        self,
        ids: list[str],
        kinds: list[str],
        facts: list[dict[str, Any]],
        counts: list[int],
        start: int,
        tail: Sequence[Entry],
        fetch: Fetch,
        plain: bytes | None = None,
        *,
        fetch_light: FetchLight | None = None,
    ) -> None:
        if len(tail) != len(ids) - start:
            raise ValueError(f"{len(tail)} window entries for positions {start}..{len(ids) - 1}")
        self.ids = ids
        self.kinds = kinds
        self.facts = facts
        self.counts = counts
        self.start = start
        self._tail = tail
        self._fetch = fetch
        self._fetch_light = fetch_light
        self._early: dict[int, Entry] = {}
        self.fetched = 0  # entries read before the window (a test looks)
        self.plain = plain
        self._current_pi_sign: bool | None = None  # `current_pi_sign`, once told

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, i: int) -> Entry: ...

    @overload
    def __getitem__(self, i: slice) -> list[Entry]: ...

    def __getitem__(self, i: int | slice) -> Entry | list[Entry]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self.ids)))]
        n = len(self.ids)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        if i >= self.start:
            return self._tail[i - self.start]
        found = self._early.get(i)
        if found is None:
            lo = max(0, i - _CHUNK // 2)
            hi = min(self.start, lo + _CHUNK)
            self._remember(lo, self._fetch(lo, hi))
            found = self._early[i]
        return found

    def _remember(self, lo: int, entries: list[Entry]) -> None:
        for k, entry in enumerate(entries):
            self._early[lo + k] = entry
        self.fetched += len(entries)

    def __iter__(self) -> Iterator[Entry]:
        if self.start and len(self._early) < self.start:
            self._remember(0, self._fetch(0, self.start))
        for i in range(self.start):
            yield self._early[i]
        yield from self._tail

    def __reversed__(self) -> Iterator[Entry]:
        yield from reversed(self._tail)
        for i in range(self.start - 1, -1, -1):
            yield self[i]

    def read_unkept(self, positions: list[int]) -> list[Entry]:
        """The entries at these path positions (ascending), read a block from the store where not held, and not kept.

        For a walk over a long span (a summary reading the summarized part a slice at a
        time): neither the window's held part nor its early entries grow with it.
        """
        start = self.start
        early = [i for i in positions if i < start]
        found: list[Entry] = []
        if early:
            missing = [i for i in early if i not in self._early]
            block = self._fetch(missing[0], missing[-1] + 1) if missing else []
            lo = missing[0] if missing else 0
            found = [self._early.get(i) or block[i - lo] for i in early]
        held = [i - start for i in positions if i >= start]
        if held:
            tail = self._tail
            if isinstance(tail, LazyEntries):
                found += tail.read_unkept(held)
            else:
                found += [tail[k] for k in held]
        return found

    def read_light(self, positions: list[int]) -> list[Entry | LightEntry]:
        """`read_unkept`, but each message msgspec reads comes as a light entry (core.agents.light), read from the store:
        a pi message line, or a Claude Code or Codex message's stored model.

        For a walk that reads the messages' values once (the extractive summary): a light
        entry costs about a third of a validated one. Where the window has no light reader
        the entries are `read_unkept`'s. Only the positions asked for are built (a Codex span
        is ~70 % records that give no message).
        """
        fetch_light = self._fetch_light
        if fetch_light is None or not positions:
            return list(self.read_unkept(positions))
        return fetch_light(positions)

    def may_give_messages(self, positions: list[int]) -> list[int]:
        """The positions whose entry gives a message or may (`gives_message` is not False), in one pass over the facts.

        Why: a span of an uncompacted 100k session asked `gives_message` once per position,
        a method call each, for each span the compaction makes.
        """
        kinds, facts = self.kinds, self.facts
        return [
            i
            for i in positions
            if ((kind := kinds[i]) == "message" and facts[i]["f"] & IN_CONTEXT) or kind in _READ_TO_TELL
        ]

    def gives_message(self, position: int) -> bool | None:
        """Whether the entry at `position` gives a message to a summary, from its facts; None when they cannot tell.

        A `message` entry gives one when its facts mark it in the context (a message, not a
        sidechain nor a compact-summary record: `IN_CONTEXT`, set from the same entry at
        import); entries of the types `entry_message` answers None for give none; a custom
        message or a branch summary must be read (few).
        """
        kind = self.kinds[position]
        if kind == "message":
            return bool(self.facts[position]["f"] & IN_CONTEXT)
        if kind in _READ_TO_TELL:
            return None
        return False

    def tail(self) -> list[Entry]:
        """The held entries, positions `start` to the end (read now when the window reads them lazily)."""
        tail = self._tail
        if not isinstance(tail, list):
            tail = list(tail)
            self._tail = tail
        return tail

    def prefetch(self, positions: list[int]) -> None:
        """Read the held part's entries at these path positions in one go when the window reads lazily."""
        if isinstance(self._tail, LazyEntries):
            start = self.start
            self._tail.prefetch([i - start for i in positions if i >= start])

    def entries_kept(self) -> int:
        """How many entries the window keeps now: its held part's (all of them unless it reads lazily) and the early ones read."""
        tail = self._tail
        return (tail.held if isinstance(tail, LazyEntries) else len(tail)) + len(self._early)

    def tail_fetched(self) -> int:
        """Entries of the held part read from the store so far (all of them unless the window reads lazily)."""
        tail = self._tail
        return tail.fetched if isinstance(tail, LazyEntries) else len(tail)

    def context_indices(self) -> list[int]:
        """`context_indices` of the whole path, computed on the window alone.

        The same: the window holds the latest compaction and its first kept entry (or,
        with no compaction, the whole path), and no context_edit is on the path. With no
        compaction the stored weights tell it (`weights`): a lazy window reads no entry.
        """
        if "compaction" not in self.kinds:
            # no compaction: every entry that weighs in the context, from the stored facts (no entry read)
            return [i for i, fact in enumerate(self.facts) if fact["f"] & WEIGHT]
        start = self.start
        return [start + i for i in context_indices(self.tail())]

    def weights(self) -> list[bool]:
        """`context_weight` of the whole path, from the stored facts (no context_edit is on the path)."""
        return [bool(fact["f"] & WEIGHT) for fact in self.facts]

    def current_pi_sign(self) -> bool:
        """Whether an entry shows current pi wrote the path (the facts' flag for `rules.choice.evidence`).

        Told once per window: a plan asks twice (the window's rule set, then the plan's), and each
        answer scanned every fact (100,000 on an uncompacted path).
        """
        if self._current_pi_sign is None:
            self._current_pi_sign = any(fact["f"] & PI_CURRENT_SIGN for fact in self.facts)
        return self._current_pi_sign

    def head(self, stop: int) -> PathWindow:
        """The window of the path's first `stop` entries, from the same start (`stop` must not be before it).

        Why: the path before a compaction is read from the window of the path through it,
        whose start also covers the context before it (`Sessions.path_window`'s `before`).
        """
        if stop < self.start:
            raise ValueError(f"the first {stop} entries end before the window start {self.start}")
        window = PathWindow(
            self.ids[:stop],
            self.kinds[:stop],
            self.facts[:stop],
            self.counts[:stop],
            self.start,
            self.tail()[: stop - self.start],
            self._fetch,
            self.plain[:stop] if self.plain is not None else None,
        )
        window._early = self._early
        return window
