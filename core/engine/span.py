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

from cutline.core.agents.entries import entry_from_json
from cutline.core.agents.light import LightEntry, LightMessage, LightModelEntry
from cutline.core.agents.path_window import PathWindow
from cutline.core.errors import CutlineError
from cutline.core.models import Entry, Message

# entries read (and messages built) at once by a walk over a span
BLOCK = 512

Summarizable = Callable[[Entry], Message | None]
# `Summarizable` of a light entry (core.agents.light): the same answer, as the light entry's message
LightSummarizable = Callable[[LightEntry], LightMessage | None]


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
        remember: Callable[[Message | LightMessage], bool] | None = None,
        *,
        light: LightSummarizable | None = None,
    ) -> None:
        self._path = path
        n = len(path)
        self._indices = [i for i in indices if 0 <= i < n]
        if isinstance(path, PathWindow):
            # positions whose facts say they give no message are never read (as `_counted` counts them):
            # a Codex span is ~70 % event and context records (50k: 51,474 entries rebuilt for 13,639 messages)
            self._indices = path.may_give_messages(self._indices)
        self._summarizable = summarizable
        self._light = light
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

    def _light_block(self, at: int, light: LightSummarizable) -> list[Message | LightMessage]:
        """`_block`, with a light message for each entry the window reads light; what `remember` picks is validated."""
        path = self._path
        assert isinstance(path, PathWindow)
        enabled = gc.isenabled()
        gc.disable()  # as `_block`
        try:
            entries = path.read_light(self._indices[at : at + BLOCK])
        finally:
            if enabled:
                gc.enable()
        self.blocks += 1
        self.most_held = max(self.most_held, len(entries))
        summarizable, remember = self._summarizable, self._remember
        messages: list[Message | LightMessage] = []
        picked: list[Message] = []
        for entry in entries:
            if type(entry) is LightEntry or type(entry) is LightModelEntry:
                seen = light(entry)
                if seen is None:
                    continue
                messages.append(seen)
                if remember is not None and remember(seen):
                    picked.append(self._validated(entry))
            else:
                assert isinstance(entry, Entry)
                message = summarizable(entry)
                if message is None:
                    continue
                messages.append(message)
                if remember is not None and remember(message):
                    picked.append(message)
        if remember is not None:
            self._picked[at] = picked
        return messages

    def _validated(self, entry: LightEntry) -> Message:
        """The pydantic message of a light entry (the store's own rebuild of its line or model): for the few a walk remembers."""
        if type(entry) is LightModelEntry:
            rebuilt: Entry | None = entry_from_json(entry.model_json)
        else:
            from cutline.core.agents.pi.reader import entry_from_line  # pi's reader, for pi lines only

            rebuilt = entry_from_line(entry.raw_line, entry.line)
        message = self._summarizable(rebuilt) if rebuilt is not None else None
        if message is None:
            raise CutlineError(
                f"stored entry at line {entry.line} cannot be rebuilt from its line (re-import the file)"
            )
        return message

    def read_light(self) -> Iterator[Message | LightMessage]:
        """One walk over the span, as iterating it, but a pi message line msgspec reads comes as its light message.

        Why: the extractive summary reads each message's values once; a light message
        (core.agents.light: the same values, without the fields the light structs leave out)
        costs about a third of a validated one. Without a light reader (`light`, or a
        window that reads light) the walk is `__iter__`'s.
        """
        light = self._light
        if light is None or not isinstance(self._path, PathWindow):
            yield from self
            return
        count = 0
        for at in range(0, len(self._indices), BLOCK):
            block = self._light_block(at, light)
            count += len(block)
            yield from block
        self._count = count

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
