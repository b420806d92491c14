"""Messages, sessions and a recording summarizer for engine tests."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compact import compact
from cutline.core.engine.plan import plan
from cutline.core.errors import SummarizerError
from cutline.core.models import CompactionRecord, Entry, Message, Session, TextBlock, ToolCallBlock
from cutline.core.releases.openclaw_2026_9.guard import REQUIRED_SUMMARY_SECTIONS
from cutline.core.summarizers.base import Summarizer, SummaryRequest

DAY = dt.date(2026, 1, 28)


class Recorder(Summarizer):
    """Answers each request with a fixed text per kind and records the requests and the peak concurrency."""

    name = "recorder"

    def __init__(self, delay: float = 0.0, fail=None) -> None:
        self.requests: list[SummaryRequest] = []
        self.delay = delay
        self.fail = fail
        self.in_flight = 0
        self.peak = 0

    async def summarize(self, request: SummaryRequest) -> str:
        self.requests.append(request)
        number = len(self.requests)
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
            if self.fail is not None and self.fail(request):
                raise SummarizerError("model refused")
            if request.kind == "merge":
                return "MERGED(" + " | ".join(request.partial_summaries) + ")"
            if request.kind == "turn_prefix":
                return "PREFIX"
            return f"{request.kind.upper()}{number}"
        finally:
            self.in_flight -= 1


def user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text=text)])


def assistant(text: str = "", *calls: tuple[str, str, dict]) -> Message:
    blocks = [TextBlock(text=text)] if text else []
    blocks += [ToolCallBlock(id=i, name=n, arguments=a) for i, n, a in calls]
    return Message(role="assistant", content=blocks, stopReason="toolUse" if calls else "stop")


def result(call_id: str, text: str, error: bool = False, name: str = "bash") -> Message:
    return Message(role="toolResult", toolCallId=call_id, toolName=name, isError=error, content=[TextBlock(text=text)])


def session_of(messages: list[Message], compaction: CompactionRecord | None = None, at: int | None = None) -> Session:
    """A pi session from messages (ids m0001...), with an optional compaction entry after message `at`."""
    entries: list[Entry] = []
    parent = None
    for n, message in enumerate(messages):
        entry = Entry(id=f"m{n:04d}", parentId=parent, type="message", message=message)
        entries.append(entry)
        parent = entry.id
        if compaction is not None and at == n:
            entries.append(Entry(id="c0000000", parentId=parent, type="compaction", compaction=compaction))
            parent = "c0000000"
    return Session(id="s1", format="pi", version=3, entries=entries)


# a final user message of 12 tokens: with a small keepRecentTokens the cut lands on it (no split turn)
LATEST = Message(role="user", content=[TextBlock(text="latest " + "x" * 41)])


def run(session: Session, settings: CompactionSettings, summarizer: Summarizer, **kw: Any) -> Any:
    the_plan = plan(session.active_path(), settings)
    return asyncio.run(compact(the_plan, session, summarizer, settings, today=DAY, **kw)), the_plan


class Scripted(Summarizer):
    """Answers history requests with the given texts in turn; records them."""

    name = "scripted"

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.requests: list[SummaryRequest] = []

    async def summarize(self, request: SummaryRequest) -> str:
        self.requests.append(request)
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


GOOD = "\n\n".join(f"{h}\n- item" for h in REQUIRED_SUMMARY_SECTIONS)
