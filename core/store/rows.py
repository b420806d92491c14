"""How an entry is kept in the entries table, and rebuilt from it.

An entry is stored under a key (its id, unless the file repeats it), with its place on
the active path, its raw line, and its model serialized without the raw line — or
with no model at all when the pi reader's fast path can rebuild it from the line.
"""

from __future__ import annotations

from collections.abc import Sequence

from cutline.core.agents.adapter import EntrySink
from cutline.core.agents.entries import OtherEntry, entry_from_json, entry_json, entry_json_utf8
from cutline.core.agents.index_facts import entry_facts
from cutline.core.agents.light import LightEntry, light_model_entry
from cutline.core.errors import CutlineError
from cutline.core.models import Entry

_NOT_IN_MODEL_JSON = {"raw_line"}

# What the importer keeps of an entry while it reads (see `entry_row`):
# id, parent id, type, role, timestamp, line, raw line, the model (an Entry, its JSON as str or UTF-8 bytes, or ''),
# its index facts.
EntryRow = tuple[str, str | None, str, str | None, str | None, int, str, "Entry | str | bytes", str]


def entry_keys(entries: Sequence[Entry]) -> list[str]:
    """The key each entry is stored under: its id, except that a repeated id's earlier records get `id~seq`.

    Why: a file may repeat an id (pi lets the later record win); every record must still be
    stored for a byte-identical export, and the winner keeps the plain id that paths and
    token counts refer to.
    """
    return keys_of([entry.id for entry in entries])


def keys_of(ids: list[str]) -> list[str]:
    """`entry_keys` of the entries with these ids, in order."""
    last = {entry_id: seq for seq, entry_id in enumerate(ids)}
    if len(last) == len(ids):
        return ids
    keys = [entry_id if last[entry_id] == seq else f"{entry_id}~{seq}" for seq, entry_id in enumerate(ids)]
    if len(set(keys)) != len(keys):
        raise CutlineError("entry ids collide with the keys given to repeated ids")
    return keys


def path_index_of(ids: list[str], parent_ids: list[str | None], leaf_id: str | None) -> dict[str, int]:
    """Position on the active path of each entry id on it, as `Session.active_path` walks it (a repeated id's later record wins)."""
    if not ids:
        return {}
    parent_of = dict(zip(ids, parent_ids, strict=True))
    node: str | None = leaf_id if leaf_id and leaf_id in parent_of else ids[-1]
    path: list[str] = []
    seen: set[str] = set()
    while node is not None and node not in seen:
        seen.add(node)
        path.append(node)
        parent = parent_of[node]
        node = parent if parent and parent in parent_of else None
    path.reverse()
    return {entry_id: i for i, entry_id in enumerate(path)}


def model_json(entry: Entry) -> str:
    """An entry serialized for the store, without its raw line (stored once, in its own column)."""
    return entry_json(entry, _NOT_IN_MODEL_JSON)


def stored_model(entry: Entry) -> bytes | str:
    """`model_json` as the entries table's INSERT takes it: pydantic's UTF-8 bytes, stored as the same TEXT."""
    return entry_json_utf8(entry, _NOT_IN_MODEL_JSON)


def row_model(entry: Entry | LightEntry | OtherEntry, from_line: bool) -> str | bytes:
    """The model column of an entry handed to a sink: '' when its line rebuilds it (a light entry always), else its serialized model."""
    if type(entry) is OtherEntry:
        return entry.stored
    if from_line or not isinstance(entry, Entry):
        return ""
    return stored_model(entry)


def entry_row(entry: Entry | LightEntry | OtherEntry, payload: Entry | str | bytes) -> EntryRow:
    """What the store keeps of an entry: id, parent, type, role, timestamp, line, raw line, its model and index facts.

    The model (`payload`) is the entry itself, serialized when inserted, or its serialized
    form, or '' when the reader's fast path rebuilds it from the raw line alone. The index
    facts (core.agents.index_facts) let a view plan the path without rebuilding entries.
    """
    message = entry.message
    return (
        entry.id,
        entry.parentId,
        entry.type,
        message.role if message is not None else None,
        entry.timestamp,
        entry.line,
        entry.raw_line,
        payload,
        entry_facts(entry),
    )


def row_sink(rows: list[EntryRow]) -> EntrySink:
    """A reader sink that keeps each entry as a store row (see `entry_row`), serialized right away."""
    append = rows.append

    def sink(entry: Entry | LightEntry | OtherEntry, from_line: bool) -> None:
        append(entry_row(entry, row_model(entry, from_line)))

    return sink


def entry_from_row(serialized: str, raw: str, line: int | None) -> Entry:
    """An entry rebuilt from its stored columns: its serialized model, or its raw line when stored without one."""
    if not serialized:
        # stored without its model: the reader's own fast path rebuilds it from the line (pi's reader, imported
        # here: a Claude Code or Codex command, whose rows keep their models, does not import pi's package)
        from cutline.core.agents.pi.reader import entry_from_line

        rebuilt = entry_from_line(raw, line or 0)
        if rebuilt is None:
            raise CutlineError(f"stored entry at line {line} cannot be rebuilt from its line (re-import the file)")
        return rebuilt
    entry = entry_from_json(serialized)
    # raw_line lives in its own column (stored once); set it the way validation would have
    entry.__dict__["raw_line"] = raw
    entry.__pydantic_fields_set__.add("raw_line")
    return entry


def light_or_entry_from_row(serialized: str, raw: str, line: int | None) -> Entry | LightEntry:
    """`entry_from_row`, but a light entry (core.agents.light) where the row is a pi message line msgspec reads.

    Why: a summary reads every message of the span once, for its text; building each one
    as a validated pydantic entry was about a third of an uncompacted 100k `compact`. A
    light entry holds the same values (`light_entry` answers None for any line it does not
    mirror, which is then rebuilt as before), without the fields the light structs leave out.
    """
    if not serialized:
        from cutline.core.agents.pi.reader import message_line_entry

        found = message_line_entry(raw, line or 0, light=True)
        if found is not None:
            return found
    return entry_from_row(serialized, raw, line)


def light_or_entry_from_model_row(serialized: str, raw: str, line: int | None) -> Entry | LightEntry:
    """`entry_from_row` of a Claude Code or Codex row, but a light entry where its stored model is a message msgspec reads.

    As `light_or_entry_from_row` for pi lines: the summary's walk reads each message once,
    and a model row's message read light (`light_model_entry`) holds the same values.
    """
    if serialized:
        found = light_model_entry(serialized)
        if found is not None:
            return found
    return entry_from_row(serialized, raw, line)
