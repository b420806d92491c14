"""Turn session messages into the text a summarizer reads, exactly as pi does.

pi measures and cuts text in UTF-16 code units (JavaScript string length), so every
length here is counted the same way; otherwise a tool result with emoji would be cut
at a different place than pi cuts it and the serialized size would differ.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any, Literal

from core.models import Message, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock

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


# ---------------------------------------------------------------------------
# JavaScript string semantics
# ---------------------------------------------------------------------------


def js_len(text: str) -> int:
    """Length of `text` in UTF-16 code units, as JavaScript's `.length` counts it."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _js_slice_units(text: str, start: int, end: int | None = None) -> str:
    """`text.slice(start, end)` in UTF-16 units; a surrogate pair cut in half becomes U+FFFD.

    U+FFFD keeps the UTF-16 length pi would have while staying valid Unicode.
    """
    if text.isascii():
        return text[start:end]
    raw = text.encode("utf-16-le", "surrogatepass")
    stop = len(raw) if end is None else 2 * end
    piece = raw[2 * start : stop].decode("utf-16-le", "surrogatepass")
    return re.sub("[\ud800-\udfff]", "\ufffd", piece)


def truncate_for_summary(text: str, max_chars: int = TOOL_RESULT_MAX_CHARS) -> str:
    """Keep the first `max_chars` characters and say how many were cut, as pi's truncateForSummary."""
    length = js_len(text)
    if length <= max_chars:
        return text
    return f"{_js_slice_units(text, 0, max_chars)}\n\n[... {length - max_chars} more characters truncated]"


def _js_number(value: float | int) -> str:
    """Format a number the way JavaScript's JSON.stringify / Number#toString does."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and abs(value) < 2**53:
        return str(value)
    number = float(value)
    if number != number or number in (float("inf"), float("-inf")):
        return "null"
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    digits_tuple = Decimal(repr(abs(number))).normalize().as_tuple()
    digits = "".join(str(d) for d in digits_tuple.digits)
    exponent = int(digits_tuple.exponent)
    k = len(digits)
    n = k + exponent
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = f"{digits[:n]}.{digits[n:]}"
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mantissa = digits if k == 1 else f"{digits[0]}.{digits[1:]}"
        body = f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + body


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")


def _js_string(text: str) -> str:
    """A JSON string literal as JavaScript writes it (non-ASCII kept, lone surrogates escaped)."""
    quoted = json.dumps(text, ensure_ascii=False)
    if _LONE_SURROGATE.search(quoted):
        quoted = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)
    return quoted


def _js_key_order(obj: dict[str, Any]) -> list[str]:
    """Keys in JavaScript property order: array-index keys ascending, then the rest as inserted."""
    keys = [str(k) for k in obj]
    index_keys = sorted(
        (k for k in keys if _ARRAY_INDEX.fullmatch(k) and int(k) < 2**32 - 1), key=int
    )
    index_set = set(index_keys)
    return index_keys + [k for k in keys if k not in index_set]


def js_stringify(value: Any) -> str:
    """`JSON.stringify(value)` with JavaScript's exact output (no spaces, JS number format)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _js_number(value)
    if isinstance(value, str):
        return _js_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(js_stringify(v) for v in value) + "]"
    if isinstance(value, dict):
        by_key = {str(k): v for k, v in value.items()}
        return "{" + ",".join(f"{_js_string(k)}:{js_stringify(by_key[k])}" for k in _js_key_order(by_key)) + "}"
    return _js_string(str(value))


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


def to_llm(messages: list[Message]) -> list[Message]:
    """Map cutline's message roles onto user / assistant / toolResult as pi's convertToLlm does.

    bashExecution runs marked `excludeFromContext` (pi's `!!` prefix) and roles pi does not
    send (system) are dropped; applying it twice gives the same result.
    """
    out: list[Message] = []
    for message in messages:
        role = message.role
        if role == "bashExecution":
            if _extra(message, "excludeFromContext"):
                continue
            out.append(_user_text(message, bash_execution_text(message)))
        elif role == "custom":
            out.append(Message(role="user", content=list(message.content), timestamp=message.timestamp))
        elif role == "branchSummary":
            out.append(_user_text(message, BRANCH_SUMMARY_PREFIX + (message.summary or "") + BRANCH_SUMMARY_SUFFIX))
        elif role == "compactionSummary":
            out.append(
                _user_text(message, COMPACTION_SUMMARY_PREFIX + (message.summary or "") + COMPACTION_SUMMARY_SUFFIX)
            )
        elif role in ("user", "assistant", "toolResult"):
            out.append(message)
    return out


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
    rendered = ", ".join(f"{k}={js_stringify(by_key[k])}" for k in _js_key_order(by_key))
    return f"{call.name}({rendered})"


def _text_of(blocks: list[Any]) -> str:
    return "".join(b.text for b in blocks if isinstance(b, TextBlock))


def preview_tool_result(text: str, head: int = PREVIEW_HEAD_CHARS, tail: int = PREVIEW_TAIL_CHARS) -> str:
    """First `head` and last `tail` characters of a tool result, the middle replaced by a marker."""
    length = js_len(text)
    if length <= head + tail:
        return text
    omitted = length - head - tail
    return (
        f"{_js_slice_units(text, 0, head)}\n\n[... {omitted} characters omitted ...]\n\n"
        f"{_js_slice_units(text, length - tail)}"
    )


def cap_middle(text: str, max_chars: int = PREVIEW_MAX_INPUT_CHARS) -> str:
    """Cut `text` to at most `max_chars` characters by removing its middle and saying how much went."""
    length = js_len(text)
    if length <= max_chars:
        return text
    # the marker's own length depends on the number it prints; size it for the worst case
    marker_template = "\n\n[... {} characters of the conversation omitted from the middle ...]\n\n"
    marker_len = js_len(marker_template.format(length))
    keep = max(max_chars - marker_len, 0)
    head = keep - keep // 2
    tail = keep // 2
    omitted = length - head - tail
    return (
        _js_slice_units(text, 0, head)
        + marker_template.format(omitted)
        + (_js_slice_units(text, length - tail) if tail else "")
    )


def serialize_conversation(messages: list[Message], style: SerializeStyle = "pi") -> str:
    """The conversation as plain labelled text so the summarizer does not try to continue it.

    `pi` reproduces pi's serializeConversation (tool results cut at 2000 characters);
    `preview` keeps 500 + 200 characters of each tool result and caps the whole text at
    100,000 characters, cut from the middle. Tool results carried inside user messages
    (Claude Code) are written as their own `[Tool result]:` parts.
    """
    if style not in ("pi", "preview"):
        raise ValueError(f"unknown serialization style: {style!r}")

    def tool_result(text: str) -> str:
        if style == "preview":
            return f"[Tool result]: {preview_tool_result(text)}"
        return f"[Tool result]: {truncate_for_summary(text)}"

    parts: list[str] = []
    for message in to_llm(messages):
        if message.role == "user":
            for block in message.content:
                if isinstance(block, ToolResultBlock):
                    result_text = _text_of(block.content)
                    if result_text:
                        parts.append(tool_result(result_text))
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
                parts.append(tool_result(text))
    conversation = "\n\n".join(parts)
    if style == "preview":
        conversation = cap_middle(conversation)
    return conversation

