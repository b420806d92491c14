"""pi session JSONL written out: a pi session byte-identical to its source, any other as a pi v3 file."""

from __future__ import annotations

from typing import Any

from cutline.core.agents import deep_json
from cutline.core.agents.entries import StableIds
from cutline.core.models import (
    CompactionRecord,
    Entry,
    ImageBlock,
    Message,
    Session,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    Usage,
)

CURRENT_VERSION = 3
# message roles pi keeps in message entries (branch and compaction summaries are entries of their own)
_PI_MESSAGE_ROLES = frozenset({"user", "assistant", "toolResult", "bashExecution", "custom"})


def _dumps(value: Any) -> str:
    """JSON the way JavaScript's JSON.stringify writes it (no spaces, non-ASCII kept)."""
    return deep_json.dumps(value)


def export_pi(session: Session) -> str:
    """The session as pi JSONL text.

    A session read from a pi file comes back byte-identical to its source: header line,
    each entry's raw line, the source's newline and final newline. Lines that were
    skipped when reading (malformed JSON, blank lines) are not re-emitted, and a line with
    invalid UTF-8 comes back with U+FFFD where the bad bytes were.
    Claude Code and Codex sessions become a pi v3 file of their active path (header,
    message entries, compaction entries), which pi's own reader accepts.
    """
    if session.format != "pi":
        return _synthesize(session)
    lines: list[str] = []
    if session.header_line:
        lines.append(session.header_line)
    elif session.header:
        lines.append(_dumps(session.header))
    for entry in session.entries:
        lines.append(entry.raw_line if entry.raw_line else _dumps(_entry_record(entry, entry.parentId)))
    if not lines:
        return ""
    text = session.newline.join(lines)
    return text + session.newline if session.trailing_newline else text


def _entry_record(entry: Entry, parent_id: str | None) -> dict[str, Any]:
    """A pi v3 record for an entry that has no source line of its own."""
    kind = entry.sourceType if entry.type == "other" and entry.sourceType else entry.type
    base: dict[str, Any] = {"type": kind, "id": entry.id, "parentId": parent_id}
    if entry.timestamp is not None:
        base["timestamp"] = entry.timestamp
    base.update(entry.model_extra or {})
    if entry.type == "compaction" and entry.compaction is not None:
        base.update(compaction_fields(entry.compaction))
    elif entry.type == "message" and entry.message is not None:
        base["message"] = _message_dict(entry.message)
    elif entry.type == "branch_summary" and entry.message is not None:
        base["summary"] = entry.message.summary or ""
        base.update(entry.data)
    elif entry.type == "custom_message" and entry.message is not None:
        base.update(entry.data)
        base["content"] = _content(entry.message)
    else:
        base.update(entry.data)
    return base


def compaction_fields(record: CompactionRecord) -> dict[str, Any]:
    """The compaction's fields in pi's order (summary, firstKeptEntryId, tokensBefore, details, fromHook)."""
    fields: dict[str, Any] = {
        "summary": record.summary,
        "firstKeptEntryId": record.firstKeptEntryId,
        "tokensBefore": record.tokensBefore,
    }
    if record.details is not None:
        fields["details"] = record.details
    if record.fromHook is not None:
        fields["fromHook"] = record.fromHook
    if record.tokensAfter is not None:
        fields["tokensAfter"] = record.tokensAfter
    for key, value in (record.model_extra or {}).items():
        fields.setdefault(key, value)
    return fields


def _block_dict(block: Any) -> dict[str, Any]:
    try:
        dumped: dict[str, Any] = block.model_dump(mode="json", exclude_none=True)
    except ValueError:  # nested deeper than pydantic serializes: its values were read from JSON, kept as they are
        dumped = block.model_dump(exclude_none=True)
    return dumped


def _content(message: Message) -> Any:
    blocks = [_block_dict(b) for b in message.content if not isinstance(b, ToolResultBlock)]
    if message.contentWasString and len(blocks) == 1 and blocks[0].get("type") == "text":
        return blocks[0]["text"]
    return blocks


_PI_MESSAGE_KEYS = (
    "model",
    "provider",
    "stopReason",
    "errorMessage",
    "toolCallId",
    "toolName",
    "command",
    "output",
    "exitCode",
    "customType",
    "display",
)


def _message_dict(message: Message) -> dict[str, Any]:
    """A pi message object from a neutral message."""
    out: dict[str, Any] = {"role": message.role}
    if message.role != "bashExecution":
        out["content"] = _content(message)
    for key in _PI_MESSAGE_KEYS:
        value = getattr(message, key)
        if value is not None:
            out[key] = value
    if message.role == "toolResult":
        out["isError"] = message.isError
    if message.usage is not None or message.role == "assistant":
        # pi's assistant messages always carry usage; a block record of a Claude Code call whose
        # usage is counted on its last record gets zeros
        usage = (message.usage or Usage()).model_dump(mode="json")
        usage.setdefault("cost", {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0})
        out["usage"] = usage
    for key, value in (message.model_extra or {}).items():
        if key not in ("otherBlocks",) and not key.startswith("source"):
            out.setdefault(key, value)
    out["timestamp"] = message.timestamp if message.timestamp is not None else 0
    return out


def _synthesize(session: Session) -> str:
    """A pi v3 file for a Claude Code or Codex session: its active path as message and compaction entries."""
    path = session.active_path()
    first_timestamp = next((e.timestamp for e in path if e.timestamp), None) or "1970-01-01T00:00:00.000Z"
    header = {
        "type": "session",
        "version": CURRENT_VERSION,
        "id": session.id,
        "timestamp": first_timestamp,
        "cwd": session.cwd or "",
    }
    ids = StableIds(session.id, {e.id for e in session.entries})
    tool_names: dict[str, str] = {}
    lines = [_dumps(header)]
    parent: str | None = None
    for entry in path:
        timestamp = entry.timestamp or first_timestamp
        for n, message in enumerate(_pi_messages(entry, tool_names)):
            entry_id = entry.id if n == 0 else ids.make(f"{entry.id}:{n}")
            record = {"type": "message", "id": entry_id, "parentId": parent, "timestamp": timestamp, "message": message}
            lines.append(_dumps(record))
            parent = entry_id
        if entry.type == "compaction" and entry.compaction is not None:
            record = {"type": "compaction", "id": entry.id, "parentId": parent, "timestamp": timestamp}
            record.update(compaction_fields(entry.compaction))
            lines.append(_dumps(record))
            parent = entry.id
    return "\n".join(lines) + "\n"


def _pi_messages(entry: Entry, tool_names: dict[str, str]) -> list[dict[str, Any]]:
    """The pi message(s) one neutral entry becomes (a Claude Code tool-result record may hold several)."""
    message = entry.message
    if entry.type != "message" or message is None or entry.isCompactSummary or entry.isSidechain:
        return []
    if message.role not in _PI_MESSAGE_ROLES:
        return []
    for call in message.tool_calls():
        tool_names[call.id] = call.name
    results = [b for b in message.content if isinstance(b, ToolResultBlock)]
    if not results:
        out = _message_dict(message)
        if message.role == "toolResult" and not message.toolName and message.toolCallId:
            out["toolName"] = tool_names.get(message.toolCallId, "")
        return [out]
    messages: list[dict[str, Any]] = []
    for block in results:
        messages.append(
            {
                "role": "toolResult",
                "toolCallId": block.toolCallId,
                "toolName": tool_names.get(block.toolCallId, ""),
                "content": [_block_dict(b) for b in block.content],
                "isError": block.isError,
                "timestamp": message.timestamp if message.timestamp is not None else 0,
            }
        )
    rest = [
        _block_dict(b) for b in message.content if isinstance(b, (TextBlock, ImageBlock, ThinkingBlock, ToolCallBlock))
    ]
    if rest:
        messages.append({"role": "user", "content": rest, "timestamp": message.timestamp or 0})
    return messages


def compaction_line(record: CompactionRecord, *, entry_id: str, parent_id: str | None, timestamp: str) -> str:
    """The exact JSON line (no newline) `append_compaction` writes for this compaction."""
    fields: dict[str, Any] = {"type": "compaction", "id": entry_id, "parentId": parent_id, "timestamp": timestamp}
    fields.update(compaction_fields(record))
    return _dumps(fields)
