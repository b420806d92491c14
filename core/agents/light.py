"""Light entries: pi message lines decoded by msgspec into plain structs, for an import that does not keep the entries.

Why: a streamed import needs of each line only its row, index facts and chars4 count;
validating it into the pydantic `Entry` cost ~0.9 s per 100,000 lines, msgspec ~0.3 s.
The raw line stays the stored record (unknown fields survive it), and the store
rebuilds the pydantic entry from it (`pi.reader.entry_from_line`) when it is read.

So a light entry may only stand for a line `entry_from_line` turns into an `Entry`
with the same values. The structs mirror the models' fields with the same names,
types and defaults, decoded strictly (msgspec accepts a subset of what pydantic's lax
mode accepts: `1.0` for an int, `"true"` for a bool go to pydantic); what they do not
mirror makes `light_entry` answer None, and the reader takes pydantic's path:
- a system message (its prompt sections live in the model's extra fields),
- a tool result block inside a message, a compaction record on a message line,
- a line with more than `_MAX_BRACKETS` brackets (pydantic-core stops at ~200 levels
  of nesting, msgspec goes deeper; the count bounds the depth, unknown fields included),
- anything msgspec refuses.
A test holds the field lists to the models' and compares every line of every fixture
and random variants both ways.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import msgspec

# brackets a line may hold before it is left to pydantic (it refuses nesting deeper than ~200)
_MAX_BRACKETS = 128


class LightText(msgspec.Struct, tag_field="type", tag="text", gc=False):
    type: ClassVar[Literal["text"]] = "text"
    text: str = ""


class LightThinking(msgspec.Struct, tag_field="type", tag="thinking", gc=False):
    type: ClassVar[Literal["thinking"]] = "thinking"
    thinking: str = ""


class LightToolCall(msgspec.Struct, tag_field="type", tag="toolCall", gc=False):
    type: ClassVar[Literal["toolCall"]] = "toolCall"
    id: str = ""
    name: str = ""
    arguments: Any = msgspec.field(default_factory=dict)


class LightImage(msgspec.Struct, tag_field="type", tag="image", gc=False):
    type: ClassVar[Literal["image"]] = "image"
    data: str = ""
    mimeType: str = ""


LightBlock = LightText | LightThinking | LightToolCall | LightImage


class LightToolResult(msgspec.Struct, tag_field="type", tag="toolResult", gc=False):
    """`models.ToolResultBlock`: Claude Code's tool results, in a stored model only (`LightModelEntry`)."""

    type: ClassVar[Literal["toolResult"]] = "toolResult"
    toolCallId: str = ""
    content: list[LightText | LightImage] = []
    isError: bool = False


# `models.Role` but "system"
LightRole = Literal["user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary"]


class LightUsage(msgspec.Struct, gc=False):
    input: int = 0
    output: int = 0
    cacheRead: int = 0
    cacheWrite: int = 0
    totalTokens: int = 0

    @property
    def context_tokens(self) -> int:
        """As `models.Usage.context_tokens` (pi's calculateContextTokens)."""
        return self.totalTokens or (self.input + self.output + self.cacheRead + self.cacheWrite)

    @property
    def prompt_tokens(self) -> int:
        """As `models.Usage.prompt_tokens`."""
        return self.input + self.cacheRead + self.cacheWrite


class LightMessage(msgspec.Struct, gc=False):
    role: LightRole
    content: list[LightBlock] = []
    timestamp: Any = None
    model: str | None = None
    provider: str | None = None
    usage: LightUsage | None = None
    stopReason: str | None = None
    errorMessage: str | None = None
    toolCallId: str | None = None
    toolName: str | None = None
    isError: bool = False
    command: str | None = None
    output: str | None = None
    exitCode: int | None = None
    customType: str | None = None
    display: bool | None = None
    summary: str | None = None
    contentWasString: bool = False


class LightEntry(msgspec.Struct, gc=False):
    id: str
    type: Literal["message"]
    parentId: str | None = None
    timestamp: str | None = None
    sourceType: str | None = None
    message: LightMessage | None = None
    compaction: Any = msgspec.UNSET  # not mirrored: a line that has one goes to pydantic
    data: dict[str, Any] = {}
    isSidechain: bool = False
    isMeta: bool = False
    isCompactSummary: bool = False
    line: int = 0
    raw_line: str = ""


_decode = msgspec.json.Decoder(LightEntry).decode


class LightModelMessage(LightMessage, gc=False):
    """A stored model's message (`LightModelEntry`): a tool result block may be among its blocks, and it may be a
    system message (Claude Code's attachments; its prompt sections, model extras, are not read light)."""

    # msgspec takes a subclass's field types as they are written here (mypy holds fields invariant)
    role: LightRole | Literal["system"]  # type: ignore[assignment]
    content: list[LightText | LightThinking | LightToolCall | LightImage | LightToolResult] = []  # type: ignore[assignment]


class LightModelEntry(LightEntry, gc=False):
    """A Claude Code or Codex message as its stored model (the pydantic `Entry` serialized at import) reads light.

    Why: those rows hold the model, not a pi line; a summary's walk over a span rebuilt
    each one with pydantic (~40 % of a Claude Code 50k `compact`'s walk). The model's JSON
    is what pydantic wrote, so msgspec reads the same values; what the structs do not
    mirror (a compaction, a value of another type) is left to pydantic. A system message's
    prompt sections (`Message.system_sections`) are not read: the summary's walk reads a
    system message's size alone.
    `model_json` is the stored model, for the few a walk must hand on validated.
    """

    message: LightModelMessage | None = None
    data: Any = None  # not read from a light entry; a model writes null where a line has none
    model_json: str = ""


_decode_model = msgspec.json.Decoder(LightModelEntry).decode


def light_model_entry(serialized: str) -> LightModelEntry | None:
    """The light entry of a stored model's message, or None where only pydantic may read it (as `light_entry`)."""
    if serialized.count("[") + serialized.count("{") > _MAX_BRACKETS:
        return None
    try:
        entry = _decode_model(serialized)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None
    if not entry.id or entry.message is None or entry.compaction not in (None, msgspec.UNSET):
        return None
    entry.model_json = serialized
    return entry


def light_entry(text: str, number: int) -> LightEntry | None:
    """The light entry of a pi message line, or None where only pydantic's path may read it (see the module)."""
    if text.count("[") + text.count("{") > _MAX_BRACKETS:
        return None
    try:
        entry = _decode(text)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None
    if not entry.id or entry.message is None or entry.compaction is not msgspec.UNSET:
        return None
    # what `entry_from_line` sets after validating
    entry.line = number
    entry.raw_line = text
    entry.sourceType = "message"
    return entry
