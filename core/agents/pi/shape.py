"""One pi record shaped as the neutral entry (shared by the v2/v3 reader and the v1 migration)."""

from __future__ import annotations

from typing import Any

from cutline.core.agents.entries import StableIds, iso_to_ms, shape_content
from cutline.core.agents.jsonl import Record
from cutline.core.models import Entry, Problem

_BASE_KEYS = frozenset({"type", "id", "parentId", "timestamp"})
# entry types whose extra fields go to Entry.data unchanged
_DATA_TYPES = frozenset({"thinking_level_change", "model_change", "custom", "label", "session_info", "usage"})


def stray_header(record: Record, ids: StableIds, file: str, problems: list[Problem]) -> Entry:
    problems.append(
        Problem(
            file=file,
            line=record.line,
            message="another session header (kept as 'other'; pi ignores it)",
            severity="warning",
        )
    )
    return other_entry(record.value, ids.make(record.line), None, record)


def rest(value: dict[str, Any], *drop: str) -> dict[str, Any]:
    return {k: v for k, v in value.items() if k not in _BASE_KEYS and k not in drop}


def shape(
    value: dict[str, Any],
    entry_id: str,
    parent_id: str | None,
    record: Record,
    *,
    file: str,
    problems: list[Problem],
    legacy_index_ids: dict[int, str] | None = None,
) -> dict[str, Any]:
    """One pi record as a dict in the neutral Entry's shape."""
    kind = value.get("type")
    timestamp = value.get("timestamp")
    shaped: dict[str, Any] = {
        "id": entry_id,
        "parentId": parent_id,
        "type": kind,
        "timestamp": timestamp if isinstance(timestamp, str) else None,
        "sourceType": kind if isinstance(kind, str) else None,
        "line": record.line,
        "raw_line": record.text,
    }
    if kind == "message":
        message = value.get("message")
        if type(message) is not dict:
            problems.append(
                Problem(
                    file=file,
                    line=record.line,
                    message="message entry has no message object (kept as 'other')",
                    severity="warning",
                )
            )
            shaped["type"] = "other"
            shaped["data"] = rest(value)
            return shaped
        if message.get("role") == "hookMessage":
            message["role"] = "custom"
        _note_blocks(shape_content(message), record, file, problems)
        shaped["message"] = message
    elif kind == "compaction":
        compaction = rest(value)
        if legacy_index_ids is not None and "firstKeptEntryIndex" in compaction:
            index = compaction.pop("firstKeptEntryIndex")
            target = legacy_index_ids.get(index) if isinstance(index, int) and not isinstance(index, bool) else None
            if target is not None:
                compaction["firstKeptEntryId"] = target
            else:
                problems.append(
                    Problem(
                        file=file,
                        line=record.line,
                        message=f"firstKeptEntryIndex {index!r} names no earlier entry (nothing before the compaction is kept)",
                        severity="warning",
                    )
                )
        for key in ("summary", "tokensBefore"):
            if compaction.get(key, 0) is None:
                del compaction[key]
        shaped["compaction"] = compaction
    elif kind == "branch_summary":
        shaped["message"] = {
            "role": "branchSummary",
            "summary": value.get("summary"),
            "timestamp": iso_to_ms(timestamp),
        }
        shaped["data"] = rest(value, "summary")
    elif kind == "custom_message":
        message = {
            "role": "custom",
            "customType": value.get("customType"),
            "content": value.get("content"),
            "display": value.get("display"),
            "timestamp": iso_to_ms(timestamp),
        }
        if "details" in value:
            message["details"] = value["details"]
        _note_blocks(shape_content(message), record, file, problems)
        shaped["message"] = message
        shaped["data"] = rest(value, "content")
    elif kind == "context_edit":
        shaped["data"] = rest(value)
        _check_edit(value, record, file, problems)
    elif kind in _DATA_TYPES:
        shaped["data"] = rest(value)
    else:
        shown = repr(kind) if isinstance(kind, str) else "missing"
        problems.append(
            Problem(
                file=file,
                line=record.line,
                message=f"unknown record type {shown} (kept as 'other')",
                severity="warning",
            )
        )
        shaped["type"] = "other"
        shaped["data"] = rest(value)
    return shaped


def _check_edit(value: dict[str, Any], record: Record, file: str, problems: list[Problem]) -> None:
    """A context_edit pi 0.87 could not load: no string targetId, or a replacement that is neither null nor `{content}`."""
    why = None
    replacement = value.get("replacement")
    if not isinstance(value.get("targetId"), str):
        why = "has no string targetId"
    elif replacement is not None and not (type(replacement) is dict and "content" in replacement):
        why = "has a replacement that is neither null nor an object with content (pi fails to load it)"
    if why is not None:
        problems.append(
            Problem(
                file=file, line=record.line, message=f"context_edit {why}; ignored in the context", severity="warning"
            )
        )


def _note_blocks(count: int, record: Record, file: str, problems: list[Problem]) -> None:
    if count:
        problems.append(
            Problem(
                file=file,
                line=record.line,
                message=f"{count} content block(s) of unknown type (kept in the raw line, left out of the model)",
                severity="warning",
            )
        )


def other_entry(value: dict[str, Any], entry_id: str, parent_id: str | None, record: Record) -> Entry:
    timestamp = value.get("timestamp")
    kind = value.get("type")
    return Entry(
        id=entry_id,
        parentId=parent_id,
        type="other",
        timestamp=timestamp if isinstance(timestamp, str) else None,
        sourceType=kind if isinstance(kind, str) else None,
        data=rest(value),
        line=record.line,
        raw_line=record.text,
    )
