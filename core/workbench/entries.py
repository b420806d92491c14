"""A session's active path as the desk and the plan read it: entries read a window at a time, tool pairs, what is outside.

Why in core: the desk, the CLI and the reports read the same facts of a path; the
shape a long path is held in (rebuilt entries, stored rows read as needed) is chosen
by the workbench, never by a screen.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Generic, TypeVar, overload

from cutline.core.models import Entry, ToolCallBlock

K = TypeVar("K")
V = TypeVar("V")


class _Recent(Generic[K, V]):
    """The `size` most recently used values by key (a small LRU cache)."""

    def __init__(self, size: int) -> None:
        self._size = max(1, size)
        self._values: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._values.get(key)
        if value is not None:
            self._values.move_to_end(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._values[key] = value
        self._values.move_to_end(key)
        while len(self._values) > self._size:
            self._values.popitem(last=False)


class StoredEntries(Sequence[Entry]):
    """A long path's entries, read from the store a window at a time and kept in an LRU cache.

    Why: a 100,000-entry session is shown before it is rebuilt in memory; only the
    windows that come into view are read. `load_window` blocks (call it in a worker);
    indexing a row whose window is not read yet reads it at once.
    """

    WINDOW = 128

    def __init__(self, length: int, fetch: Callable[[int, int], list[Entry]], windows: int = 64) -> None:
        self.length = length
        self._fetch = fetch
        self._windows: _Recent[int, list[Entry]] = _Recent(windows)
        self._lock = threading.Lock()  # the list's workers and the planner on the event loop read windows together

    def __len__(self) -> int:
        return self.length

    def window_of(self, index: int) -> int:
        return index // self.WINDOW

    def cached(self, index: int) -> Entry | None:
        """The entry at `index` if its window has been read, else None (never blocks)."""
        with self._lock:
            window = self._windows.get(index // self.WINDOW)
        if window is None:
            return None
        offset = index % self.WINDOW
        return window[offset] if offset < len(window) else None

    def load_window(self, window: int) -> None:
        """Read one window of entries from the store (blocking)."""
        with self._lock:
            known = self._windows.get(window) is not None
        if not known:
            start = window * self.WINDOW
            rows = self._fetch(start, min(self.length, start + self.WINDOW))
            with self._lock:
                self._windows[window] = rows

    @overload
    def __getitem__(self, index: int) -> Entry: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Entry]: ...
    def __getitem__(self, index: int | slice) -> Entry | Sequence[Entry]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.length))]
        if index < 0:
            index += self.length
        if not 0 <= index < self.length:
            raise IndexError(index)
        entry = self.cached(index)
        if entry is None:
            self.load_window(index // self.WINDOW)
            entry = self.cached(index)
            if entry is None:
                raise IndexError(index)
        return entry


def pair_numbers(path: Sequence[Entry]) -> tuple[dict[int, int], dict[int, int]]:
    """Map entry positions to tool-pair numbers: calls by the first call they hold, results by the call they answer.

    Returns (pair_of_row, partner_of_row) where partner links a call row to its first
    result row and a result row back to its call row.
    """
    return pair_rows(
        (
            [block.id for block in entry.message.content if isinstance(block, ToolCallBlock)],
            entry.message.tool_result_ids(),
        )
        if entry.message is not None
        else ((), ())
        for entry in path
    )


def pair_rows(rows: Iterable[tuple[Iterable[str], Iterable[str]]]) -> tuple[dict[int, int], dict[int, int]]:
    """`pair_numbers` over each row's (tool call ids, tool result ids), however the rows are read."""
    call_pair: dict[str, tuple[int, int]] = {}
    pair_of_row: dict[int, int] = {}
    partner: dict[int, int] = {}
    counter = 0
    for index, (calls, results) in enumerate(rows):
        for call_id in calls:
            call_pair[call_id] = (counter, index)
            pair_of_row.setdefault(index, counter)
            counter += 1
        for call_id in results:
            found = call_pair.get(call_id)
            if found is None:
                continue
            number, call_row = found
            pair_of_row.setdefault(index, number)
            partner.setdefault(index, call_row)
            partner.setdefault(call_row, index)
    return pair_of_row, partner


def outside_end(path: Sequence[Entry], index_of: dict[str, int]) -> int:
    """Path index before which entries are already out of the context (dropped by the latest compaction)."""
    for i in range(len(path) - 1, -1, -1):
        entry = path[i]
        if entry.type == "compaction":
            kept = entry.compaction.firstKeptEntryId if entry.compaction is not None else None
            start = index_of.get(kept, i) if kept else i
            return min(start, i)
    return 0


def call_paths(path: list[Entry]) -> dict[str, str]:
    """Tool call id -> the file path it named, so a tool result can be highlighted as that file's language."""
    paths: dict[str, str] = {}
    for entry in path:
        if entry.message is None:
            continue
        for call in entry.message.tool_calls():
            args = call.arguments if isinstance(call.arguments, dict) else {}
            value = args.get("path") or args.get("file_path")
            if isinstance(value, str):
                paths[call.id] = value
    return paths
