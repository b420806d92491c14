"""Building neutral `Entry` objects from records that a reader has already shaped, cheaply and safely.

Readers turn each record into a plain dict in the model's shape and validate it once
(pydantic-core does the nested work in Rust, faster than `model_construct` here); a
record that still does not fit is kept as an entry of type "other" with a problem, so
nothing is ever dropped.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError, to_json

from cutline.core.agents import deep_json
from cutline.core.models import Entry, Problem

# block types the neutral model knows (pi's names)
KNOWN_BLOCKS = frozenset({"text", "thinking", "toolCall", "image", "toolResult"})


class StableIds:
    """Deterministic 8-hex ids from a seed and a key, never repeating one already taken."""

    def __init__(self, seed: str, taken: set[str] | None = None) -> None:
        self.seed = seed
        self.taken: set[str] = taken if taken is not None else set()

    def make(self, key: object) -> str:
        base = f"{self.seed}:{key}"
        candidate = hashlib.sha256(base.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        n = 0
        while candidate in self.taken:
            n += 1
            candidate = hashlib.sha256(f"{base}:{n}".encode("utf-8", "surrogatepass")).hexdigest()[:8]
        self.taken.add(candidate)
        return candidate


def string_or(value: Any, default: str = "") -> str:
    """`value` when it is a string, else `default` (records are untrusted JSON)."""
    return value if isinstance(value, str) else default


def path_hash(path: str) -> str:
    """A stable id for a file that carries no session id of its own."""
    return hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def iso_to_ms(value: Any) -> int | None:
    """Milliseconds since the epoch for an ISO-8601 timestamp (naive means UTC), None if unparsable."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return round(moment.timestamp() * 1000)


def now_iso() -> str:
    """The current UTC time the way JavaScript's `Date.toISOString` writes it."""
    moment = datetime.now(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def split_blocks(blocks: list[Any]) -> tuple[list[Any], list[Any]]:
    """Blocks the model knows, and the others (kept aside in the message's `otherBlocks`)."""
    known: list[Any] = []
    other: list[Any] = []
    for block in blocks:
        if type(block) is dict and block.get("type") in KNOWN_BLOCKS:
            known.append(block)
        else:
            other.append(block)
    return known, other


def shape_content(message: dict[str, Any]) -> int:
    """Normalize `message["content"]` in place: a string becomes one text block.

    Returns how many blocks of unknown type were moved to `otherBlocks`.
    """
    content = message.get("content")
    if isinstance(content, str):
        message["content"] = [{"type": "text", "text": content}]
        message["contentWasString"] = True
        return 0
    if content is None:
        message.pop("content", None)
        return 0
    if not isinstance(content, list):
        message["otherBlocks"] = [content]
        del message["content"]
        return 1
    known, other = split_blocks(content)
    if other:
        message["content"] = known
        message["otherBlocks"] = other
    return len(other)


def build_entry(shaped: dict[str, Any], file: str, problems: list[Problem]) -> Entry:
    """Validate one shaped entry; if it does not fit the model, keep it as type "other" and report why."""
    try:
        return Entry.model_validate(shaped)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        kind = shaped.get("sourceType") or shaped.get("type")
        problems.append(
            Problem(
                file=file,
                line=shaped.get("line"),
                message=f"{kind} record does not fit the session model ({where}: {first.get('msg')}); kept as 'other'",
                severity="warning",
            )
        )
        timestamp = shaped.get("timestamp")
        return Entry(
            id=str(shaped.get("id")),
            parentId=shaped.get("parentId") if isinstance(shaped.get("parentId"), str) else None,
            type="other",
            timestamp=timestamp if isinstance(timestamp, str) else None,
            sourceType=shaped.get("sourceType"),
            line=shaped.get("line") or 0,
            raw_line=shaped.get("raw_line") or "",
        )


class OtherEntry:
    """A record kept as "other" (the agent's bookkeeping), for an import that writes rows: no pydantic entry is built.

    Why: a Claude Code or Codex import validated each such record into an `Entry` only to
    serialize it again (36,110 of Codex 50k's records, 29,410 of Claude Code's). An "other"
    entry's model is its shaped fields and the record's `data`, which validation keeps as they
    are; `stored` is that model serialized as `model_json` writes it: every field in the
    model's order, defaults included, by pydantic-core's own JSON writer (the same bytes:
    `other_entry`). The store rebuilds the `Entry` from those bytes when it is read.
    """

    __slots__ = (
        "data",
        "id",
        "isMeta",
        "isSidechain",
        "line",
        "parentId",
        "raw_line",
        "sourceType",
        "stored",
        "timestamp",
    )
    type = "other"
    message = None
    compaction = None
    isCompactSummary = False

    def __init__(
        self,
        shaped: dict[str, Any],
        stored: bytes,
    ) -> None:
        self.id: str = shaped["id"]
        self.parentId: str | None = shaped["parentId"]
        self.timestamp: str | None = shaped["timestamp"]
        self.sourceType: str | None = shaped["sourceType"]
        self.data: dict[str, Any] = shaped["data"]
        self.isSidechain: bool = shaped.get("isSidechain", False)
        self.isMeta: bool = shaped.get("isMeta", False)
        self.line: int = shaped["line"]
        self.raw_line: str = shaped["raw_line"]
        self.stored = stored


# the shaped keys an "other" entry may have (`other_entry`)
_OTHER_KEYS = frozenset(
    {"id", "parentId", "type", "timestamp", "sourceType", "isSidechain", "isMeta", "line", "raw_line", "data"}
)


def other_entry(shaped: dict[str, Any]) -> OtherEntry | None:
    """`build_entry` of a shaped "other" record as an `OtherEntry`, or None where only the model may stand for it.

    Only a record of plain fields is taken: the keys of `_OTHER_KEYS`, each of the exact
    type its field has (validation keeps such values as they are), `data` a dict of str
    keys. Its model is written as the `Entry`'s serializer writes one (fields in order,
    defaults, `data`'s values as pydantic-core's `Any` writes them, inf and NaN as null as
    the model's config says); what pydantic-core refuses to write (nesting past its limit) is None.
    """
    if not _OTHER_KEYS.issuperset(shaped):
        return None
    entry_id, parent, timestamp, source = shaped["id"], shaped["parentId"], shaped["timestamp"], shaped["sourceType"]
    sidechain, meta = shaped.get("isSidechain", False), shaped.get("isMeta", False)
    data, line = shaped["data"], shaped["line"]
    if (
        shaped["type"] != "other"
        or type(entry_id) is not str
        or (parent is not None and type(parent) is not str)
        or (timestamp is not None and type(timestamp) is not str)
        or (source is not None and type(source) is not str)
        or type(sidechain) is not bool
        or type(meta) is not bool
        or type(line) is not int
        or type(shaped["raw_line"]) is not str
        or type(data) is not dict
        or not all(type(key) is str for key in data)
    ):
        return None
    model = {
        "id": entry_id,
        "parentId": parent,
        "type": "other",
        "timestamp": timestamp,
        "sourceType": source,
        "message": None,
        "compaction": None,
        "data": data,
        "isSidechain": sidechain,
        "isMeta": meta,
        "isCompactSummary": False,
        "line": line,
    }
    try:
        stored = to_json(model, inf_nan_mode="null")
    except (PydanticSerializationError, ValueError, RecursionError):
        return None
    return OtherEntry(shaped, stored)


_ENTRY_SERIALIZER = Entry.__pydantic_serializer__
_ENTRY_VALIDATOR = Entry.__pydantic_validator__


def entry_json(entry: Entry, exclude: set[str]) -> str:
    """An entry as JSON; one nested deeper than pydantic's serializer goes (about 200 levels) takes the slower json path.

    Why: any value an agent wrote, however deep, must survive the store as json reads it.
    """
    try:
        return _ENTRY_SERIALIZER.to_json(entry, exclude=exclude, warnings=False).decode()
    except PydanticSerializationError:
        value = _ENTRY_SERIALIZER.to_python(entry, exclude=exclude, warnings=False)
        return deep_json.dumps(value)


def entry_json_utf8(entry: Entry, exclude: set[str]) -> bytes | str:
    """`entry_json`, as the UTF-8 bytes pydantic writes (the str only where the deep json path takes over).

    Why: a row's model went bytes -> str -> UTF-8 again on its way into SQLite (~0.2 s of a
    50,000-record Claude Code import, whose models hold 74 MB of non-ASCII text); the store
    binds these bytes as the same TEXT (`core.store.streamed.INSERT`).
    """
    try:
        return _ENTRY_SERIALIZER.to_json(entry, exclude=exclude, warnings=False)
    except PydanticSerializationError:
        value = _ENTRY_SERIALIZER.to_python(entry, exclude=exclude, warnings=False)
        return deep_json.dumps(value)


def entry_from_json(text: str) -> Entry:
    """The entry `entry_json` wrote; nesting deeper than pydantic's JSON parser goes is parsed by json first."""
    try:
        entry: Entry = _ENTRY_VALIDATOR.validate_json(text)
    except ValidationError as exc:
        if not any(error["type"] == "json_invalid" for error in exc.errors()):
            raise
        entry = _ENTRY_VALIDATOR.validate_python(deep_json.loads(text))
    return entry
