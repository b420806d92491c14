"""Light entries of stored models: a Claude Code or Codex message row's serialized model decoded by msgspec, for reading.

Why: the store keeps these entries as their serialized model (core.store.rows.model_json,
every field written); the extractive summary reads each summarized message's values
once, and validating each back into the pydantic `Entry` was most of what reading the
span cost. These structs are core.agents.light's with what a stored model may hold
beyond a pi line: a tool result block inside a message (Claude Code's user records) and
an explicit null compaction. Anything else they do not mirror (a compaction, a system
message, another entry type, a value of another type) makes `stored_light_entry` answer
None, and the row is validated as before.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import msgspec

from cutline.core.agents.light import LightEntry, LightImage, LightMessage, LightText, LightThinking, LightToolCall


class LightToolResult(msgspec.Struct, tag_field="type", tag="toolResult", gc=False):
    """`models.ToolResultBlock`."""

    type: ClassVar[Literal["toolResult"]] = "toolResult"
    toolCallId: str = ""
    content: list[LightText | LightImage] = []
    isError: bool = False


class StoredLightMessage(LightMessage, gc=False):
    # msgspec redefines a field in a subclass: its blocks may also be tool results
    content: list[LightText | LightThinking | LightToolCall | LightImage | LightToolResult] = msgspec.field(  # type: ignore[assignment]
        default_factory=list
    )


class StoredLightEntry(LightEntry, gc=False):
    message: StoredLightMessage | None = None
    compaction: None = None


_decode = msgspec.json.Decoder(StoredLightEntry).decode


def stored_light_entry(serialized: str) -> StoredLightEntry | None:
    """The light entry of a stored message model, or None where only validation may read it (see the module)."""
    try:
        entry = _decode(serialized)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None
    if not entry.id or entry.message is None:
        return None
    return entry
