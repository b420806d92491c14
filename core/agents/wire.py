"""The neutral context: the message list an agent's next request carries, in one shape for every agent.

`cutline context --json` prints it, the desk shows it, and the conformance test compares it
with the requests the real programs sent (tests/fixtures/corpus). Blocks are `text`,
`thinking`, `tool_call`, `tool_result` and `image`; ids are the agent's own. Roles are
`system` (a system/developer message inside the list), `user`, `assistant` and `tool`
(a tool result sent as an item of its own, as the Responses API does).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cutline.core.models import (
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)

WireRole = Literal["system", "user", "assistant", "tool"]


class _WireBlock(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class WireText(_WireBlock):
    type: Literal["text"] = "text"
    text: str


class WireThinking(_WireBlock):
    """Reasoning sent back to the model; `redacted` when only an opaque form of it exists (encrypted, redacted)."""

    type: Literal["thinking"] = "thinking"
    thinking: str
    redacted: bool = False


class WireImage(_WireBlock):
    """An image as base64 data and its media type (`url` when the agent sent a link instead)."""

    type: Literal["image"] = "image"
    media_type: str = ""
    data: str = ""
    url: str | None = None


class WireToolCall(_WireBlock):
    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: Any = None


class WireToolResult(_WireBlock):
    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    content: list[WireText | WireImage] = Field(default_factory=list)
    is_error: bool = False


WireBlock = Annotated[
    WireText | WireThinking | WireImage | WireToolCall | WireToolResult,
    Field(discriminator="type"),
]


class WireMessage(BaseModel):
    """One message of the request, as the model receives it."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    role: WireRole
    content: list[WireBlock] = Field(default_factory=list)

    def text(self) -> str:
        """The message's text blocks joined (what a person reads as the message)."""
        parts: list[str] = []
        for block in self.content:
            if isinstance(block, WireText):
                parts.append(block.text)
            elif isinstance(block, WireThinking):
                parts.append(block.thinking)
            elif isinstance(block, WireToolCall):
                parts.append(f"{block.name}({block.arguments})")
            elif isinstance(block, WireToolResult):
                parts.extend(b.text for b in block.content if isinstance(b, WireText))
        return "\n".join(p for p in parts if p)


class WireContext(BaseModel):
    """What `cutline context --json` prints: the agent and the messages its next request carries."""

    model_config = ConfigDict(defer_build=True)

    agent: str
    messages: list[WireMessage] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


# pi's wrappers around summaries (compaction.ts / messages.ts): what the model reads for them
COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
BRANCH_SUMMARY_SUFFIX = "</summary>"


def wire_image(block: ImageBlock) -> WireImage:
    """A neutral image block from the model's image block."""
    extra = block.model_extra or {}
    url = extra.get("url")
    return WireImage(media_type=block.mimeType, data=block.data, url=url if isinstance(url, str) else None)


def _result_content(blocks: list[TextBlock | ImageBlock]) -> list[WireText | WireImage]:
    out: list[WireText | WireImage] = []
    for block in blocks:
        if isinstance(block, TextBlock):
            out.append(WireText(text=block.text))
        else:
            out.append(wire_image(block))
    return out


def wire_blocks(message: Message) -> list[WireText | WireThinking | WireImage | WireToolCall | WireToolResult]:
    """A message's content blocks in the neutral shape (order kept)."""
    out: list[WireText | WireThinking | WireImage | WireToolCall | WireToolResult] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            out.append(WireText(text=block.text))
        elif isinstance(block, ThinkingBlock):
            redacted = (block.model_extra or {}).get("redacted") is True
            out.append(WireThinking(thinking=block.thinking, redacted=redacted))
        elif isinstance(block, ToolCallBlock):
            out.append(WireToolCall(id=block.id, name=block.name, arguments=block.arguments))
        elif isinstance(block, ToolResultBlock):
            out.append(
                WireToolResult(
                    tool_call_id=block.toolCallId, content=_result_content(block.content), is_error=block.isError
                )
            )
        elif isinstance(block, ImageBlock):
            out.append(wire_image(block))
    return out


def _text_message(role: WireRole, text: str) -> WireMessage:
    return WireMessage(role=role, content=[WireText(text=text)])


def wire_message(message: Message) -> WireMessage | None:
    """One model message as the neutral request message pi's providers make of it (None when nothing is sent)."""
    role = message.role
    if role == "assistant":
        return WireMessage(role="assistant", content=wire_blocks(message))
    if role == "toolResult":
        content = [b for b in wire_blocks(message) if isinstance(b, WireText | WireImage)]
        result = WireToolResult(tool_call_id=message.toolCallId or "", content=content, is_error=message.isError)
        return WireMessage(role="user", content=[result])
    if role == "compactionSummary":
        return _text_message("user", COMPACTION_SUMMARY_PREFIX + (message.summary or "") + COMPACTION_SUMMARY_SUFFIX)
    if role == "branchSummary":
        return _text_message("user", BRANCH_SUMMARY_PREFIX + (message.summary or "") + BRANCH_SUMMARY_SUFFIX)
    if role == "bashExecution":
        text = f"Ran `{message.command or ''}`\n```\n{message.output or ''}\n```"
        return _text_message("user", text)
    if role == "system":
        return WireMessage(role="system", content=wire_blocks(message))
    # user, custom
    return WireMessage(role="user", content=wire_blocks(message))


def merge_tool_results(messages: list[WireMessage]) -> list[WireMessage]:
    """Consecutive user messages holding only tool results become one (what Anthropic's API wants)."""
    out: list[WireMessage] = []
    for message in messages:
        only_results = bool(message.content) and all(isinstance(b, WireToolResult) for b in message.content)
        previous = out[-1] if out else None
        if (
            only_results
            and previous is not None
            and previous.role == "user"
            and previous.content
            and all(isinstance(b, WireToolResult) for b in previous.content)
        ):
            previous.content.extend(message.content)
        else:
            out.append(message.model_copy(deep=True) if only_results else message)
    return out


def wire_messages(messages: list[Message]) -> list[WireMessage]:
    """The neutral request messages for a model-message context, the way pi's Anthropic provider groups them."""
    out: list[WireMessage] = []
    for message in messages:
        converted = wire_message(message)
        if converted is not None:
            out.append(converted)
    return merge_tool_results(out)


def context_json(context: WireContext) -> dict[str, Any]:
    """The JSON `cutline context --json` prints (defaults dropped so blocks read like the request's)."""
    data: dict[str, Any] = context.model_dump(mode="json", exclude_none=True)
    for message in data["messages"]:
        for block in message["content"]:
            if block.get("type") == "thinking" and not block.get("redacted"):
                block.pop("redacted", None)
    if not data["notes"]:
        data.pop("notes")
    return data


_PREVIEW = 160


def _block_line(block: WireText | WireThinking | WireImage | WireToolCall | WireToolResult) -> str:
    """One neutral block as a short line (type, then what it holds)."""
    if isinstance(block, WireText):
        return f"text  {_one_line(block.text)}"
    if isinstance(block, WireThinking):
        return f"thinking{' (redacted)' if block.redacted else ''}  {_one_line(block.thinking)}"
    if isinstance(block, WireToolCall):
        arguments = (
            block.arguments if isinstance(block.arguments, str) else json.dumps(block.arguments, ensure_ascii=False)
        )
        return f"tool_call {block.id} {block.name}  {_one_line(arguments)}"
    if isinstance(block, WireToolResult):
        flag = " error" if block.is_error else ""
        text = " ".join(b.text if isinstance(b, WireText) else f"[image {b.media_type}]" for b in block.content)
        return f"tool_result {block.tool_call_id}{flag}  {_one_line(text)}"
    return f"image {block.media_type or block.url or ''}"


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _PREVIEW else flat[: _PREVIEW - 1] + "…"


def context_text(context: WireContext) -> str:
    """The context for a person, as `cutline context` prints it and the desk shows it: a line per message, one per block."""
    lines = [f"{context.agent}: {len(context.messages)} messages in the next request"]
    for i, message in enumerate(context.messages):
        lines.append(f"[{i}] {message.role}")
        lines.extend(f"    {_block_line(block)}" for block in message.content)
    lines.extend(f"note: {note}" for note in context.notes)
    return "\n".join(lines)
