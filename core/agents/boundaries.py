"""Where one API message ends, for agents whose records split a message: a compaction may only cut between messages.

Claude Code writes one record per content block of an assistant message (same
`message.id`) and one record per parallel tool result; Codex writes each Responses item
(reasoning, text, each parallel `function_call`) as a record of its own, and each
`function_call_output` after them. Cutting between two such records keeps a tool result
whose call is summarized away (the API refuses it). The reader marks every record that
continues a message begun by an earlier record (`continuesMessage` on its message), and
every planner takes no such record as the first kept one.

A user-side record is a continuation too when tool results still follow it before the
next assistant message: they answer calls of the message before it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cutline.core.models import Entry, Message, ToolResultBlock

CONTINUES = "continuesMessage"


def continues_message(message: object) -> bool:
    """Whether this message's record continues an API message begun by an earlier record (never a first kept one).

    Only readers of agents that split messages mark one (pi's light messages never are).
    """
    extra = message.model_extra if isinstance(message, Message) else None
    return extra is not None and extra.get(CONTINUES) is True


def carries_results(message: Message) -> bool:
    """Whether a user-side message carries tool results (a run of them is one message's answers)."""
    return message.role == "toolResult" or any(isinstance(b, ToolResultBlock) for b in message.content)


def mark_continuing(message: Message) -> None:
    """Mark a message as continuing the one begun by an earlier record."""
    extra = message.model_extra
    if extra is None:  # extra="allow" models always have one; kept for the type checker
        return
    extra[CONTINUES] = True


def mark_continuations(path: Sequence[Entry], same_message: Callable[[Message, Message], bool]) -> None:
    """Mark, along a path in order, each record that continues the message of the records before it.

    `same_message(previous, current)` tells whether two consecutive assistant records
    are blocks of one API message (Claude Code: the same `message.id`; Codex: always,
    since one response's items come together). Records that are not sent (sidechains,
    compact-summary records) and entries without a message are skipped; a compaction
    ends the run.
    """
    marks = ContinuationMarks(same_message)
    for entry in path:
        marks.add(entry)
    marks.close_run()


class ContinuationMarks:
    """`mark_continuations` one entry at a time, for a reader that hands entries on as soon as they are final.

    An entry added is final (never marked later) unless its message is `open`: a
    user-side message of the run since the last assistant message, which the next
    assistant message, compaction or `close_run` decides.
    """

    def __init__(self, same_message: Callable[[Message, Message], bool]) -> None:
        self.same_message = same_message
        self.previous: Message | None = None
        self.run: list[Message] = []  # user-side messages since the last assistant message
        self._open: set[int] = set()  # id() of the run's messages

    def open(self, message: Message | None) -> bool:
        return message is not None and id(message) in self._open

    def close_run(self) -> None:
        run = self.run
        last_result = max((k for k, m in enumerate(run) if carries_results(m)), default=-1)
        for message in run[:last_result]:
            if not carries_results(message):
                mark_continuing(message)
        run.clear()
        self._open.clear()

    def add(self, entry: Entry) -> None:
        if entry.type == "compaction":
            self.close_run()
            self.previous = None
            return
        message = entry.message
        if entry.type != "message" or message is None or entry.isSidechain or entry.isCompactSummary:
            return
        if message.role == "assistant":
            self.close_run()
            previous = self.previous
            if previous is not None and previous.role == "assistant" and self.same_message(previous, message):
                mark_continuing(message)
            self.previous = message
        elif message.role != "system":
            self.run.append(message)
            self._open.add(id(message))
            self.previous = message
