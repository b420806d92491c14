"""The messages Qwen Code (0.24) sends next, rebuilt from the active path, and how they go on the wire.

After a `chat_compression` record the program continues from its `compressedHistory`
verbatim (the summary as a user message, "Got it. Thanks for the additional context!",
re-attached files), then the records after it; before any, from every conversation record.
On the wire (Chat Completions, its `openai` auth type): a model turn is one assistant
message (its text joined, its function calls), each function response a `tool` message,
and turns of one role that follow one another are one message (their parts in order; the
texts of merged model turns joined with nothing between them).
What the program adds on every request and does not store (its system prompt, the
startup context and date reminders) is not part of the session.
"""

from __future__ import annotations

from cutline.core.agents.qwen_code.reader import history_messages
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
        if path[i].type == "compaction":
            return i
    return -1


def context_indices(path: list[Entry]) -> list[int]:
    """Path indices of the records whose messages are sent (a compaction stands for its whole history)."""
    last = _last_compaction(path)
    start = max(last, 0)
    return [
        i for i in range(start, len(path)) if (i == last) or (path[i].type == "message" and path[i].message is not None)
    ]


def qwen_code_context(path: list[Entry]) -> list[Message]:
    """The neutral messages of the next request: the last compression's history, then the messages after it."""
    out: list[Message] = []
    for i in context_indices(path):
        entry = path[i]
        if entry.type == "compaction":
            details = entry.compaction.details if entry.compaction is not None else None
            history = details.get("compressedHistory") if isinstance(details, dict) else None
            out.extend(history_messages(history))
        elif entry.message is not None:
            out.append(entry.message)
    return out


def _assistant(messages: list[Message]) -> WireMessage:
    """Model turns that follow one another, as the one assistant message they are sent as (their parts in order)."""
    content = [b for m in messages for b in m.content]
    blocks: list[WireText | WireThinking | WireToolCall] = []
    thinking = "".join(b.thinking for b in content if isinstance(b, ThinkingBlock))
    if thinking:
        blocks.append(WireThinking(thinking=thinking))
    text = "".join(b.text for b in content if isinstance(b, TextBlock))
    if text:
        blocks.append(WireText(text=text))
    blocks.extend(
        WireToolCall(id=b.id, name=b.name, arguments=b.arguments) for b in content if isinstance(b, ToolCallBlock)
    )
    return WireMessage(role="assistant", content=list(blocks))


def _user_blocks(message: Message) -> list[WireText | WireImage]:
    out: list[WireText | WireImage] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            out.append(WireText(text=block.text))
        elif isinstance(block, ImageBlock):
            out.append(wire_image(block))
    return out


def qwen_code_wire(messages: list[Message]) -> list[WireMessage]:
    """The Chat Completions messages for these neutral messages, as Qwen Code converts its history."""
    out: list[WireMessage] = []
    turn: list[Message] = []  # consecutive model turns: Qwen Code sends them as one message
    for message in [*messages, None]:
        if message is not None and message.role == "assistant":
            turn.append(message)
            continue
        if turn:
            wired = _assistant(turn)
            if wired.content:
                out.append(wired)
            turn = []
        if message is None:
            break
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                content = [WireText(text=b.text) for b in block.content if isinstance(b, TextBlock) and b.text]
                out.append(
                    WireMessage(
                        role="tool", content=[WireToolResult(tool_call_id=block.toolCallId, content=list(content))]
                    )
                )
        blocks = _user_blocks(message)
        if not blocks:
            continue
        if out and out[-1].role == "user":
            out[-1].content.extend(blocks)
        else:
            out.append(WireMessage(role="user", content=list(blocks)))
    return out
