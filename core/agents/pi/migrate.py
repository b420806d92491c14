"""pi's version 1 files (no entry ids) migrated to the version 2 tree, with deterministic ids.

pi migrates them with random ids; ours are stable, so compare with pi by position, never by id.
"""

from __future__ import annotations

from cutline.core.agents.entries import StableIds, build_entry
from cutline.core.agents.jsonl import Record
from cutline.core.agents.pi.shape import shape, stray_header
from cutline.core.models import Entry, Problem


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
