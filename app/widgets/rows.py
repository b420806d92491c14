"""What each row of the message list shows, derived from session entries.

Pure data: the list widget turns these into strips. Rows are built lazily (one per
visible entry) except for tool-call pairing, which needs one pass over the path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC

from cutline.app.widgets.safe_text import one_line
from cutline.core.engine.context import entry_message
from cutline.core.models import Entry, Message, ThinkingBlock, ToolCallBlock, ToolResultBlock

PAIR_COLOURS = 6

ROLE_GLYPHS = {
    "user": "❯",
    "assistant": "◆",
    "toolResult": "↳",
    "bashExecution": "$",
    "custom": "◇",
    "branchSummary": "⑂",
    "compactionSummary": "≡",
    "system": "⚙",
}


LABEL_CELLS = 10
"""The list's label column: every label fits it whole, or ends in "…" to say it was shortened."""

ROLE_LABELS = {
    "bashExecution": "bash",
    "branchSummary": "branch",
    "compactionSummary": "summary",
}


def fit_label(label: str) -> str:
    """A label that fits the list's label column: whole, or shortened with "…" (never silently cut)."""
    from rich.cells import cell_len, set_cell_size

    if cell_len(label) <= LABEL_CELLS:
        return label
    return set_cell_size(label, LABEL_CELLS - 1) + "…"


@dataclass(frozen=True, slots=True)
class Row:
    """One entry as a list row: kind (role or entry type), glyph, time, preview and marks."""

    kind: str
    glyph: str
    time: str
    label: str
    preview: str
    thinking: bool = False
    image: bool = False
    error: bool = False
    is_call: bool = False
    is_result: bool = False
    pair: int | None = None
    divider: bool = False


def clock_time(timestamp: object) -> str:
    """HH:MM from an ISO timestamp or epoch milliseconds, as written in the session."""
    if isinstance(timestamp, (int, float)) and timestamp > 0:
        from datetime import datetime

        seconds = timestamp / 1000 if timestamp > 10**11 else timestamp
        try:
            return datetime.fromtimestamp(seconds, tz=UTC).strftime("%H:%M")
        except (OverflowError, OSError, ValueError):
            return ""
    if isinstance(timestamp, str) and "T" in timestamp:
        clock = timestamp.split("T", 1)[1]
        if len(clock) >= 5 and clock[2] == ":":
            return clock[:5]
    return ""


def _call_summary(call: ToolCallBlock) -> str:
    args = call.arguments
    if isinstance(args, dict):
        for key in ("path", "file_path", "command", "cmd", "url", "query", "pattern"):
            value = args.get(key)
            if isinstance(value, str) and value:
                return f"{call.name} {value}"
        try:
            return f"{call.name} {json.dumps(args, ensure_ascii=False)[:160]}"
        except (TypeError, ValueError):
            return call.name
    return f"{call.name} {str(args)[:160]}"


def _system_preview(message: Message, text: str) -> str:
    """A pi system entry: the tools it adds and removes, then its prompt text (section patches by name)."""
    parts: list[str] = []
    names = [str(t.get("name", "?")) for t in message.system_tools() if isinstance(t, dict)]
    if names:
        parts.append(f"+{len(names)} tools ({', '.join(names[:6])}{'…' if len(names) > 6 else ''})")
    removed = (message.model_extra or {}).get("toolsRemoved")
    if isinstance(removed, list) and removed:
        parts.append(f"-{len(removed)} tools")
    sections = (message.model_extra or {}).get("sections")
    deleted = [name for name, value in sections.items() if value is None] if isinstance(sections, dict) else []
    if deleted:
        parts.append(f"sections removed: {', '.join(deleted)}")
    if text:
        parts.append(text)
    return " · ".join(parts) or "(empty)"


def message_row(entry: Entry, message: Message, pair: int | None) -> Row:
    """The row of an entry that carries a message."""
    role = message.role
    calls = message.tool_calls()
    result_ids = message.tool_result_ids()
    thinking = any(isinstance(b, ThinkingBlock) and b.thinking for b in message.content)
    image = message.has_image()
    error = bool(
        message.isError
        or message.errorMessage
        or message.stopReason == "error"
        or any(isinstance(b, ToolResultBlock) and b.isError for b in message.content)
        or (role == "bashExecution" and message.exitCode not in (None, 0))
    )
    text = message.text()
    label: str = ROLE_LABELS.get(role, role)
    if role == "toolResult":
        label = one_line(message.toolName or "", 40) or "result"
        preview = one_line(text) or ("[image]" if image else "(empty)")
    elif role == "bashExecution":
        preview = one_line(f"{message.command or ''} → {message.output or ''}")
    elif role == "system":
        preview = one_line(_system_preview(message, text))
    elif calls:
        said = one_line(text, 120)
        tools = ", ".join(one_line(_call_summary(c), 200) for c in calls[:3])
        more = f" +{len(calls) - 3}" if len(calls) > 3 else ""
        preview = f"{said}  ⚒ {tools}{more}" if said else f"⚒ {tools}{more}"
    else:
        preview = one_line(text)
        if not preview and thinking:
            first = next(b for b in message.content if isinstance(b, ThinkingBlock))
            preview = one_line(first.thinking)
        if not preview and message.errorMessage:
            preview = one_line(message.errorMessage)
        if not preview and image:
            preview = "[image]"
    if role == "custom" and message.customType:
        label = one_line(message.customType, 40)
    return Row(
        kind=role,
        glyph=ROLE_GLYPHS.get(role, "•"),
        time=clock_time(entry.timestamp or message.timestamp),
        label=fit_label(label),
        preview=preview,
        thinking=thinking,
        image=image,
        error=error,
        is_call=bool(calls),
        is_result=bool(result_ids),
        pair=pair,
    )


def _edit_detail(data: dict[str, object]) -> str:
    """A pi context_edit: which entry it omits, or what it puts in its place."""
    target = data.get("targetId", "?")
    replacement = data.get("replacement")
    if replacement is None:
        return f"omits {target} from the context"
    content = replacement.get("content") if isinstance(replacement, dict) else None
    if isinstance(content, list):
        content = " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return f"replaces {target}: {content}"


def _usage_detail(data: dict[str, object]) -> str:
    """A pi usage entry (a model call outside the conversation, e.g. cache warming): kind and tokens."""
    usage = data.get("usage")
    total = usage.get("totalTokens") if isinstance(usage, dict) else None
    kind = data.get("kind", "")
    return f"{kind} call · {total:,} tokens" if isinstance(total, int) else f"{kind} call"


def entry_row(entry: Entry, pair: int | None = None) -> Row:
    """The row of any entry: messages by role, compactions as dividers, the rest as notes."""
    if entry.type in ("message", "custom_message", "branch_summary"):
        message = entry.message if entry.message is not None else entry_message(entry)
        if message is not None:
            return message_row(entry, message, pair)
    time = clock_time(entry.timestamp)
    if entry.type == "compaction" and entry.compaction is not None:
        record = entry.compaction
        if not record.firstKeptEntryId or record.firstKeptEntryId == entry.id:
            kept = "whole history replaced"
        else:
            kept = f"kept from {record.firstKeptEntryId}"
        before = f"{record.tokensBefore:,} tokens before · " if record.tokensBefore else ""
        return Row(
            kind="compaction",
            glyph="≡",
            time=time,
            label="compaction",
            preview=f"{before}{kept} · {one_line(record.summary, 160)}",
            divider=True,
        )
    data = entry.data or {}
    if entry.type == "model_change":
        detail = f"model → {data.get('provider', '')}/{data.get('modelId', data.get('model', ''))}".replace("→ /", "→ ")
    elif entry.type == "thinking_level_change":
        detail = f"thinking level → {data.get('thinkingLevel', '')}"
    elif entry.type == "label":
        detail = f"label {data.get('label', '')}"
    elif entry.type == "session_info":
        detail = f"session {data.get('name', '')}"
    elif entry.type == "branch_summary":
        detail = f"branch summary {data.get('summary', '')}"
    elif entry.type == "context_edit":
        detail = _edit_detail(data)
    elif entry.type == "usage":
        detail = _usage_detail(data)
    else:
        detail = entry.sourceType or entry.type
        if entry.message is not None:
            detail = f"{detail} {entry.message.text()}"
    return Row(
        kind="note",
        glyph="·",
        time=time,
        label=fit_label(entry.type.replace("_", " ")),
        preview=one_line(str(detail)),
    )
