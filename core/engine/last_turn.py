"""Last-turn injection: keep the last user↔assistant exchange verbatim when compaction summarizes it.

Why: when many messages arrive near the cut, the newest meaningful exchange can fall
into the summarized part and the agent repeats itself or loses its place
(seed `last-turn-injection-spec.md`).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from cutline.core.models import ImageBlock, Message, TextBlock

SECTION_HEADING = "## Last Exchange (Verbatim)"
TRUNCATION_MARKER = "[...truncated]"
IMAGE_PLACEHOLDER = "[image]"
CHARS_PER_TOKEN = 4


class LastTurn(BaseModel):
    """The text of the last user message and of the assistant's answer to it (None when absent)."""

    model_config = ConfigDict(defer_build=True)

    user: str | None = None
    assistant: str | None = None


def message_text(message: Message) -> str:
    """Text blocks joined by newlines, "[image]" for each image; tool calls and thinking are skipped."""
    parts: list[str] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            if block.text:
                parts.append(block.text)
        elif isinstance(block, ImageBlock):
            parts.append(IMAGE_PLACEHOLDER)
    return "\n".join(parts)


def extract_last_turn(messages: Sequence[Message]) -> LastTurn:
    """Walk back to the last user message; the assistant text is the newest non-empty one after it.

    An assistant message made only of tool calls has no text, so the walk keeps
    looking for an earlier assistant message with text (but never past the user message).
    """
    user: str | None = None
    assistant: str | None = None
    for message in reversed(messages):
        if message.role == "assistant" and not assistant:
            assistant = message_text(message) or None
        if message.role == "user":
            user = message_text(message) or None
            break
    return LastTurn(user=user, assistant=assistant)


def _quote(label: str, text: str) -> str:
    """One blockquote paragraph: continuation lines stay inside the quote."""
    lines = text.split("\n")
    head = f"> **{label}:** {lines[0]}"
    return "\n".join([head, *(f"> {line}" for line in lines[1:])])


def _allocate(user_len: int, assistant_len: int, budget: int) -> tuple[int, int]:
    """Share a character budget between the two texts; a short text leaves its unused share to the other."""
    if user_len + assistant_len <= budget:
        return user_len, assistant_len
    half = budget // 2
    if user_len <= half:
        return user_len, budget - user_len
    if assistant_len <= budget - half:
        return budget - assistant_len, assistant_len
    return half, budget - half


def _cut(text: str, keep: int) -> str:
    if len(text) <= keep:
        return text
    return f"{text[:keep]}{TRUNCATION_MARKER}"


def format_last_turn_section(turn: LastTurn, max_tokens: int = 2000) -> str:
    """The markdown section, the two texts capped together at `max_tokens * 4` characters; "" when both are None."""
    if turn.user is None and turn.assistant is None:
        return ""
    budget = max(0, max_tokens) * CHARS_PER_TOKEN
    user = turn.user or ""
    assistant = turn.assistant or ""
    keep_user, keep_assistant = _allocate(len(user), len(assistant), budget)
    lines = [SECTION_HEADING]
    if turn.user is not None:
        lines.append(_quote("User", _cut(user, keep_user)))
    if turn.assistant is not None:
        lines.append(_quote("Assistant", _cut(assistant, keep_assistant)))
    return "\n".join(lines)


def last_turn_section(summarized: Sequence[Message], max_tokens: int = 2000) -> str:
    """The section to append for the summarized messages, or "" when there is nothing to inject.

    No user message in the summarized part means the last exchange is still kept
    verbatim after the cut (or there never was one), so nothing is injected.
    """
    turn = extract_last_turn(summarized)
    if turn.user is None:
        return ""
    return format_last_turn_section(turn, max_tokens)


def append_last_turn(summary: str, summarized: list[Message], max_tokens: int = 2000) -> str:
    """The summary with the last-exchange section appended after a blank line (unchanged when none)."""
    section = last_turn_section(summarized, max_tokens)
    if not section:
        return summary
    return f"{summary}\n\n{section}" if summary else section
