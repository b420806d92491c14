"""The messages opencode (1.18) sends next, rebuilt from the active path, and how they go on the wire.

opencode's `filterCompacted` reads back from the newest message to the last finished
compaction: with a `tail_start_id` it goes on back to that message; then it puts the
compaction first: its user message (sent as "What did we do so far?"), the summary
message, the kept tail, then what followed the compaction (for an auto-compaction, its
synthetic "Continue if you have next steps…" user message). Before any compaction it
sends every message. A tool output it pruned is sent as "[Old tool result content
cleared]" (reader.py).

On the wire (Chat Completions through @ai-sdk/openai-compatible): each model call is one
assistant message (its texts joined, its tool calls), each tool result a `tool` message,
a user message its parts in order. What opencode adds on every request and does not
store (its system prompts) is not part of the session.
"""

from __future__ import annotations

from typing import Any

from cutline.core.agents.opencode.reader import COMPACTION_PROMPT
from cutline.core.agents.wire import (
    WireImage,
    WireMessage,
    WireText,
    WireThinking,
    WireToolCall,
    WireToolResult,
    wire_image,
)
from cutline.core.models import Entry, ImageBlock, Message, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock


def _last_compaction(path: list[Entry]) -> int:
    for i in range(len(path) - 1, -1, -1):
        if path[i].type == "compaction" and path[i].compaction is not None:
            return i
    return -1


def _sent(entry: Entry) -> bool:
    return entry.type == "message" and entry.message is not None


def _message_start(path: list[Entry], message_id: str) -> int:
    """The path index of the first entry of opencode message `message_id`, or -1."""
    for i, entry in enumerate(path):
        if entry.id == message_id:
            return i
    return -1


def context_indices(path: list[Entry]) -> list[int]:
    """Path indices in the order opencode sends them: the last compaction, its kept tail, then what followed it."""
    last = _last_compaction(path)
    if last < 0:
        return [i for i, e in enumerate(path) if _sent(e)]
    record = path[last].compaction
    tail = record.firstKeptEntryId if record is not None else None
    start = last
    if tail:
        found = _message_start(path, tail)
        start = found if 0 <= found < last else 0
    kept = [i for i in range(start, last) if _sent(path[i])]
    after = [i for i in range(last + 1, len(path)) if _sent(path[i])]
    return [last, *kept, *after]


def compaction_messages(entry: Entry) -> list[Message]:
    """A compaction as opencode sends it: its user message's prompt, then the summary message."""
    record = entry.compaction
    if record is None:
        return []
    details: Any = record.details
    shapes = details.get("summaryMessages") if isinstance(details, dict) else None
    out = [Message(role="user", content=[TextBlock(text=COMPACTION_PROMPT)])]
    if isinstance(shapes, list) and shapes:
        out.extend(Message.model_validate(s) for s in shapes if isinstance(s, dict))
    else:
        out.append(Message(role="assistant", content=[TextBlock(text=record.summary)]))
    return out


def opencode_context(path: list[Entry]) -> list[Message]:
    """The neutral messages of opencode's next request for this path."""
    out: list[Message] = []
    for i in context_indices(path):
        entry = path[i]
        if entry.type == "compaction":
            out.extend(compaction_messages(entry))
        elif entry.message is not None:
            out.append(entry.message)
    return out


def _assistant(message: Message) -> WireMessage:
    blocks: list[WireText | WireThinking | WireToolCall] = []
    thinking = "".join(b.thinking for b in message.content if isinstance(b, ThinkingBlock))
    if thinking:
        blocks.append(WireThinking(thinking=thinking))
    text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
    if text:
        blocks.append(WireText(text=text))
    blocks.extend(
        WireToolCall(id=b.id, name=b.name, arguments=b.arguments)
        for b in message.content
        if isinstance(b, ToolCallBlock)
    )
    return WireMessage(role="assistant", content=list(blocks))


def opencode_wire(messages: list[Message]) -> list[WireMessage]:
    """The Chat Completions messages for these neutral messages, as opencode's provider sends them."""
    out: list[WireMessage] = []
    for message in messages:
        if message.role == "assistant":
            out.append(_assistant(message))
            continue
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                content = [WireText(text=b.text) for b in block.content if isinstance(b, TextBlock) and b.text]
                out.append(
                    WireMessage(
                        role="tool", content=[WireToolResult(tool_call_id=block.toolCallId, content=list(content))]
                    )
                )
        blocks: list[WireText | WireImage] = []
        for block in message.content:
            if isinstance(block, TextBlock):
                blocks.append(WireText(text=block.text))
            elif isinstance(block, ImageBlock):
                blocks.append(wire_image(block))
        if blocks:
            out.append(WireMessage(role="user", content=list(blocks)))
    return out
