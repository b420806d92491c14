"""pi's old files: version 1 (no entry ids) read as the version 2 tree with deterministic ids, and v1 / v2 rewritten as v3.

pi migrates them with random ids; ours are stable, so compare with pi by position, never by id.
"""

from __future__ import annotations

import json
from typing import Any

from cutline.core.agents.entries import StableIds, build_entry
from cutline.core.agents.jsonl import Record
from cutline.core.agents.pi.shape import shape, stray_header
from cutline.core.models import Entry, Problem, Session


def read_v1(records: list[Record], session_id: str, file: str, problems: list[Problem]) -> list[Entry]:
    """Version 1 entries, migrated as pi's migrateV1ToV2 does but with deterministic ids.

    Every entry's parent is the one before it; `firstKeptEntryIndex` (an index into
    pi's array of parsed lines, header at 0) becomes the id of that entry.
    """
    ids = StableIds(session_id)
    index_ids: dict[int, str] = {}
    entries: list[Entry] = []
    previous: str | None = None
    for record in records:
        if record.value.get("type") == "session":
            entries.append(stray_header(record, ids, file, problems))
            continue
        entry_id = ids.make(record.line)
        index_ids[record.parsed_index] = entry_id
        shaped = shape(
            record.value, entry_id, previous, record, file=file, problems=problems, legacy_index_ids=index_ids
        )
        entries.append(build_entry(shaped, file, problems))
        previous = entry_id
    return entries


def _dumps(value: Any) -> str:
    """JSON as JavaScript's JSON.stringify writes it for the values pi stores (no spaces, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def migration_refusal(session: Session) -> str | None:
    """Why cutline will not rewrite this old file as pi does on load, or None when it can."""
    if not session.header_line:
        return "it has no session header (pi would not load it)"
    if any(e.sourceType == "session" for e in session.entries):
        return "it holds a second session header (pi's migration of such a file is not reproduced)"
    if any(not e.raw_line for e in session.entries):
        return "some of its entries have no source line"
    return None


def migrated_lines(session: Session) -> list[str]:
    """The file pi writes when it loads this v1 / v2 session: every record migrated to v3, one per line.

    pi re-serializes each parsed record (blank and malformed lines are dropped), gives a
    v1 file ids and parents (ours: the stable ids the store already uses), turns
    `firstKeptEntryIndex` into `firstKeptEntryId`, renames the `hookMessage` role to
    `custom` and sets the header's version to 3.
    """
    header = json.loads(session.header_line)
    header["version"] = 3
    lines = [_dumps(header)]
    legacy = session.version is None or session.version < 2
    for entry in session.entries:
        record: dict[str, Any] = json.loads(entry.raw_line)
        if legacy:
            record["id"] = entry.id
            record["parentId"] = entry.parentId
            if record.get("type") == "compaction" and "firstKeptEntryIndex" in record:
                kept = entry.compaction.firstKeptEntryId if entry.compaction is not None else None
                if isinstance(record["firstKeptEntryIndex"], int) and kept is not None:
                    record["firstKeptEntryId"] = kept
                del record["firstKeptEntryIndex"]
        message = record.get("message")
        if record.get("type") == "message" and isinstance(message, dict) and message.get("role") == "hookMessage":
            message["role"] = "custom"
        lines.append(_dumps(record))
    return lines
