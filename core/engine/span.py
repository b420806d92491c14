"""The messages a compaction summarizes, read a slice of entries at a time and not kept.

Why: a session with no compaction summarizes ~99% of its path; building every one of
100,000 entries as a message and holding them for the summary's whole run cost ~1.5 GB.
A `MessageSpan` is a sequence over the path positions the plan summarizes: each walk
reads `BLOCK` entries, turns them into messages, hands them on and lets them go; its
length comes from the stored facts of a window (no entry read). A path held as a list
(a whole session) is walked the same way over the entries it holds.

The store must be open while a span is walked: the engine walks it inside `compact()`,
and nothing of it outlives the proposal (the proposal holds text and the kept context).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from typing import overload

from cutline.core.agents.path_window import PathWindow
from cutline.core.models import Entry, Message

# entries read (and messages built) at once by a walk over a span
BLOCK = 512

Summarizable = Callable[[Entry], Message | None]


class MessageSpan(Sequence[Message]):
    """The messages of path positions `indices` (those giving one), read `BLOCK` entries at a time.

    Each walk reads the entries again: a caller that walks a span twice pays twice, and
    holds at most one block of entries and messages at once (`most_held` says how many).
    """

    def __init__(
        self,
        path: Sequence[Entry],
        indices: list[int],
        summarizable: Summarizable,
        remember: Callable[[Message], bool] | None = None,
    ) -> None:
        self._path = path
        n = len(path)
        self._indices = [i for i in indices if 0 <= i < n]
        if isinstance(path, PathWindow):
            # positions whose facts say they give no message are never read (as `_counted` counts them):
            # a Codex span is ~70 % event and context records (50k: 51,474 entries rebuilt for 13,639 messages)
            self._indices = [i for i in self._indices if path.gives_message(i) is not False]
        self._summarizable = summarizable
        self._count: int | None = None
        # the messages `remember` picks, by block, as walks read them (`remembered`)
        self._remember = remember
        self._picked: dict[int, list[Message]] = {}
        self.blocks = 0  # blocks read so far (a test counts the walks)
        self.most_held = 0  # the most entries held at once by a walk (a test reads it)

    def _entries(self, positions: list[int]) -> list[Entry]:
        path = self._path
        if isinstance(path, PathWindow):
            return path.read_unkept(positions)
        return [path[i] for i in positions]

    def _block(self, at: int) -> list[Message]:
        enabled = gc.isenabled()
        gc.disable()  # a block is ~10,000 new objects, all alive until the walk moves on: nothing for the collector
        try:
            entries = self._entries(self._indices[at : at + BLOCK])
        finally:
            if enabled:
                gc.enable()
        self.blocks += 1
        self.most_held = max(self.most_held, len(entries))
        summarizable = self._summarizable
        messages = [m for m in map(summarizable, entries) if m is not None]
        if self._remember is not None:
            self._picked[at] = [m for m in messages if self._remember(m)]
        return messages

    @property
    def remembers(self) -> bool:
        """Whether walks remember some messages (`remembered`)."""
        return self._remember is not None

    def remembered(self) -> list[Message]:
        """The messages `remember` picks, in order: kept from the walks so far, the blocks no walk read read now.

        Why: the summary walks the span once; a second reader that wants only a few of its
        messages (the errored tool results of the failures section) takes them from that
        walk instead of reading 100,000 entries again.
        """
        if self._remember is None:
            raise ValueError("this span remembers nothing")
        picked: list[Message] = []
        for at in range(0, len(self._indices), BLOCK):
            if at not in self._picked:
                self._block(at)
            picked += self._picked[at]
        return picked

    def __iter__(self) -> Iterator[Message]:
        count = 0
        for at in range(0, len(self._indices), BLOCK):
            block = self._block(at)
            count += len(block)
            yield from block
        self._count = count

    def __reversed__(self) -> Iterator[Message]:
        for at in reversed(range(0, len(self._indices), BLOCK)):
            yield from reversed(self._block(at))

    def __len__(self) -> int:
        if self._count is None:
            self._count = self._counted()
        return self._count

    def _counted(self) -> int:
        """How many positions give a message: from a window's facts where they tell, else from the entry."""
        path = self._path
        if not isinstance(path, PathWindow):
            summarizable = self._summarizable
            return sum(1 for i in self._indices if summarizable(path[i]) is not None)
        count = 0
        unsure: list[int] = []
        for i in self._indices:
            gives = path.gives_message(i)
            if gives is None:
                unsure.append(i)
            elif gives:
                count += 1
        for at in range(0, len(unsure), BLOCK):
            count += sum(1 for e in path.read_unkept(unsure[at : at + BLOCK]) if self._summarizable(e) is not None)
        return count

    @overload
    def __getitem__(self, i: int) -> Message: ...

    @overload
    def __getitem__(self, i: slice) -> list[Message]: ...

    def __getitem__(self, i: int | slice) -> Message | list[Message]:
        if isinstance(i, slice):
            start, stop, step = i.start, i.stop, i.step
            if step in (None, 1) and stop is None and start is not None and start < 0:
                # the last -start messages (the guard's and the layouts' "last ten"): read from the end
                out: list[Message] = []
                for message in reversed(self):
                    if len(out) == -start:
                        break
                    out.append(message)
                return out[::-1]
            return list(self)[i]
        walk = reversed(self) if i < 0 else iter(self)
        want = -i - 1 if i < 0 else i
        for k, message in enumerate(walk):
            if k == want:
                return message
        raise IndexError(i)
