"""pi / OpenClaw session JSONL (versions 1-3): read, migrate, export, and append a compaction.

Version 1 files have no ids; pi migrates them with random ids, we migrate them with
deterministic ones (compare with pi by position, never by id). The file is never
rewritten here: export reproduces the source bytes, and a write-back only appends.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cutline.core.agents.entries import StableIds, build_entry, iso_to_ms, now_iso, path_hash, shape_content
from cutline.core.agents.jsonl import INVALID, Lines, Record, not_an_object, parse_line, parse_records
from cutline.core.errors import WriteBackRefused
from cutline.core.models import (
    CompactionRecord,
    Entry,
    ImageBlock,
    Message,
    Problem,
    Session,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)

CURRENT_VERSION = 3
_BASE_KEYS = frozenset({"type", "id", "parentId", "timestamp"})
# entry types whose extra fields go to Entry.data unchanged
_DATA_TYPES = frozenset({"thinking_level_change", "model_change", "custom", "label", "session_info"})
# message roles pi keeps in message entries (branch and compaction summaries are entries of their own)
_PI_MESSAGE_ROLES = frozenset({"user", "assistant", "toolResult", "bashExecution", "custom"})
# receives each entry as it is read, with whether `entry_from_line` rebuilds it from its line alone
EntrySink = Callable[[Entry, bool], None]


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------


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
    session_id = header.get("id") if isinstance(header.get("id"), str) else path_hash(os.path.abspath(file))
    if version is not None and version < 2:
        legacy = _read_legacy(
            records if records is not None else parse_records(lines, file, start, index), session_id, file, problems
        )
        produced: Iterator[tuple[Entry, bool]] = ((entry, False) for entry in legacy)
    else:
        produced = _iter_entries(lines, start, records, session_id, file, problems)
    entries: list[Entry] = []
    leaf_id: str | None = None
    info: Entry | None = None  # the latest session_info entry
    for entry, from_line in produced:
        if sink is not None:
            sink(entry, from_line)
        if keep:
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


def _read_legacy(records: list[Record], session_id: str, file: str, problems: list[Problem]) -> list[Entry]:
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
            entries.append(_stray_header(record, ids, file, problems))
            continue
        entry_id = ids.make(record.line)
        index_ids[record.index] = entry_id
        shaped = _shape(record.value, entry_id, previous, record, file, problems, index_ids)
        entries.append(build_entry(shaped, file, problems))
        previous = entry_id
    return entries


_FAST_PREFIX = '{"type":"message"'
_validate_entry_json = Entry.__pydantic_validator__.validate_json
_SET_BY_READER = ("line", "raw_line", "sourceType")


def entry_from_line(text: str, number: int) -> Entry | None:
    """The entry a message line as pi writes it (`{"type":"message",...`) stands for, or None when it needs the general path.

    Why: pydantic-core parses and validates such a line in one step, the fast path for big
    files; the store rebuilds these entries from their stored line the same way.
    """
    if not text.startswith(_FAST_PREFIX):
        return None
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
    return entry


def _iter_entries(
    lines: Lines, start: int, records: list[Record] | None, session_id: str, file: str, problems: list[Problem]
) -> Iterator[tuple[Entry, bool]]:
    """Version 2/3 entries, keeping their ids, one at a time, each with whether `entry_from_line` made it.

    Message lines as pi writes them take the fast path (`entry_from_line`); anything it
    rejects (string content, unknown blocks, hookMessage, bad JSON) takes the general path.
    """
    seen: set[str] = set()
    ids = StableIds(session_id, seen)  # generated ids avoid every id seen so far
    if records is None:
        items: list[tuple[int, str, Any]] = [(number, text, None) for number, text in lines.lines[start:]]
    else:
        items = [(r.line, r.text, r.value) for r in records]
    for number, text, value in items:
        if value is None:
            entry = entry_from_line(text, number)
            if entry is not None:
                if entry.id in seen:
                    _duplicate(entry.id, number, file, problems)
                seen.add(entry.id)
                yield entry, True
                continue
        if value is None:
            value = parse_line(number, text, lines, file)
            if value is INVALID:
                continue
            if type(value) is not dict:
                not_an_object(number, value, lines, file)
                continue
        record = Record(number, text, value, 0)
        if value.get("type") == "session":
            yield _stray_header(record, ids, file, problems), False
            continue
        entry_id, parent_id = _ids_of(value, record, ids, seen, file, problems)
        shaped = _shape(value, entry_id, parent_id, record, file, problems, None)
        yield build_entry(shaped, file, problems), False


def _stray_header(record: Record, ids: StableIds, file: str, problems: list[Problem]) -> Entry:
    problems.append(
        Problem(
            file=file,
            line=record.line,
            message="another session header (kept as 'other'; pi ignores it)",
            severity="warning",
        )
    )
    return _other(record.value, ids.make(record.line), None, record)


def _ids_of(
    value: dict[str, Any], record: Record, ids: StableIds, seen: set[str], file: str, problems: list[Problem]
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


def _rest(value: dict[str, Any], *drop: str) -> dict[str, Any]:
    return {k: v for k, v in value.items() if k not in _BASE_KEYS and k not in drop}


def _shape(
    value: dict[str, Any],
    entry_id: str,
    parent_id: str | None,
    record: Record,
    file: str,
    problems: list[Problem],
    legacy_index_ids: dict[int, str] | None,
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
            shaped["data"] = _rest(value)
            return shaped
        if message.get("role") == "hookMessage":
            message["role"] = "custom"
        _note_blocks(shape_content(message), record, file, problems)
        shaped["message"] = message
    elif kind == "compaction":
        compaction = _rest(value)
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
        shaped["data"] = _rest(value, "summary")
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
        shaped["data"] = _rest(value, "content")
    elif kind in _DATA_TYPES:
        shaped["data"] = _rest(value)
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
        shaped["data"] = _rest(value)
    return shaped


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


def _other(value: dict[str, Any], entry_id: str, parent_id: str | None, record: Record) -> Entry:
    timestamp = value.get("timestamp")
    kind = value.get("type")
    return Entry(
        id=entry_id,
        parentId=parent_id,
        type="other",
        timestamp=timestamp if isinstance(timestamp, str) else None,
        sourceType=kind if isinstance(kind, str) else None,
        data=_rest(value),
        line=record.line,
        raw_line=record.text,
    )


def _session_name(entries: list[Entry]) -> str | None:
    """The name of the latest session_info entry (an empty name clears it, as in pi)."""
    for entry in reversed(entries):
        if entry.type == "session_info":
            name = entry.data.get("name")
            return name.strip() or None if isinstance(name, str) else None
    return None


# ---------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------


def _dumps(value: Any) -> str:
    """JSON the way JavaScript's JSON.stringify writes it (no spaces, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


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
        base.update(_compaction_fields(entry.compaction))
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


def _compaction_fields(record: CompactionRecord) -> dict[str, Any]:
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
    return block.model_dump(mode="json", exclude_none=True)


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
    if message.usage is not None:
        usage = message.usage.model_dump(mode="json")
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
            record.update(_compaction_fields(entry.compaction))
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


# ---------------------------------------------------------------------------
# Write-back
# ---------------------------------------------------------------------------


def append_compaction(
    path: str | Path,
    session: Session,
    record: CompactionRecord,
    *,
    backup_dir: str | Path,
    entry_id: str | None = None,
    timestamp: str | None = None,
) -> Entry:
    """Append one compaction entry to a pi session file, exactly as pi's `appendCompaction` writes it.

    Refuses (WriteBackRefused) unless the file is byte-for-byte what `session` was read
    from; backs the file up first; writes the whole line with one `os.write` in append
    mode and fsyncs. The old bytes are never rewritten. Returns the new entry (the
    session's new leaf); `session` itself is left unchanged.
    """
    path = Path(path)
    _check_writable_session(path, session, record)
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    except OSError as exc:
        raise WriteBackRefused(f"{path}: cannot open for appending ({exc.strerror or exc})") from None
    try:
        _lock(fd)
        data = _read_all(fd)
        _check_unchanged(path, session, data)
        if data and not data.endswith(b"\n"):
            raise WriteBackRefused(
                f"{path} does not end with a newline (its last line is incomplete); refusing to append"
            )
        taken = {e.id for e in session.entries}
        new_id = entry_id or _new_id(taken)
        if new_id in taken:
            raise WriteBackRefused(f"{path}: entry id {new_id} is already used in this session")
        _backup(path, data, Path(backup_dir))
        stamp = timestamp or now_iso()
        text = compaction_line(record, entry_id=new_id, parent_id=session.leaf_id, timestamp=stamp)
        payload = (text + session.newline).encode("utf-8")
        written = os.write(fd, payload)
        if written != len(payload):
            raise WriteBackRefused(
                f"{path}: only {written} of {len(payload)} bytes were appended; restore it from the backup in {backup_dir}"
            )
        os.fsync(fd)
    finally:
        os.close(fd)
    return Entry(
        id=new_id,
        parentId=session.leaf_id,
        type="compaction",
        timestamp=stamp,
        sourceType="compaction",
        compaction=record.model_copy(deep=True),
        line=data.count(b"\n") + 1,
        raw_line=text,
    )


def compaction_line(record: CompactionRecord, *, entry_id: str, parent_id: str | None, timestamp: str) -> str:
    """The exact JSON line (no newline) `append_compaction` writes for this compaction."""
    fields: dict[str, Any] = {"type": "compaction", "id": entry_id, "parentId": parent_id, "timestamp": timestamp}
    fields.update(_compaction_fields(record))
    return _dumps(fields)


def _check_writable_session(path: Path, session: Session, record: CompactionRecord) -> None:
    if session.format != "pi":
        raise WriteBackRefused(
            f"{path}: only pi / OpenClaw session files take a compaction (this one is {session.format})"
        )
    if not session.header_line:
        raise WriteBackRefused(f"{path} has no session header; pi would discard it, so cutline will not append to it")
    if session.version is None or session.version < 2:
        raise WriteBackRefused(
            f"{path} is a pi v1 session (no entry ids); open it in pi once so pi migrates it, then re-import it"
        )
    if session.source_size is None or session.source_sha256 is None:
        raise WriteBackRefused(f"{path}: the session carries no fingerprint of its file; re-import it and try again")
    if record.firstKeptEntryId is not None and record.firstKeptEntryId not in {e.id for e in session.active_path()}:
        raise WriteBackRefused(
            f"{path}: first kept entry {record.firstKeptEntryId} is not on the session's active path"
        )


def _read_all(fd: int) -> bytes:
    """Every byte of the open file, read from its start (appends ignore the read position)."""
    os.lseek(fd, 0, os.SEEK_SET)
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _check_unchanged(path: Path, session: Session, data: bytes) -> None:
    if len(data) != session.source_size:
        raise WriteBackRefused(
            f"{path} changed since it was read (size {session.source_size} -> {len(data)} bytes); re-import it and try again"
        )
    if hashlib.sha256(data).hexdigest() != session.source_sha256:
        raise WriteBackRefused(
            f"{path} changed since it was read (same size, different content); re-import it and try again"
        )


def _lock(fd: int) -> None:
    """An advisory exclusive lock for the duration of the append (pi itself does not lock)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        return
    fcntl.flock(fd, fcntl.LOCK_EX)


def _new_id(taken: set[str]) -> str:
    """A fresh 8-hex id, as pi's generateId makes them."""
    for _ in range(100):
        candidate = secrets.token_hex(4)
        if candidate not in taken:
            return candidate
    return secrets.token_hex(16)


def backup_name(path: Path, data: bytes) -> str:
    """The backup file name for `path` holding `data`: stem, a hash of the path and of the content."""
    where = hashlib.sha256(str(path.resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{path.stem}-{where}.{len(data)}.{hashlib.sha256(data).hexdigest()[:16]}.jsonl"


def _backup(path: Path, data: bytes, backup_dir: Path) -> Path | None:
    """Copy the file's bytes into backup_dir unless an earlier backup already holds a prefix of them.

    Writes only append, so a backup whose bytes start this file is still the original:
    later appends need no second copy.
    """
    backup_dir.mkdir(parents=True, exist_ok=True)
    name = backup_name(path, data)
    prefix = name[: name.index(".", len(path.stem) + 1)] + "."
    for existing in backup_dir.iterdir():
        if not existing.name.startswith(prefix) or not existing.name.endswith(".jsonl"):
            continue
        parts = existing.name[len(prefix) :].split(".")
        if len(parts) != 3 or not parts[0].isdigit():
            continue
        size = int(parts[0])
        if size <= len(data) and hashlib.sha256(data[:size]).hexdigest()[:16] == parts[1]:
            return None
    target = backup_dir / name
    temporary = backup_dir / (name + ".tmp")
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, target)
    return target
