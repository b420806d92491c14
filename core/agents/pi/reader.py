"""pi session JSONL (versions 1-3) read into the neutral model, problems collected, never raised.

The file is never rewritten here: entries keep their exact source line, so export
reproduces the source bytes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import ValidationError

from cutline.core.agents.adapter import EntrySink
from cutline.core.agents.entries import StableIds, build_entry, path_hash
from cutline.core.agents.jsonl import INVALID, Lines, Record, not_an_object, parse_line, parse_records
from cutline.core.agents.light import LightEntry, light_entry
from cutline.core.agents.pi.migrate import read_v1
from cutline.core.agents.pi.shape import shape, stray_header
from cutline.core.models import Entry, Problem, Session


def read_pi(lines: Lines, file: str, stem: str, sink: EntrySink | None = None, keep: bool = True) -> Session:
    """A Session from the lines of a pi / OpenClaw JSONL file (problems collected, never raised).

    Each entry is handed to `sink` (with whether `entry_from_line` rebuilds it) as soon as it
    is read; with `keep=False` the session's entry list stays empty, so a caller that
    streams the entries elsewhere never holds them all.
    """
    problems = lines.problems
    first = _first_value(lines, file)
    header: dict[str, Any] = {}
    header_line = ""
    # where entries start in lines.lines, and their index in pi's array of parsed lines
    start, index = 0, 0
    if first is not None:
        position, value = first
        start, index = position + 1, 1
        if type(value) is dict and value.get("type") == "session":
            header = value
            header_line = lines.lines[position][1]
            if not isinstance(header.get("id"), str):
                problems.append(
                    Problem(
                        file=file,
                        line=lines.lines[position][0],
                        message="session header has no string id (pi would not load this file); imported anyway",
                        severity="warning",
                    )
                )
        elif type(value) is dict:
            start, index = position, 0  # an entry: read it with the others
    records: list[Record] | None = None
    version: int | None
    if header:
        raw_version = header.get("version")
        version = raw_version if isinstance(raw_version, int) and not isinstance(raw_version, bool) else 1
    else:
        problems.append(
            Problem(
                file=file,
                line=None,
                message="no session header on the first line (pi would not load this file); imported anyway",
                severity="warning",
            )
        )
        records = parse_records(lines, file, start, index)
        version = 1 if records and not any("id" in r.value for r in records) else None
    raw_id = header.get("id")
    session_id = raw_id if isinstance(raw_id, str) else path_hash(os.path.abspath(file))
    if version is not None and version < 2:
        legacy = read_v1(
            records if records is not None else parse_records(lines, file, start, index), session_id, file, problems
        )
        produced: Iterator[tuple[Entry | LightEntry, bool]] = ((entry, False) for entry in legacy)
    else:
        produced = _iter_entries(lines, start, records, session_id, file=file, problems=problems, release=not keep)
    entries: list[Entry] = []
    leaf_id: str | None = None
    info: Entry | None = None  # the latest session_info entry
    for entry, from_line in produced:
        if sink is not None:
            sink(entry, from_line)
        if keep and isinstance(entry, Entry):  # light entries are made only when none is kept
            entries.append(entry)
        if entry.sourceType != "session":
            leaf_id = entry.id
        if entry.type == "session_info":
            info = entry
    return Session.model_construct(
        id=session_id,
        format="pi",
        version=version,
        source_path=None,
        name=_session_name([info] if info is not None else []) or stem,
        cwd=header.get("cwd") if isinstance(header.get("cwd"), str) else None,
        header=header,
        header_line=header_line,
        entries=entries,
        leaf_id=leaf_id,
        problems=problems,
        newline=lines.newline,
        trailing_newline=lines.trailing_newline,
        source_size=None,
        source_sha256=None,
    )


def _first_value(lines: Lines, file: str) -> tuple[int, Any] | None:
    """The position in `lines.lines` and value of the first line that is valid JSON."""
    for position, (number, text) in enumerate(lines.lines):
        value = parse_line(number, text, lines, file)
        if value is not INVALID:
            if type(value) is not dict:
                not_an_object(number, value, lines, file)
            return position, value
    return None


# `{"type":"message"` as pi writes it, or with spaces as `json.dumps` and other tools write it
_FAST_PREFIX = re.compile(r'\{\s*"type"\s*:\s*"message"').match
# the two spellings of it nearly every line has (pi's, `json.dumps`'s), which `_FAST_PREFIX` matches
_USUAL_PREFIXES = ('{"type":"message"', '{"type": "message"')


def _message_line(text: str) -> bool:
    """Whether the line starts as a message line (`_FAST_PREFIX`).

    Why: `str.startswith` tells the usual spellings ~6x faster than the pattern (~30 ms per 100,000 lines).
    """
    return text.startswith(_USUAL_PREFIXES) or _FAST_PREFIX(text) is not None


_validate_entry_json = Entry.__pydantic_validator__.validate_json
_SET_BY_READER = ("line", "raw_line", "sourceType")


def entry_from_line(text: str, number: int) -> Entry | None:
    """The entry a message line (`{"type":"message",...`, spaced or not) stands for, or None when it needs the general path.

    Why: pydantic-core parses and validates such a line in one step, the fast path for big
    files; the store rebuilds these entries from their stored line the same way. Spacing
    changes nothing pydantic-core reads, so a re-serialized file takes it too.
    """
    if not _message_line(text):
        return None
    return _validated(text, number)


def message_line_entry(text: str, number: int, light: bool) -> Entry | LightEntry | None:
    """What the reader makes of a line on its fast path: with `light`, a light entry where msgspec can read it, else `entry_from_line`."""
    if not _message_line(text):
        return None
    return (light_entry(text, number) if light else None) or _validated(text, number)


def _validated(text: str, number: int) -> Entry | None:
    """`entry_from_line` of a line that starts as a message line."""
    try:
        entry = _validate_entry_json(text)
    except ValidationError:
        return None
    if not entry.id or entry.message is None:
        return None
    # what assigning the three fields does, without pydantic's per-assignment dispatch (100k entries)
    fields = entry.__dict__
    fields["line"] = number
    fields["raw_line"] = text
    fields["sourceType"] = "message"
    entry.__pydantic_fields_set__.update(_SET_BY_READER)
    built: Entry = entry
    return built


_TAKEN = (0, "")  # what a released line leaves in `Lines.lines`


def _taken_lines(lines: Lines, start: int, release: bool) -> Iterator[tuple[int, str, Any]]:
    """The lines from `start` on, each let go of by `lines` once handed out when `release` is set.

    Why: a line's text is held by the list until the reader ends, and whatever reads it
    as UTF-8 (pydantic-core's validation, SQLite's binding) caches a UTF-8 copy on the
    string itself: a streamed import of a 100,000-entry file kept ~90 MB of such copies.
    """
    source = lines.lines
    for position in range(start, len(source)):
        number, text = source[position]
        if release:
            source[position] = _TAKEN
        yield number, text, None


def _iter_entries(
    lines: Lines,
    start: int,
    records: list[Record] | None,
    session_id: str,
    *,
    file: str,
    problems: list[Problem],
    release: bool = False,
) -> Iterator[tuple[Entry | LightEntry, bool]]:
    """Version 2/3 entries, keeping their ids, one at a time, each with whether `entry_from_line` rebuilds it.

    Message lines as pi writes them take the fast path (`entry_from_line`); anything it
    rejects (string content, unknown blocks, hookMessage, bad JSON) takes the general path.
    With `release` (the entries are not kept), each line is let go of by `lines` as it is
    read (see `_taken_lines`), and a message line msgspec can read is handed over as a
    `LightEntry` (core.agents.light), which `entry_from_line` rebuilds when it is needed.
    """
    seen: set[str] = set()
    ids = StableIds(session_id, seen)  # generated ids avoid every id seen so far
    items: Iterable[tuple[int, str, Any]]
    if records is None:
        items = _taken_lines(lines, start, release)
    else:
        items = [(r.line, r.text, r.value) for r in records]
    for number, text, parsed in items:
        value = parsed
        if value is None:
            entry = message_line_entry(text, number, release)
            if entry is not None:
                if entry.id in seen:
                    _duplicate(entry.id, number, file, problems)
                seen.add(entry.id)
                yield entry, True
                continue
            value = parse_line(number, text, lines, file)
            if value is INVALID:
                continue
            if type(value) is not dict:
                not_an_object(number, value, lines, file)
                continue
        record = Record(number, text, value, 0)
        if value.get("type") == "session":
            yield stray_header(record, ids, file, problems), False
            continue
        entry_id, parent_id = _ids_of(value, record, ids, seen, file=file, problems=problems)
        shaped = shape(value, entry_id, parent_id, record, file=file, problems=problems)
        yield build_entry(shaped, file, problems), False


def _ids_of(
    value: dict[str, Any], record: Record, ids: StableIds, seen: set[str], *, file: str, problems: list[Problem]
) -> tuple[str, str | None]:
    entry_id = value.get("id")
    if not isinstance(entry_id, str) or not entry_id:
        entry_id = ids.make(record.line)
        problems.append(
            Problem(file=file, line=record.line, message=f"entry has no id (gave it {entry_id})", severity="warning")
        )
    elif entry_id in seen:
        _duplicate(entry_id, record.line, file, problems)
    seen.add(entry_id)
    parent_id = value.get("parentId")
    if parent_id is not None and not isinstance(parent_id, str):
        problems.append(
            Problem(
                file=file, line=record.line, message="parentId is not a string (treated as a root)", severity="warning"
            )
        )
        parent_id = None
    return entry_id, parent_id


def _duplicate(entry_id: str, line: int, file: str, problems: list[Problem]) -> None:
    problems.append(
        Problem(
            file=file,
            line=line,
            message=f"duplicate entry id {entry_id} (the later entry wins, as in pi)",
            severity="warning",
        )
    )


def _session_name(entries: list[Entry]) -> str | None:
    """The name of the latest session_info entry (an empty name clears it, as in pi)."""
    for entry in reversed(entries):
        if entry.type == "session_info":
            name = entry.data.get("name")
            return name.strip() or None if isinstance(name, str) else None
    return None
