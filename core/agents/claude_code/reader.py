"""Claude Code session JSONL (`~/.claude/projects/*/*.jsonl`) read into the neutral model.

Records keep their `uuid` as entry id and `parentUuid` as parent, so rewinds (several
children of one parent) become branches of the tree. A `compact_boundary` system
record becomes a compaction entry whose parent is its `logicalParentUuid`, so the
active path runs through it; its summary is the text of the `isCompactSummary` user
record that follows.
"""

from __future__ import annotations

import os
from typing import Any

from cutline.core.agents.claude_code.usage import usage_fields
from cutline.core.agents.entries import StableIds, build_entry, iso_to_ms, path_hash, string_or
from cutline.core.agents.jsonl import Lines, Record, parse_records
from cutline.core.models import Entry, Problem, Session

# record types Claude Code writes that carry no conversation: kept as "other", not reported
_HARMLESS_TYPES = frozenset(
    {"system", "summary", "file-history-snapshot", "queue-operation", "progress", "attachment", "custom-title", "tag"}
)
_TREE_TYPES = frozenset({"user", "assistant", "system"})
_OTHER_DROP = frozenset({"type", "uuid", "parentUuid", "timestamp"})
# Anthropic stop reasons in pi's vocabulary
_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "refusal": "stop",
    "tool_use": "toolUse",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
}


def read_claude_code(lines: Lines, file: str, stem: str) -> Session:
    """A Session from the parsed lines of a Claude Code transcript (problems collected, never raised)."""
    problems = lines.problems
    records = parse_records(lines, file)
    session_id = _first_string(records, "sessionId") or path_hash(os.path.abspath(file))
    ids = StableIds(session_id, {r.value["uuid"] for r in records if isinstance(r.value.get("uuid"), str)})
    tool_names: dict[str, str] = {}
    entries: list[Entry] = []
    boundaries: dict[str, Entry] = {}
    pending: Entry | None = None
    leaf_id: str | None = None
    for record in records:
        value = record.value
        kind = value.get("type")
        uuid = value.get("uuid")
        has_uuid = isinstance(uuid, str) and bool(uuid)
        entry_id = uuid if has_uuid else ids.make(record.line)
        parent = value.get("parentUuid")
        timestamp = value.get("timestamp")
        shaped: dict[str, Any] = {
            "id": entry_id,
            "parentId": parent if isinstance(parent, str) else None,
            "type": "other",
            "timestamp": timestamp if isinstance(timestamp, str) else None,
            "sourceType": kind if isinstance(kind, str) else None,
            "isSidechain": value.get("isSidechain") is True,
            "isMeta": value.get("isMeta") is True,
            "line": record.line,
            "raw_line": record.text,
        }
        message = value.get("message")
        if kind in ("user", "assistant") and type(message) is dict:
            shaped["type"] = "message"
            shaped["message"] = _message(value, message, kind, tool_names)
            if value.get("isCompactSummary") is True:
                shaped["isCompactSummary"] = True
        elif kind == "system" and value.get("subtype") == "compact_boundary":
            logical = value.get("logicalParentUuid")
            if isinstance(logical, str):
                shaped["parentId"] = logical
            raw_meta = value.get("compactMetadata")
            meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
            pre = meta.get("preTokens")
            shaped["type"] = "compaction"
            shaped["compaction"] = {
                "summary": "",
                "firstKeptEntryId": None,
                "tokensBefore": pre if isinstance(pre, int) and not isinstance(pre, bool) else 0,
                "details": {"trigger": meta.get("trigger")},
            }
        else:
            shaped["data"] = {k: v for k, v in value.items() if k not in _OTHER_DROP}
            if kind in ("user", "assistant"):
                problems.append(
                    Problem(
                        file=file,
                        line=record.line,
                        message=f"{kind} record has no message object (kept as 'other')",
                        severity="warning",
                    )
                )
            elif kind not in _HARMLESS_TYPES:
                shown = repr(kind) if isinstance(kind, str) else "missing"
                problems.append(
                    Problem(
                        file=file,
                        line=record.line,
                        message=f"unknown record type {shown} (kept as 'other')",
                        severity="warning",
                    )
                )
        entry = build_entry(shaped, file, problems)
        entries.append(entry)
        if entry.type == "compaction" and entry.compaction is not None:
            boundaries[entry.id] = entry
            pending = entry
        elif entry.isCompactSummary and entry.message is not None:
            target = boundaries.get(entry.parentId or "") or pending
            if target is not None and target.compaction is not None and not target.compaction.summary:
                target.compaction.summary = entry.message.text()
            pending = None
        if has_uuid and kind in _TREE_TYPES and not entry.isSidechain:
            leaf_id = entry_id
    return Session(
        id=session_id,
        format="claude_code",
        version=None,
        name=stem,
        cwd=_first_string(records, "cwd"),
        header={},
        header_line="",
        entries=entries,
        leaf_id=leaf_id,
        problems=problems,
        newline=lines.newline,
        trailing_newline=lines.trailing_newline,
    )


def _first_string(records: list[Record], key: str) -> str | None:
    for record in records:
        value = record.value.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _message(record: dict[str, Any], message: dict[str, Any], kind: str, tool_names: dict[str, str]) -> dict[str, Any]:
    """A neutral message dict from a Claude Code user or assistant record."""
    content = message.get("content")
    out: dict[str, Any] = {"role": kind, "timestamp": iso_to_ms(record.get("timestamp"))}
    blocks: list[dict[str, Any]] = []
    others: list[Any] = []
    if isinstance(content, str):
        blocks.append({"type": "text", "text": content})
        out["contentWasString"] = True
    elif isinstance(content, list):
        for block in content:
            converted = _block(block, tool_names)
            if converted is None:
                others.append(block)
            else:
                blocks.append(converted)
    out["content"] = blocks
    if others:
        out["otherBlocks"] = others
    if kind == "user":
        results = [b for b in blocks if b["type"] == "toolResult"]
        if results:
            out["role"] = "toolResult"
            if len(results) == 1:
                out["toolCallId"] = results[0]["toolCallId"]
                out["toolName"] = tool_names.get(results[0]["toolCallId"])
                out["isError"] = results[0]["isError"]
        return out
    model = message.get("model")
    if isinstance(model, str):
        out["model"] = model
    out["provider"] = "anthropic"
    if isinstance(message.get("id"), str):
        out["responseId"] = message["id"]
    usage = message.get("usage")
    if isinstance(usage, dict):
        out["usage"] = usage_fields(usage)
    stop = message.get("stop_reason")
    if isinstance(stop, str):
        out["stopReason"] = _STOP_REASONS.get(stop, stop)
        out["sourceStopReason"] = stop
    if record.get("isApiErrorMessage") is True:
        out["stopReason"] = "error"
    return out


def _block(block: Any, tool_names: dict[str, str]) -> dict[str, Any] | None:
    """One Anthropic content block in the neutral shape, or None when it has no counterpart."""
    if type(block) is not dict:
        return None
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": block.get("text") if isinstance(block.get("text"), str) else ""}
    if kind == "thinking":
        out = {"type": "thinking", "thinking": block.get("thinking") if isinstance(block.get("thinking"), str) else ""}
        if isinstance(block.get("signature"), str):
            out["thinkingSignature"] = block["signature"]
        return out
    if kind == "redacted_thinking":
        return {"type": "thinking", "thinking": "", "redacted": True, "thinkingSignature": block.get("data")}
    if kind in ("tool_use", "server_tool_use"):
        call_id = string_or(block.get("id"))
        name = string_or(block.get("name"))
        tool_names[call_id] = name
        return {"type": "toolCall", "id": call_id, "name": name, "arguments": block.get("input", {})}
    if kind == "tool_result":
        call_id = string_or(block.get("tool_use_id"))
        return {
            "type": "toolResult",
            "toolCallId": call_id,
            "content": _result_content(block.get("content")),
            "isError": block.get("is_error") is True,
        }
    if kind == "image":
        return _image(block)
    return None


def _image(block: dict[str, Any]) -> dict[str, Any]:
    raw_source = block.get("source")
    source: dict[str, Any] = raw_source if isinstance(raw_source, dict) else {}
    out: dict[str, Any] = {
        "type": "image",
        "data": source.get("data") if isinstance(source.get("data"), str) else "",
        "mimeType": source.get("media_type") if isinstance(source.get("media_type"), str) else "",
    }
    if isinstance(source.get("url"), str):
        out["url"] = source["url"]
    return out


def _result_content(content: Any) -> list[dict[str, Any]]:
    """A tool result's content (a string or text/image blocks) as neutral text and image blocks."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    out: list[dict[str, Any]] = []
    if isinstance(content, list):
        for item in content:
            if type(item) is not dict:
                continue
            if item.get("type") == "text" and isinstance(item.get("text"), str):
                out.append({"type": "text", "text": item["text"]})
            elif item.get("type") == "image":
                out.append(_image(item))
    return out
