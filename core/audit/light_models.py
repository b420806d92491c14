"""A light entry (core.agents.light) as the pydantic `Entry` the audit's walk reads, built without validating it again.

Why: `audit --proposal` reads every summarized entry once (`report._read_cut`); rebuilding each
stored row with pydantic (`entry_from_json` of a Claude Code or Codex model, `entry_from_line` of
a pi line) was ~0.8 s of a Claude Code 50k audit's ~2.7 s CPU. msgspec reads the same values into
light structs in about a fifth of that, and the audit's readers (core/audit/verdicts.py, core/facts.py)
ask for models (`isinstance(block, TextBlock)`, `message.text()`), so the light values are put into
models here as they are: the structs mirror the models' fields with the same names, types and
defaults (held so by tests/unit/test_light_entries.py), and a light entry exists only where msgspec
read every mirrored value as pydantic would.

What a light entry drops is a model's extra fields (`extra="allow"`: e.g. a Claude Code block's
signature); of them the audit reads only a system message's `sections` (`Message.text()`), so a
system message whose stored model names `sections` or `toolsAdded` is validated as before.
The models are built as `model_construct` builds them (no validation), every field given.
"""

from __future__ import annotations

from typing import Any

from cutline.core.agents.entries import entry_from_json
from cutline.core.agents.light import (
    LightEntry,
    LightImage,
    LightModelEntry,
    LightText,
    LightThinking,
    LightToolCall,
    LightToolResult,
)
from cutline.core.models import (
    Entry,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    Usage,
)

_set = object.__setattr__
# a system message's extra fields some reader of a `Message` looks at (`system_sections`, `system_tools`)
_READ_EXTRAS = ('"sections"', '"toolsAdded"')


def _model(cls: Any, values: dict[str, Any]) -> Any:
    """An instance of `cls` holding `values` (every field), as `model_construct` makes it, without a field loop."""
    model = cls.__new__(cls)
    _set(model, "__dict__", values)
    _set(model, "__pydantic_fields_set__", set(values))
    _set(model, "__pydantic_extra__", {})
    _set(model, "__pydantic_private__", None)
    return model


def _block(block: Any) -> Any:
    kind = type(block)
    if kind is LightText:
        return _model(TextBlock, {"type": "text", "text": block.text})
    if kind is LightToolCall:
        return _model(
            ToolCallBlock, {"type": "toolCall", "id": block.id, "name": block.name, "arguments": block.arguments}
        )
    if kind is LightThinking:
        return _model(ThinkingBlock, {"type": "thinking", "thinking": block.thinking})
    if kind is LightImage:
        return _model(ImageBlock, {"type": "image", "data": block.data, "mimeType": block.mimeType})
    if kind is LightToolResult:
        return _model(
            ToolResultBlock,
            {
                "type": "toolResult",
                "toolCallId": block.toolCallId,
                "content": [_block(b) for b in block.content],
                "isError": block.isError,
            },
        )
    raise TypeError(f"not a light block: {kind.__name__}")


def _message(message: Any) -> Message:
    usage = message.usage
    built: Message = _model(
        Message,
        {
            "role": message.role,
            "content": [_block(b) for b in message.content],
            "timestamp": message.timestamp,
            "model": message.model,
            "provider": message.provider,
            "usage": None
            if usage is None
            else _model(
                Usage,
                {
                    "input": usage.input,
                    "output": usage.output,
                    "cacheRead": usage.cacheRead,
                    "cacheWrite": usage.cacheWrite,
                    "totalTokens": usage.totalTokens,
                },
            ),
            "stopReason": message.stopReason,
            "errorMessage": message.errorMessage,
            "toolCallId": message.toolCallId,
            "toolName": message.toolName,
            "isError": message.isError,
            "command": message.command,
            "output": message.output,
            "exitCode": message.exitCode,
            "customType": message.customType,
            "display": message.display,
            "summary": message.summary,
            "contentWasString": message.contentWasString,
        },
    )
    return built


def as_entry(entry: Entry | LightEntry) -> Entry:
    """The `Entry` the store rebuilds for this row (`entry_from_row`), but for the extra fields the audit does not read.

    A validated entry comes back as it is. A light entry is a pi message line's
    (`light_entry`: its line and raw line set as `entry_from_line` sets them) or a Claude Code
    or Codex message's stored model (`light_model_entry`: its raw line is the empty one the
    store's window reads for such a row, `_RAW_LINE_BY_MODEL`).
    """
    if isinstance(entry, Entry):
        return entry
    message = entry.message
    data = entry.data
    if message is None or not isinstance(data, dict):
        raise TypeError(f"a light entry without a message or data: {entry.id}")
    if isinstance(entry, LightModelEntry):
        role = entry.message.role if entry.message is not None else None
        if role == "system" and any(name in entry.model_json for name in _READ_EXTRAS):
            return entry_from_json(entry.model_json)
        raw_line = ""
    else:
        raw_line = entry.raw_line
    built: Entry = _model(
        Entry,
        {
            "id": entry.id,
            "parentId": entry.parentId,
            "type": "message",
            "timestamp": entry.timestamp,
            "sourceType": entry.sourceType,
            "message": _message(message),
            "compaction": None,
            "data": data,
            "isSidechain": entry.isSidechain,
            "isMeta": entry.isMeta,
            "isCompactSummary": entry.isCompactSummary,
            "line": entry.line,
            "raw_line": raw_line,
        },
    )
    return built
