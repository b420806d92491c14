"""The conversation as OpenClaw 2026.9 writes it for its summarizer: pi's labels, thinking left out, images named.

Differences from pi (docs/rules/openclaw-2026.9.md §8): thinking blocks are not sent;
an image or other non-text block becomes a line `[image data omitted from summary
input]` (for at most 8 messages, then one `[More image/non-text data omitted from
summary input]`) ahead of the message's text; a user line carries `sender={…}` when
the message names its sender. Tool results are cut at 2000 characters as pi cuts them.
"""

from __future__ import annotations

import json

from cutline.core.models import ImageBlock, Message, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from cutline.core.summarizers.serialize import format_tool_call, to_llm, truncate_for_summary

IMAGE_OMITTED = "[image data omitted from summary input]"
NON_TEXT_OMITTED = "[non-text data omitted from summary input]"
MORE_OMITTED = "[More image/non-text data omitted from summary input]"
MAX_OMISSION_MESSAGES = 8


def _omissions(blocks: list[object]) -> list[str]:
    lines: list[str] = []
    for block in blocks:
        if isinstance(block, ImageBlock):
            line = IMAGE_OMITTED
        elif isinstance(block, TextBlock | ToolCallBlock | ThinkingBlock | ToolResultBlock):
            continue
        else:
            line = NON_TEXT_OMITTED
        if line not in lines:
            lines.append(line)
    return lines


def _sender(message: Message) -> str:
    meta = (message.model_extra or {}).get("__openclaw")
    if not isinstance(meta, dict) or not meta.get("senderId"):
        return ""
    sender = {"id": meta.get("senderId"), "name": meta.get("senderName"), "username": meta.get("senderUsername")}
    return " sender=" + json.dumps({k: v for k, v in sender.items() if v is not None}, ensure_ascii=False)


class _Omitted:
    """Counts the messages whose non-text blocks were named, so only the first 8 are."""

    def __init__(self) -> None:
        self.count = 0
        self.capped = False

    def text(self, blocks: list[object], text: str) -> str:
        lines = _omissions(blocks)
        if not lines:
            return text
        self.count += 1
        if self.count > MAX_OMISSION_MESSAGES:
            if self.capped:
                return text
            self.capped = True
            lines = [MORE_OMITTED]
        return "\n".join([*lines, text] if text else lines)


def serialize_openclaw(messages: list[Message]) -> str:
    """OpenClaw's serialized conversation for a summarization call."""
    omitted = _Omitted()
    parts: list[str] = []
    for message in to_llm(messages):
        blocks: list[object] = list(message.content)
        if message.role == "user":
            for block in message.content:
                if isinstance(block, ToolResultBlock):
                    inner: list[object] = list(block.content)
                    text = omitted.text(inner, "".join(b.text for b in block.content if isinstance(b, TextBlock)))
                    if text:
                        parts.append(f"[Tool result]: {truncate_for_summary(text)}")
            text = omitted.text(blocks, "".join(b.text for b in message.content if isinstance(b, TextBlock)))
            if text:
                parts.append(f"[User{_sender(message)}]: {text}")
        elif message.role == "assistant":
            texts = [b.text for b in message.content if isinstance(b, TextBlock)]
            calls = [format_tool_call(b) for b in message.content if isinstance(b, ToolCallBlock)]
            if texts:
                parts.append("[Assistant]: " + "\n".join(texts))
            if calls:
                parts.append("[Assistant tool calls]: " + "; ".join(calls))
        elif message.role == "toolResult":
            text = omitted.text(blocks, "".join(b.text for b in message.content if isinstance(b, TextBlock)))
            if text:
                parts.append(f"[Tool result]: {truncate_for_summary(text)}")
    return "\n\n".join(parts)
