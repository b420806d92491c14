"""The request Claude Code (2.1.33x) sends next, rebuilt from the linear active path the reader made.

What the corpus shows the program doing (tests/fixtures/corpus/README.md, Claude Code section):
- after a compaction: the records after the boundary, the summary record sent as a plain user
  message, the `preservedSegment` (head..tail, from before the boundary) right after it;
- a resumed summary with nothing after it is answered by a synthetic assistant
  "No response requested." that the file does not hold yet;
- the block records of one API message (same `message.id`) are one assistant message; a run
  of user-side records between two assistant messages is one user message: tool results
  first, then the user-rendered attachments (they bubble up to the results), then the user
  records; an attachment rendered in several parts sends all but its last as user messages of
  their own ("Called the Read tool…"); the run's `role:"system"` attachments follow it as one
  system message, their reminders unwrapped and joined by a blank line, and the run holding the
  summary always has that system message, empty or not.
"""

from __future__ import annotations

from typing import Any

from cutline.core.agents.context import context_weight
from cutline.core.agents.wire import WireMessage, WireText, wire_blocks
from cutline.core.models import Entry, Message, TextBlock

NO_RESPONSE_REQUESTED = "No response requested."


def _last_compaction(path: list[Entry]) -> int:
    for i in range(len(path) - 1, -1, -1):
        if path[i].type == "compaction":
            return i
    return -1


def _preserved(path: list[Entry], last: int) -> list[Entry]:
    """The kept records (`preservedSegment` head..tail) from before the boundary, in path order."""
    record = path[last].compaction
    details = record.details if record is not None else None
    segment = details.get("preservedSegment") if isinstance(details, dict) else None
    if not isinstance(segment, dict):
        return []
    ids = [e.id for e in path[:last]]
    head, tail = segment.get("headUuid"), segment.get("tailUuid")
    if head not in ids:
        return []
    start = ids.index(head)
    end = ids.index(tail) if tail in ids and ids.index(tail) >= start else last - 1
    return path[start : end + 1]


def _sent(entry: Entry) -> bool:
    """Whether an entry of the path puts a message into the request (the summary record does, here)."""
    return entry.type == "message" and entry.message is not None and not entry.isSidechain


def context_entries(path: list[Entry]) -> list[Entry]:
    """The entries whose messages Claude Code sends next, in its order."""
    last = _last_compaction(path)
    if last < 0:
        weights = context_weight(path)
        return [e for e, w in zip(path, weights, strict=True) if w]
    after = path[last + 1 :]
    summary_at = next((i for i, e in enumerate(after) if e.isCompactSummary), None)
    kept = [e for e in _preserved(path, last) if _sent(e) and not e.isCompactSummary]
    if summary_at is None:
        return [*kept, *(e for e in after if _sent(e))]
    head = [e for e in after[: summary_at + 1] if _sent(e)]
    tail = [e for e in after[summary_at + 1 :] if _sent(e)]
    return [*head, *kept, *tail]


def _extra(message: Message, key: str) -> Any:
    return (message.model_extra or {}).get(key)


def _needs_no_response(entries: list[Entry]) -> bool:
    """A summary with no conversation after it: Claude Code answers it with a synthetic assistant message."""
    talk = [
        e
        for e in entries
        if e.message is not None
        and e.message.role in ("user", "assistant", "toolResult")
        and _extra(e.message, "attachmentType") is None
    ]
    return bool(talk) and talk[-1].isCompactSummary


def _synthetic() -> Message:
    return Message.model_validate(
        {"role": "assistant", "content": [TextBlock(text=NO_RESPONSE_REQUESTED)], "synthetic": True}
    )


def claude_code_context(path: list[Entry]) -> list[Message]:
    """The messages (one per record, the synthetic answer included) of Claude Code's next request."""
    entries = context_entries(path)
    messages = [e.message for e in entries if e.message is not None]
    if _needs_no_response(entries):
        messages.append(_synthetic())
    return messages


# ---------------------------------------------------------------------------
# The wire: records grouped into the request's messages
# ---------------------------------------------------------------------------


class _Run:
    """The user-side records between two assistant messages, and how they are sent.

    Each record is a segment of the one user message; where two segments meet text to
    text, the first gets a newline (Claude Code's seam when it merges user messages),
    except before an attachment rendered beside the tool results.
    """

    def __init__(self) -> None:
        self.own: list[WireMessage] = []
        self.results: list[tuple[bool, list[Any]]] = []
        self.attachments: list[tuple[bool, list[Any]]] = []
        self.rest: list[tuple[bool, list[Any]]] = []
        self.system: list[str] = []
        self.has_summary = False
        self.empty = True

    def add(self, entry: Entry | None, message: Message) -> None:
        self.empty = False
        if entry is not None and entry.isCompactSummary:
            self.has_summary = True
        blocks = wire_blocks(message)
        if message.role == "system":
            self.system.extend(b.text for b in blocks if isinstance(b, WireText))
            return
        if _extra(message, "attachmentType") is not None:
            self.own.extend(WireMessage(role="user", content=[b]) for b in blocks[:-1])
            if blocks:
                self.attachments.append((_extra(message, "besideToolResult") is True, blocks[-1:]))
            return
        if message.role == "toolResult" or message.tool_result_ids():
            self.results.append((False, blocks))
        elif blocks:
            self.rest.append((False, blocks))

    def messages(self) -> list[WireMessage]:
        out = list(self.own)
        segments = [s for s in (*self.results, *self.attachments, *self.rest) if s[1]]
        content: list[Any] = []
        for i, (_, segment) in enumerate(segments):
            blocks = [b.model_copy() for b in segment]
            if i + 1 < len(segments):
                beside, following = segments[i + 1]
                if not beside and isinstance(blocks[-1], WireText) and isinstance(following[0], WireText):
                    blocks[-1] = WireText(text=blocks[-1].text + "\n")
            content.extend(blocks)
        if content:
            out.append(WireMessage(role="user", content=content))
        if self.system or self.has_summary:
            text = "\n\n".join(self.system)
            out.append(WireMessage(role="system", content=[WireText(text=text)] if text else []))
        return out


def claude_code_wire(path: list[Entry]) -> list[WireMessage]:
    """Claude Code's next request messages: block records merged by API message, user runs laid out as it does."""
    entries = context_entries(path)
    items: list[tuple[Entry | None, Message]] = [(e, e.message) for e in entries if e.message is not None]
    if _needs_no_response(entries):
        items.append((None, _synthetic()))
    out: list[WireMessage] = []
    run = _Run()
    last_response: str | None = None
    for entry, message in items:
        if message.role != "assistant":
            run.add(entry, message)
            last_response = None
            continue
        if not run.empty:
            out.extend(run.messages())
            run = _Run()
        response = _extra(message, "responseId")
        blocks = wire_blocks(message)
        if out and out[-1].role == "assistant" and response is not None and response == last_response:
            out[-1].content.extend(blocks)
        else:
            out.append(WireMessage(role="assistant", content=blocks))
        last_response = response if isinstance(response, str) else None
    if not run.empty:
        out.extend(run.messages())
    return out
