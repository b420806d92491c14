"""A light entry (msgspec) stands only for a line pydantic's fast path reads, and gives the same row, facts and chars4 count.

Every line of every session file under tests/, sample_sessions and the golden sessions,
and random variants of message lines (fields of other types, unknown and deeply nested
fields, repeated keys, roles and blocks the light structs do not mirror), are read both
ways. A light entry pydantic would refuse would be stored with no model and fail to load.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from cutline.core.agents.light import (
    LightEntry,
    LightImage,
    LightMessage,
    LightText,
    LightThinking,
    LightToolCall,
    LightToolResult,
    LightUsage,
)
from cutline.core.agents.pi.reader import message_line_entry
from cutline.core.models import (
    Entry,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    Usage,
)
from cutline.core.store.rows import entry_row
from cutline.core.tokens import chars4_tokens, entry_tokens, get_counter
from tests.support.paths import ROOT

FILES = sorted(
    p
    for p in [
        *(ROOT / "tests").rglob("*.jsonl"),
        *(ROOT / "sample_sessions").glob("*.jsonl"),
    ]
    if "requests" not in p.parts
)
CHARS4 = get_counter("chars4")


def _lines() -> list[str]:
    lines: list[str] = []
    for path in FILES:
        lines.extend(line for line in path.read_text(encoding="utf-8", errors="replace").splitlines() if line)
    return lines


def _same_reading(text: str) -> bool:
    """Whether `text` reads as a light entry; if it does, that pydantic reads it too, to the same row and count."""
    light = message_line_entry(text, 7, light=True)
    if not isinstance(light, LightEntry):
        return False
    full = message_line_entry(text, 7, light=False)
    assert isinstance(full, Entry), f"a light entry pydantic refuses: {text[:300]}"
    assert entry_row(light, "") == entry_row(full, ""), text[:300]
    assert light.message is not None
    assert chars4_tokens(light.message) == entry_tokens(full, CHARS4), text[:300]
    return True


def test_every_message_line_of_every_fixture_reads_the_same_both_ways() -> None:
    lines = _lines()
    light = sum(_same_reading(line) for line in lines if line.lstrip().startswith("{"))
    assert light > 500  # most pi message lines are read light


def _message_lines() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for line in _lines():
        if isinstance(message_line_entry(line, 1, light=True), LightEntry):
            found.append(json.loads(line))
    return found


# values of other types, put in place of a field's value
ODD_VALUES: list[Any] = [
    None,
    True,
    "true",
    0,
    1,
    1.0,
    1.5,
    -0.0,
    "5",
    2**70,
    1e16,
    [],
    {},
    [1, 2],
    {"a": 1},
    "",
    "x\u2028y",
    "😀",
]


def _deep(depth: int) -> Any:
    value: Any = "bottom"
    for level in range(depth):
        value = {"k": value} if level % 2 else [value]
    return value


def _mutate(record: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One random change to a message line: a field of another type, an extra or deep field, a new role or block."""
    record = json.loads(json.dumps(record))
    message = record["message"]
    blocks = message.get("content") or []
    choice = rng.randrange(12)
    if choice == 0:
        record[rng.choice(["id", "parentId", "timestamp", "sourceType", "isSidechain", "isMeta", "line", "data"])] = (
            rng.choice(ODD_VALUES)
        )
    elif choice == 1:
        field = rng.choice(["role", "model", "stopReason", "toolCallId", "isError", "exitCode", "display", "summary"])
        message[field] = rng.choice([*ODD_VALUES, "system", "assistant", "user", "toolResult", "bashExecution"])
    elif choice == 2:
        usage = message.setdefault("usage", {})
        usage[rng.choice(["input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"])] = rng.choice(
            ODD_VALUES
        )
    elif choice == 3 and blocks:
        block = rng.choice(blocks)
        block[rng.choice(["text", "thinking", "name", "id", "arguments", "type", "data"])] = rng.choice(
            [*ODD_VALUES, "text", "toolResult", "image", "nope"]
        )
    elif choice == 4:
        record[rng.choice(["extra", "compaction", "isCompactSummary"])] = rng.choice(
            [_deep(rng.choice([5, 150, 260])), {"summary": "s", "firstKeptEntryId": "x"}, True]
        )
    elif choice == 5:
        message["content"] = rng.choice(["a string", None, [{"type": "toolResult", "toolCallId": "t", "content": []}]])
    elif choice == 6 and blocks:
        rng.choice(blocks)["arguments"] = rng.choice(
            [_deep(rng.choice([10, 120, 190, 300])), {"0": 1, "a": 1.0}, {"n": 2**60}, {"f": 1e21}]
        )
    elif choice == 7:
        message["role"] = "system"
        message["sections"] = {"a": "b"}
    elif choice == 8:
        record["id"] = ""
    elif choice == 9:
        del record["message"]
    elif choice == 10:
        message["content"] = [*blocks, {"type": "image", "data": "x", "mimeType": "image/png", "extra": [1]}]
    else:
        message[rng.choice(["timestamp", "errorMessage", "provider", "command", "output", "customType"])] = rng.choice(
            ODD_VALUES
        )
    return record


def test_random_variants_of_message_lines_are_never_read_light_where_pydantic_differs() -> None:
    rng = random.Random(12)
    records = _message_lines()
    assert records
    light = 0
    for _ in range(4000):
        record = _mutate(rng.choice(records), rng)
        compact = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
        spaced = json.dumps(record)
        for text in (compact, spaced):
            light += _same_reading(text)
    assert 0 < light < 8000  # some variants are read light, many are left to pydantic


@pytest.mark.parametrize(
    "text",
    [
        # repeated keys: the later one wins for both
        '{"type":"message","id":"a","id":"b","message":{"role":"user","content":[{"type":"text","text":"x","text":"yy"}]}}',
        # an unknown field nested past pydantic-core's limit: pydantic refuses the line, so it is not read light
        '{"type":"message","id":"a","extra":' + "[" * 210 + "]" * 210 + ',"message":{"role":"user","content":[]}}',
        '{"type":"message","id":"a","message":{"role":"system","content":[],"sections":{"a":"b"}}}',
        '{"type":"message","id":"a","message":{"role":"assistant","usage":{"input":1.0},"content":[]}}',
        '{"type":"message","id":"a","compaction":{"summary":"s"},"message":{"role":"user","content":[]}}',
        '{"type":"message","id":"a","message":{"role":"toolResult","toolCallId":"t","content":[{"type":"text","text":"ok"}]}}',
    ],
)
def test_edge_lines(text: str) -> None:
    _same_reading(text)


def test_the_light_structs_mirror_the_models_fields() -> None:
    """Every field a model validates is a light field with the same default (a new model field must be mirrored)."""
    pairs: list[tuple[type[Any], type[msgspec.Struct]]] = [
        (Entry, LightEntry),
        (Message, LightMessage),
        (Usage, LightUsage),
        (TextBlock, LightText),
        (ThinkingBlock, LightThinking),
        (ToolCallBlock, LightToolCall),
        (ImageBlock, LightImage),
        (ToolResultBlock, LightToolResult),
    ]
    for model, light in pairs:
        fields = {name for name in model.model_fields if name != "type" or model is Entry}
        assert fields == set(light.__struct_fields__), model.__name__
        for name in fields - {"compaction", "type", "id", "role"}:
            default = model.model_fields[name].get_default(call_default_factory=True)
            position = light.__struct_fields__.index(name)
            defaults = light.__struct_defaults__
            mirrored = defaults[position - (len(light.__struct_fields__) - len(defaults))]
            mirrored = mirrored.factory() if isinstance(mirrored, msgspec._core.Factory) else mirrored
            assert mirrored == default, (model.__name__, name)


def test_a_light_entry_is_what_the_reader_hands_an_import_and_never_a_reader_that_keeps_entries(
    tmp_path: Path,
) -> None:
    from cutline.core.agents import read_session

    source = ROOT / "sample_sessions" / "pi-coding-session.jsonl"
    handed: list[Any] = []
    read_session(source, sink=lambda entry, from_line: handed.append(entry), keep=False)
    assert any(isinstance(entry, LightEntry) for entry in handed)
    kept: list[Any] = []
    session = read_session(source, sink=lambda entry, from_line: kept.append(entry))
    assert all(isinstance(entry, Entry) for entry in kept) and len(session.entries) == len(handed)
