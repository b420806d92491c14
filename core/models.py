"""Format-neutral session model shared by every reader, the store, the engine and the UI.

The shape follows pi's session model (entries in a tree, messages by role, content
blocks) because the planner must reproduce pi exactly; Claude Code and Codex readers
map their records onto it. Every entry keeps the exact text of the record it came
from (`raw_line`) so a session that is imported and exported unchanged is
byte-for-byte the same, and unknown fields survive.

Every model here, as in the other modules a command may import without using their models,
is `defer_build`: its validator and serializer are built at its first use, not at import
(a warm `tokens --json` of a Codex file built 36 schemas at start-up, one of which it uses).
"""

from __future__ import annotations

import json
import weakref
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# ---------------------------------------------------------------------------
# Content blocks
# ---------------------------------------------------------------------------


class _Block(BaseModel):
    model_config = ConfigDict(extra="allow", defer_build=True)


class TextBlock(_Block):
    type: Literal["text"] = "text"
    text: str = ""


class ThinkingBlock(_Block):
    type: Literal["thinking"] = "thinking"
    thinking: str = ""


class ToolCallBlock(_Block):
    """A tool call inside an assistant message (pi `toolCall`, Claude `tool_use`, Codex `function_call`)."""

    type: Literal["toolCall"] = "toolCall"
    id: str = ""
    name: str = ""
    arguments: Any = Field(default_factory=dict)


class ImageBlock(_Block):
    type: Literal["image"] = "image"
    data: str = ""
    mimeType: str = ""


class ToolResultBlock(_Block):
    """A tool result carried inside another message (Claude Code puts these in user records)."""

    type: Literal["toolResult"] = "toolResult"
    toolCallId: str = ""
    content: list[TextBlock | ImageBlock] = Field(default_factory=list)
    isError: bool = False


Block = Annotated[
    TextBlock | ThinkingBlock | ToolCallBlock | ImageBlock | ToolResultBlock,
    Field(discriminator="type"),
]

# ---------------------------------------------------------------------------
# Messages
# ---------------------------------------------------------------------------

Role = Literal[
    "user",
    "assistant",
    "toolResult",
    "bashExecution",
    "custom",
    "branchSummary",
    "compactionSummary",
    "system",
]


class Usage(BaseModel):
    """Token usage the provider reported for one assistant response (pi's field names)."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    input: int = 0
    output: int = 0
    cacheRead: int = 0
    cacheWrite: int = 0
    totalTokens: int = 0

    @property
    def context_tokens(self) -> int:
        """Tokens the whole context occupied for this response, as pi's calculateContextTokens."""
        return self.totalTokens or (self.input + self.output + self.cacheRead + self.cacheWrite)

    @property
    def prompt_tokens(self) -> int:
        """Tokens the API counted for everything sent before this response."""
        return self.input + self.cacheRead + self.cacheWrite


class Message(BaseModel):
    """One message as the model sees it; string content is normalized to one text block."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    role: Role
    content: list[Block] = Field(default_factory=list)
    timestamp: Any = None
    # assistant
    model: str | None = None
    provider: str | None = None
    usage: Usage | None = None
    stopReason: str | None = None
    errorMessage: str | None = None
    # toolResult
    toolCallId: str | None = None
    toolName: str | None = None
    isError: bool = False
    # bashExecution
    command: str | None = None
    output: str | None = None
    exitCode: int | None = None
    # custom
    customType: str | None = None
    display: bool | None = None
    # branchSummary / compactionSummary
    summary: str | None = None
    # content was a bare string in the source (affects nothing but serialization)
    contentWasString: bool = False

    def text(self) -> str:
        """Concatenated text blocks (what a person reads as the message); a system message's prompt as pi renders it."""
        parts: list[str] = []
        if self.role == "system" and self.system_sections():
            # pi's getSystemMessageText: the content, then each section, blank-line separated
            content = "\n".join(b.text for b in self.content if isinstance(b, TextBlock))
            return "\n\n".join(p for p in (content, *self.system_sections().values()) if p)
        for block in self.content:
            if isinstance(block, TextBlock):
                parts.append(block.text)
            elif isinstance(block, ToolResultBlock):
                parts.extend(b.text for b in block.content if isinstance(b, TextBlock))
        if self.role in ("branchSummary", "compactionSummary") and self.summary:
            parts.append(self.summary)
        if self.role == "bashExecution":
            parts.append(f"$ {self.command or ''}\n{self.output or ''}")
        return "\n".join(p for p in parts if p)

    def system_sections(self) -> dict[str, str]:
        """A pi system message's prompt sections (name to text; a null value deletes the section when replayed)."""
        sections = (self.model_extra or {}).get("sections")
        if not isinstance(sections, dict):
            return {}
        return {name: text for name, text in sections.items() if isinstance(text, str)}

    def system_tools(self) -> list[Any]:
        """The tool declarations a pi system message adds (`toolsAdded`)."""
        tools = (self.model_extra or {}).get("toolsAdded")
        return tools if isinstance(tools, list) else []

    def tool_calls(self) -> list[ToolCallBlock]:
        return [b for b in self.content if isinstance(b, ToolCallBlock)]

    def tool_result_ids(self) -> list[str]:
        """Ids of the tool calls this message answers."""
        ids = [b.toolCallId for b in self.content if isinstance(b, ToolResultBlock)]
        if self.role == "toolResult" and self.toolCallId:
            ids.insert(0, self.toolCallId)
        return ids

    def has_image(self) -> bool:
        for block in self.content:
            if isinstance(block, ImageBlock):
                return True
            if isinstance(block, ToolResultBlock) and any(isinstance(b, ImageBlock) for b in block.content):
                return True
        return False


# ---------------------------------------------------------------------------
# Entries and sessions
# ---------------------------------------------------------------------------

EntryType = Literal[
    "message",
    "thinking_level_change",
    "model_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
    "context_edit",
    "usage",
    "other",
]


class CompactionRecord(BaseModel):
    """A compaction that happened (in a transcript) or was accepted here.

    `firstKeptEntryId` None means nothing before the compaction stays in context
    (Claude Code and Codex compactions replace the whole history).
    """

    model_config = ConfigDict(extra="allow", defer_build=True)

    summary: str = ""
    firstKeptEntryId: str | None = None
    tokensBefore: int = 0
    tokensAfter: int | None = None
    details: Any = None
    fromHook: bool | None = None


class Entry(BaseModel):
    """One record of a session file, placed in the session tree."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    id: str
    parentId: str | None = None
    type: EntryType
    timestamp: str | None = None
    # the record's own type name in its source format (e.g. "response_item", "system")
    sourceType: str | None = None
    message: Message | None = None
    compaction: CompactionRecord | None = None
    # entry-kind extras (label text, model id, thinking level, customType, data, ...)
    data: dict[str, Any] = Field(default_factory=dict)
    # Claude Code flags
    isSidechain: bool = False
    isMeta: bool = False
    isCompactSummary: bool = False
    # where it came from: 1-based line number and the exact line text (no newline)
    line: int = 0
    raw_line: str = ""

    @property
    def raw(self) -> dict[str, Any]:
        """The original record as parsed JSON."""
        return json.loads(self.raw_line) if self.raw_line else {}

    @property
    def role(self) -> str | None:
        return self.message.role if self.message is not None else None


SessionFormat = Literal["pi", "claude_code", "codex", "openclaw", "qwen_code", "opencode"]


class Problem(BaseModel):
    """Something wrong with the input, reported as `file:line: what is wrong`."""

    model_config = ConfigDict(defer_build=True)

    file: str
    line: int | None = None
    message: str
    severity: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.message}"


# each live session's last active path and what it was computed from, by the session's id
# (outside the model, so that comparing or serializing sessions never sees it)
_PATHS: dict[int, tuple[tuple[int, int, str | None, int], list[Entry]]] = {}


class Session(BaseModel):
    """A whole transcript: header, every entry (all branches) and what went wrong reading it."""

    model_config = ConfigDict(defer_build=True)

    id: str
    format: SessionFormat
    version: int | None = None
    source_path: str | None = None
    name: str | None = None
    cwd: str | None = None
    header: dict[str, Any] = Field(default_factory=dict)
    # the exact header line text ("" when the file had none)
    header_line: str = ""
    entries: list[Entry] = Field(default_factory=list)
    leaf_id: str | None = None
    problems: list[Problem] = Field(default_factory=list)
    # newline convention and whether the source ended with one, for byte-identical export
    newline: str = "\n"
    trailing_newline: bool = True
    # fingerprint of the source file when it was read, so a write-back can refuse
    # to append to a file that changed in any other way since
    source_size: int | None = None
    source_sha256: str | None = None

    def by_id(self) -> dict[str, Entry]:
        return {e.id: e for e in self.entries}

    def active_path(self) -> list[Entry]:
        """Entries from the root to the leaf (leaf = `leaf_id`, else the last entry).

        Remembered while the entry list, its length, its last entry and `leaf_id` stay the
        same (each call gets its own list). Why: a command asked for the path of a
        100k-entry session three or four times, 0.2 s each.
        """
        if not self.entries:
            return []
        key = (id(self.entries), len(self.entries), self.leaf_id, id(self.entries[-1]))
        memo = _PATHS.get(id(self))
        if memo is not None and memo[0] == key:
            return list(memo[1])
        index = self.by_id()
        leaf = index.get(self.leaf_id) if self.leaf_id else None
        path = self.path_to((leaf or self.entries[-1]).id, index)
        if memo is None:
            weakref.finalize(self, _PATHS.pop, id(self), None)
        _PATHS[id(self)] = (key, path)
        return list(path)

    def let_go(self, slice_size: int = 1_024) -> None:
        """Drop every entry (and the remembered path) a slice at a time, leaving the session empty.

        Why: the last reference to 100,000 entries dropped at once is one deallocation
        cascade of millions of objects that holds the interpreter for a few hundred ms; a
        view that rebuilt a session in a worker for one job frees it this way, so the
        screen keeps getting the interpreter between slices.
        """
        memo = _PATHS.pop(id(self), None)
        lists = [self.entries, *([memo[1]] if memo is not None else [])]
        while any(lists):
            for entries in lists:
                del entries[-slice_size:]

    def path_to(self, entry_id: str, index: dict[str, Entry] | None = None) -> list[Entry]:
        """Entries from the root to `entry_id`, following parents (empty when there is no such entry)."""
        index = index if index is not None else self.by_id()
        path: list[Entry] = []
        seen: set[str] = set()
        node = index.get(entry_id)
        while node is not None and node.id not in seen:
            seen.add(node.id)
            path.append(node)
            node = index.get(node.parentId) if node.parentId else None
        path.reverse()
        return path

    def compactions(self) -> list[Entry]:
        return [e for e in self.entries if e.type == "compaction"]
