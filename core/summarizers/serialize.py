"""Turn session messages into the text a summarizer reads, exactly as pi does.

pi measures and cuts text in UTF-16 code units (JavaScript string length), so every
length here is counted the same way; otherwise a tool result with emoji would be cut
at a different place than pi cuts it and the serialized size would differ.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from cutline.core.models import Message, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from cutline.core.tokens.jsjson import js_key_order, js_length, js_slice, js_stringify

# Wrappers pi puts around summaries when it turns them into user messages (messages.js).
COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
BRANCH_SUMMARY_SUFFIX = "</summary>"

# pi cuts each tool result to this many characters in the summarizer input.
TOOL_RESULT_MAX_CHARS = 2000
# The single-pass design's preview: head and tail of each tool result, and a cap on the whole input.
PREVIEW_HEAD_CHARS = 500
PREVIEW_TAIL_CHARS = 200
PREVIEW_MAX_INPUT_CHARS = 100_000

SerializeStyle = Literal["pi", "preview"]


def truncate_for_summary(text: str, max_chars: int = TOOL_RESULT_MAX_CHARS) -> str:
    """Keep the first `max_chars` characters and say how many were cut, as pi's truncateForSummary."""
    length = js_length(text)
    if length <= max_chars:
        return text
    return f"{js_slice(text, 0, max_chars)}\n\n[... {length - max_chars} more characters truncated]"


# ---------------------------------------------------------------------------
# convertToLlm
# ---------------------------------------------------------------------------


def _extra(message: Message, name: str) -> Any:
    return (message.model_extra or {}).get(name)


def bash_execution_text(message: Message) -> str:
    """The user text pi sends for a `!command` run (bashExecutionToText)."""
    text = f"Ran `{message.command or ''}`\n"
    if message.output:
        text += f"```\n{message.output}\n```"
    else:
        text += "(no output)"
    if _extra(message, "cancelled"):
        text += "\n\n(command cancelled)"
    elif message.exitCode is not None and message.exitCode != 0:
        text += f"\n\nCommand exited with code {message.exitCode}"
    if _extra(message, "truncated") and _extra(message, "fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {_extra(message, 'fullOutputPath')}]"
    return text


def _user_text(message: Message, text: str) -> Message:
    return Message(role="user", content=[TextBlock(text=text)], timestamp=message.timestamp)


def to_llm(messages: Iterable[Message]) -> list[Message]:
    """Map cutline's message roles onto user / assistant / toolResult as pi's convertToLlm does.

    bashExecution runs marked `excludeFromContext` (pi's `!!` prefix) and roles pi does not
    send (system) are dropped; applying it twice gives the same result.
    """
    return list(iter_llm(messages))


def iter_llm(messages: Iterable[Message]) -> Iterator[Message]:
    """`to_llm` one message at a time (a long span is serialized without a list of its messages)."""
    for message in messages:
        role = message.role
        if role == "bashExecution":
            if _extra(message, "excludeFromContext"):
                continue
            yield _user_text(message, bash_execution_text(message))
        elif role == "custom":
            yield Message(role="user", content=list(message.content), timestamp=message.timestamp)
        elif role == "branchSummary":
            yield _user_text(message, BRANCH_SUMMARY_PREFIX + (message.summary or "") + BRANCH_SUMMARY_SUFFIX)
        elif role == "compactionSummary":
            yield _user_text(message, COMPACTION_SUMMARY_PREFIX + (message.summary or "") + COMPACTION_SUMMARY_SUFFIX)
        elif role in ("user", "assistant", "toolResult"):
            yield message


# ---------------------------------------------------------------------------
# serializeConversation
# ---------------------------------------------------------------------------


def format_tool_call(call: ToolCallBlock) -> str:
    """`name(key=<JSON value>, ...)` exactly as pi writes a tool call for the summarizer.

    Arguments that arrive as a JSON string (Codex) are parsed first; anything that is
    still not an object is shown as its JSON text.
    """
    args = call.arguments
    if isinstance(args, str):
        try:
            parsed = json.loads(args)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            args = parsed
        else:
            return f"{call.name}({args})"
    if args is None:
        return f"{call.name}()"
    if not isinstance(args, dict):
        return f"{call.name}({js_stringify(args)})"
    by_key = {str(k): v for k, v in args.items()}
    rendered = ", ".join(f"{k}={js_stringify(by_key[k])}" for k in js_key_order(by_key))
    return f"{call.name}({rendered})"


def _text_of(blocks: list[Any]) -> str:
    return "".join(b.text for b in blocks if isinstance(b, TextBlock))


def preview_tool_result(text: str, head: int = PREVIEW_HEAD_CHARS, tail: int = PREVIEW_TAIL_CHARS) -> str:
    """First `head` and last `tail` characters of a tool result, the middle replaced by a marker."""
    length = js_length(text)
    if length <= head + tail:
        return text
    omitted = length - head - tail
    return f"{js_slice(text, 0, head)}\n\n[... {omitted} characters omitted ...]\n\n{js_slice(text, length - tail)}"


def cap_middle(text: str, max_chars: int = PREVIEW_MAX_INPUT_CHARS) -> str:
    """Cut `text` to at most `max_chars` characters by removing its middle and saying how much went."""
    length = js_length(text)
    if length <= max_chars:
        return text
    # the marker's own length depends on the number it prints; size it for the worst case
    marker_template = "\n\n[... {} characters of the conversation omitted from the middle ...]\n\n"
    marker_len = js_length(marker_template.format(length))
    keep = max(max_chars - marker_len, 0)
    head = keep - keep // 2
    tail = keep // 2
    omitted = length - head - tail
    return js_slice(text, 0, head) + marker_template.format(omitted) + (js_slice(text, length - tail) if tail else "")


def _tool_result(text: str, style: SerializeStyle) -> str:
    """A tool result as its labelled part, cut as the style cuts it."""
    if style == "preview":
        return f"[Tool result]: {preview_tool_result(text)}"
    return f"[Tool result]: {truncate_for_summary(text)}"


def _message_parts(message: Message, style: SerializeStyle) -> list[str]:
    """The labelled parts one message contributes to the serialized conversation."""
    parts: list[str] = []
    if message.role == "user":
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                result_text = _text_of(block.content)
                if result_text:
                    parts.append(_tool_result(result_text, style))
        text = _text_of(message.content)
        if text:
            parts.append(f"[User]: {text}")
    elif message.role == "assistant":
        texts = [b.text for b in message.content if isinstance(b, TextBlock)]
        thinking = [b.thinking for b in message.content if isinstance(b, ThinkingBlock)]
        calls = [format_tool_call(b) for b in message.content if isinstance(b, ToolCallBlock)]
        if thinking:
            parts.append("[Assistant thinking]: " + "\n".join(thinking))
        if texts:
            parts.append("[Assistant]: " + "\n".join(texts))
        if calls:
            parts.append("[Assistant tool calls]: " + "; ".join(calls))
    elif message.role == "toolResult":
        text = _text_of(message.content) + "".join(
            _text_of(b.content) for b in message.content if isinstance(b, ToolResultBlock)
        )
        if text:
            parts.append(_tool_result(text, style))
    return parts


def serialize_conversation(messages: Iterable[Message], style: SerializeStyle = "pi") -> str:
    """The conversation as plain labelled text so the summarizer does not try to continue it.

    `pi` reproduces pi's serializeConversation (tool results cut at 2000 characters);
    `preview` keeps 500 + 200 characters of each tool result and caps the whole text at
    100,000 characters, cut from the middle. Tool results carried inside user messages
    (Claude Code) are written as their own `[Tool result]:` parts.
    """
    if style not in ("pi", "preview"):
        raise ValueError(f"unknown serialization style: {style!r}")

    parts: list[str] = []
    for message in iter_llm(messages):
        parts += _message_parts(message, style)
    conversation = "\n\n".join(parts)
    if style == "preview":
        conversation = cap_middle(conversation)
    return conversation
