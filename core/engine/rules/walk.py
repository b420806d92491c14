"""The cut-point walk current pi and OpenClaw 2026.9 share, over a list of planner items, in O(log n) a plan.

Both agents walk back from the newest item summing estimates until keepRecentTokens is
reached, take the nearest cut point at or after that item (else the last one), move
back over items that add nothing to context, and call the turn split unless the cut
item starts a turn. They differ in what an item is and which items count: each rule
set builds `Item`s (its projection) and passes its choices here.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from dataclasses import dataclass, field
from itertools import accumulate, compress

from cutline.core.engine.path_index import js_sorted
from cutline.core.models import Message


@dataclass(slots=True)
class Item:
    """One entry as a planner sees it: its path index, kind, the messages it contributes and their weight."""

    pos: int
    kind: str
    messages: list[Message]
    weight: int
    cut: bool = False  # a valid first kept item
    turn: bool = False  # starts a turn
    counted: bool = False  # the walk adds it (pi: weight > 0; OpenClaw: it has a message)
    barrier: bool = False  # the move back stops after it (a compaction, or an item that reaches the model)
    summarized: int = 0  # messages it gives to the summary when summarized
    entry_id: str = ""
    fileops: list[tuple[int, str]] = field(default_factory=list)  # (0 read / 1 written / 2 edited, path)


@dataclass
class Cut:
    """Where the walk crossed keepRecentTokens, where the cut landed and whether it splits a turn (item indices)."""

    first: int
    turn_start: int
    split: bool
    crossing: int | None
    candidate: int | None
    exceeded: bool


class Walk:
    """Prefix sums and sorted index lists over items, built once per path and rule set."""

    def __init__(self, items: list[Item]) -> None:
        self.items = items
        self.n = len(items)
        self.prefix = [0, *accumulate(it.weight for it in items)]
        self.summary_prefix = [0, *accumulate(it.summarized for it in items)]
        self.summary_tokens = [0, *accumulate(it.weight if it.summarized else 0 for it in items)]
        self.cuts = [i for i, it in enumerate(items) if it.cut]
        self.turns = [i for i, it in enumerate(items) if it.turn]
        self.counted = [i for i, it in enumerate(items) if it.counted]
        self.barriers = [i for i, it in enumerate(items) if it.barrier]
        self._first_ops: dict[int, tuple[list[list[int]], list[list[str]]]] = {}
        self._sorted_ops: dict[int, list[tuple[list[str], list[int], dict[str, int], bool]]] = {}
        self._positions: list[int] | None = None
        self._breaks: list[int] | None = None
        self._entry_tokens: list[int] | None = None

    def entry_tokens(self, tokens: list[int]) -> list[int]:
        """Every path entry's count (`tokens`, the index's), each walked item's weight in its place.

        Made by the first plan and kept: no setting changes it (a re-plan copied 100,000 counts).
        """
        if self._entry_tokens is None:
            weights = list(tokens)
            for it in self.items:
                weights[it.pos] = it.weight
            self._entry_tokens = weights
        return self._entry_tokens

    @property
    def positions(self) -> list[int]:
        """Each item's path index, in item order (built on first use, kept: a re-plan only slices it)."""
        if self._positions is None:
            self._positions = [it.pos for it in self.items]
        return self._positions

    def spans(self, start: int, stop: int) -> list[tuple[int, int]]:
        """The runs of consecutive path indices of items [start, stop), as (first, last + 1).

        The same runs a scan of `positions[start:stop]` finds, in O(log n + runs): where each
        run after the first begins is kept once per walk (a re-plan moves the cut, not the path).
        """
        if stop <= start:
            return []
        breaks = self._breaks
        if breaks is None:
            positions = self.positions
            breaks = self._breaks = [j for j in range(1, self.n) if positions[j] != positions[j - 1] + 1]
        positions = self.positions
        inner = breaks[bisect_right(breaks, start) : bisect_left(breaks, stop)]
        firsts = [start, *inner]
        ends = [*inner, stop]
        return [(positions[a], positions[b - 1] + 1) for a, b in zip(firsts, ends)]

    def file_ops_from(self, start: int, stop: int) -> list[list[str]]:
        """The paths each kind of file operation (0 read, 1 written, 2 edited) names in items [start, stop), each once.

        Why: a plan's file lists are the operations of the items it summarizes, [start of the
        walk, cut); gathered item by item they were a pass over every summarized item on every
        re-plan (~20 ms of a 100,000-entry path's plan). Per `start`, each path's first
        operation at or after it is kept in item order (built once, kept with the walk:
        re-plans move the cut, not the start); the paths named before `stop` are a prefix.
        Two threads building it at once make the same lists.
        """
        first = self._first_ops.get(start)
        if first is None:
            places: list[list[int]] = [[], [], []]
            paths: list[list[str]] = [[], [], []]
            seen: tuple[set[str], set[str], set[str]] = (set(), set(), set())
            for i in range(start, self.n):
                for kind, target in self.items[i].fileops:
                    if target not in seen[kind]:
                        seen[kind].add(target)
                        places[kind].append(i)
                        paths[kind].append(target)
            first = self._first_ops[start] = (places, paths)
        places, paths = first
        return [paths[kind][: bisect_left(places[kind], stop)] for kind in range(3)]

    def sorted_file_ops(self, start: int, stop: int, extra: list[list[str]]) -> list[list[str]]:
        """The paths read, written, edited and modified (written or edited) in items [start, stop) and `extra`
        (per kind: the paths named outside those items), each kind's JS-sorted and each path once.

        Why: sorting a plan's file lists again on every re-plan (thousands of paths on a long
        path) was most of a warm re-plan. Per `start`, each kind's paths are sorted once with
        the place each is first named; a plan's lists are those named before `stop`, taken in
        sorted order, with the few `extra` paths not among them put in their places.
        """
        found = self._sorted_ops.get(start)
        if found is None:
            found = self._sorted_ops[start] = self._sort_ops(start)
        lists: list[list[str]] = []
        for (order, places, place_of, ascii_only), more in zip(found, extra):
            named = list(compress(order, map(stop.__gt__, places)))
            added = {p for p in more if place_of.get(p, stop) >= stop}
            if added and ascii_only and all(p.isascii() for p in added):
                for path in added:  # code-point order is JavaScript's for ASCII
                    insort(named, path)
            elif added:
                named = js_sorted([*named, *added])
            lists.append(named)
        return lists

    def _sort_ops(self, start: int) -> list[tuple[list[str], list[int], dict[str, int], bool]]:
        """Per kind (read, written, edited, modified): its paths JS-sorted, their first places, each path's, ASCII-only."""
        self.file_ops_from(start, start)
        places, paths = self._first_ops[start]
        place_of = [dict(zip(paths[kind], places[kind])) for kind in range(3)]
        written, edited = place_of[1], place_of[2]
        place_of.append({p: min(written.get(p, self.n), edited.get(p, self.n)) for p in written.keys() | edited.keys()})
        out = []
        for where in place_of:
            order = js_sorted(where)
            out.append((order, [where[p] for p in order], where, "".join(order).isascii()))
        return out

    def crossing(self, start: int, end: int, keep: float) -> int | None:
        """The counted item where the running sum from the end first reaches `keep` (None when it never does)."""
        total = self.prefix[end]
        prefix = self.prefix
        # suffix sums total - prefix[i] only fall as i grows: the last i whose suffix still reaches keep
        last = bisect_left(range(start, end), True, key=lambda i: total - prefix[i] < keep) + start - 1
        if last < start:
            return None
        k = bisect_right(self.counted, last) - 1
        if k < 0 or self.counted[k] < start:
            return None
        return self.counted[k]

    def find_cut(self, start: int, end: int, keep: float) -> Cut:
        """The nearest cut point at or after the crossing (the last one when none is; the first when never crossed)."""
        lo = bisect_left(self.cuts, start)
        hi = bisect_left(self.cuts, end)
        if lo >= hi:
            return Cut(first=start, turn_start=-1, split=False, crossing=None, candidate=None, exceeded=False)
        crossing = self.crossing(start, end, keep)
        if crossing is None:
            cut = self.cuts[lo]
        else:
            c = bisect_left(self.cuts, crossing, lo, hi)
            cut = self.cuts[c] if c < hi else self.cuts[hi - 1]
        return Cut(
            first=cut, turn_start=-1, split=False, crossing=crossing, candidate=cut, exceeded=crossing is not None
        )

    def move_back(self, cut: int, start: int) -> int:
        """Move the cut back over items that add nothing, stopping after a barrier (never before `start`)."""
        b = bisect_left(self.barriers, cut) - 1
        previous = self.barriers[b] if b >= 0 else -1
        return max(start, previous + 1) if cut > start else cut

    def turn_start(self, cut: int, start: int) -> tuple[int, bool]:
        """The item starting the turn the cut falls in, and whether the cut splits it."""
        if self.items[cut].turn if cut < self.n else False:
            return -1, False
        t = bisect_right(self.turns, cut) - 1
        if t >= 0 and self.turns[t] >= start:
            return self.turns[t], True
        return -1, False

    def messages_in(self, start: int, stop: int) -> int:
        return self.summary_prefix[stop] - self.summary_prefix[start] if stop > start else 0

    def tokens_in(self, start: int, stop: int) -> int:
        return self.summary_tokens[stop] - self.summary_tokens[start] if stop > start else 0

    def weight_in(self, start: int, stop: int) -> int:
        return self.prefix[stop] - self.prefix[start] if stop > start else 0
