"""pi / OpenClaw JSONL reading (v1-v3), byte-identical export and bad-line reporting.

Expected tree shapes were recorded by hand from pi 0.73.1's own reader
(`parseSessionEntries` + `migrateSessionEntries` + `buildSessionContext`, run with node
on the same fixture files): positions, not ids, because pi migrates v1 with random ids.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from cutline.core.agents import export_pi, read_session
from cutline.core.models import (
    ImageBlock,
    Session,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from tests.support.paths import TESTS

FIXTURES = TESTS / "fixtures" / "formats"


def positions(session: Session) -> tuple[list[int | None], list[int]]:
    """Each entry's parent as a position in session.entries, and the active path as positions."""
    index = {e.id: i for i, e in enumerate(session.entries)}
    parents = [index.get(e.parentId) if e.parentId else None for e in session.entries]
    path = [index[e.id] for e in session.active_path()]
    return parents, path


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


HEADER = '{"type":"session","version":3,"id":"s-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}'
USER = '{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}}'
ASSISTANT = '{"type":"message","id":"e2","parentId":"e1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"provider":"anthropic","model":"m","usage":{"input":5,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":7},"stopReason":"stop","timestamp":2}}'


# ---------------------------------------------------------------------------
# v3: every entry type, the tree, the active path
# ---------------------------------------------------------------------------


def test_v3_tree_matches_pi_reader() -> None:
    path = FIXTURES / "pi-v3-tree.jsonl"
    session = read_session(path)
    assert session.problems == []
    assert (session.format, session.version) == ("pi", 3)
    assert session.id == "0192f3a0-7c1e-7000-8000-00000000abcd"
    assert session.cwd == "/home/dev/shop"
    assert session.name == "checkout fix"  # session_info name, trimmed as pi does
    assert session.header["timestamp"] == "2026-01-05T10:00:00.000Z"
    parents, active = positions(session)
    # recorded from pi's reader: parent positions and the leaf->root path
    assert parents == [None, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 4, 11, 12]
    assert active == [0, 1, 2, 3, 4, 11, 12, 13]
    assert session.leaf_id == "a000000e"
    assert [e.type for e in session.entries] == [
        "model_change",
        "thinking_level_change",
        "message",
        "message",
        "message",
        "message",
        "custom_message",
        "custom",
        "label",
        "compaction",
        "message",
        "message",
        "branch_summary",
        "session_info",
    ]
    assert [e.line for e in session.entries] == list(range(2, 16))


def test_v3_entry_contents() -> None:
    entries = read_session(FIXTURES / "pi-v3-tree.jsonl").by_id()
    assert entries["a0000001"].data == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}
    assert entries["a0000002"].data == {"thinkingLevel": "medium"}
    user = entries["a0000003"].message
    assert user.role == "user" and user.contentWasString
    assert user.content == [TextBlock(text="Fix the failing checkout test in tests/test_cart.py")]
    assistant = entries["a0000004"].message
    assert [type(b) for b in assistant.content] == [ThinkingBlock, TextBlock, ToolCallBlock]
    assert assistant.content[2].arguments == {"path": "tests/test_cart.py"}
    assert assistant.usage.totalTokens == 1280 and assistant.usage.input == 1200
    assert assistant.stopReason == "toolUse" and assistant.model == "claude-sonnet-4-5"
    result = entries["a0000005"].message
    assert (result.role, result.toolCallId, result.toolName, result.isError) == (
        "toolResult",
        "toolu_01",
        "read",
        False,
    )
    bash = entries["a0000006"].message
    assert (bash.role, bash.command, bash.output, bash.exitCode) == ("bashExecution", "pytest -q", "1 failed", 1)
    custom = entries["a0000007"]
    assert custom.message.role == "custom" and custom.message.customType == "reminder"
    assert custom.message.display is True and custom.message.contentWasString
    assert custom.message.text() == "Remember: never touch prod."
    assert custom.data["details"] == {"source": "ext"}
    assert entries["a0000008"].data == {"customType": "todo-state", "data": {"open": 2}}
    assert entries["a0000009"].data == {"targetId": "a0000004", "label": "first look"}
    compaction = entries["a000000a"].compaction
    assert compaction.summary == "## Goal\nFix checkout test"
    assert compaction.firstKeptEntryId == "a0000006"  # pi's reader: position 5
    assert compaction.tokensBefore == 5230
    assert compaction.details == {"readFiles": ["tests/test_cart.py"], "modifiedFiles": []}
    branch = entries["a000000d"]
    assert branch.message.role == "branchSummary"
    assert branch.message.summary == "Tried running pytest; one failure."
    assert branch.data == {"fromId": "a000000b"}


def test_unknown_fields_survive_and_export_unchanged() -> None:
    path = FIXTURES / "pi-v3-tree.jsonl"
    session = read_session(path)
    entry = session.by_id()["a000000b"]
    assert entry.raw["futureField"] == {"kept": True}
    source_line = path.read_text().splitlines()[entry.line - 1]
    assert entry.raw_line == source_line
    assert export_pi(session).splitlines()[entry.line - 1] == source_line


@pytest.mark.parametrize("name", ["pi-v3-tree.jsonl", "pi-v1-legacy.jsonl", "pi-v2-hook.jsonl"])
def test_export_is_byte_identical(name: str) -> None:
    path = FIXTURES / name
    assert export_pi(read_session(path)) == path.read_text()


def test_source_fingerprint(tmp_path: Path) -> None:
    path = write(tmp_path, "s.jsonl", f"{HEADER}\n{USER}\n")
    session = read_session(path)
    data = path.read_bytes()
    assert session.source_path == str(path)
    assert session.source_size == len(data)
    assert session.source_sha256 == hashlib.sha256(data).hexdigest()


def test_crlf_and_missing_final_newline_round_trip(tmp_path: Path) -> None:
    crlf = write(tmp_path, "crlf.jsonl", f"{HEADER}\r\n{USER}\r\n{ASSISTANT}\r\n")
    session = read_session(crlf)
    assert session.newline == "\r\n" and session.problems == []
    assert session.entries[1].raw_line == ASSISTANT
    assert export_pi(session).encode() == crlf.read_bytes()
    bare = write(tmp_path, "bare.jsonl", f"{HEADER}\n{USER}\n{ASSISTANT}")
    session = read_session(bare)
    assert session.trailing_newline is False and session.problems == []
    assert export_pi(session) == bare.read_text()


# ---------------------------------------------------------------------------
# v1 and v2 migration
# ---------------------------------------------------------------------------


def test_v1_migration_deterministic_ids_and_first_kept() -> None:
    path = FIXTURES / "pi-v1-legacy.jsonl"
    session = read_session(path)
    assert session.problems == []
    assert session.version == 1 and session.id == "legacy-1111"
    ids = [e.id for e in session.entries]
    # first 8 hex of sha256("<session id>:<line number>")
    assert ids[0] == hashlib.sha256(b"legacy-1111:2").hexdigest()[:8]
    assert ids == [e.id for e in read_session(path).entries]
    assert len(set(ids)) == len(ids)
    parents, active = positions(session)
    # recorded from pi's migrateV1ToV2: a linear chain, firstKeptEntryIndex 3 -> position 2
    assert parents == [None, 0, 1, 2, 3, 4]
    assert active == [0, 1, 2, 3, 4, 5]
    compaction = session.entries[4]
    assert compaction.type == "compaction"
    assert compaction.compaction.firstKeptEntryId == ids[2]
    assert session.entries[2].message.text() == "Now count them."
    assert "firstKeptEntryIndex" not in compaction.compaction.model_dump()


def test_v1_unresolvable_first_kept_index(tmp_path: Path) -> None:
    text = (
        '{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}\n'
        '{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"a","timestamp":1}}\n'
        '{"type":"compaction","timestamp":"2025-01-01T00:00:02.000Z","summary":"s","firstKeptEntryIndex":0,"tokensBefore":3}\n'
    )
    path = write(tmp_path, "old.jsonl", text)
    session = read_session(path)
    # index 0 is the header: pi leaves firstKeptEntryId unset
    assert session.entries[1].compaction.firstKeptEntryId is None
    assert [str(p) for p in session.problems] == [
        f"{path}:3: firstKeptEntryIndex 0 names no earlier entry (nothing before the compaction is kept)"
    ]


def test_v2_hook_message_becomes_custom() -> None:
    session = read_session(FIXTURES / "pi-v2-hook.jsonl")
    assert session.problems == [] and session.version == 2
    hook = session.entries[1].message
    assert hook.role == "custom" and hook.customType == "git-status" and hook.display is False
    assert hook.text() == "2 files changed"
    assert '"role":"hookMessage"' in session.entries[1].raw_line


# ---------------------------------------------------------------------------
# Bad input: every bad line is one problem; the rest is still read
# ---------------------------------------------------------------------------


def test_malformed_json_line(tmp_path: Path) -> None:
    bad = '{"type":"label",}'
    path = write(tmp_path, "bad.jsonl", f"{HEADER}\n{USER}\n{bad}\n{ASSISTANT}\n")
    session = read_session(path)
    assert [str(p) for p in session.problems] == [
        f"{path}:3: malformed JSON (Expecting property name enclosed in double quotes at column 17); line skipped"
    ]
    assert [e.id for e in session.entries] == ["e1", "e2"]
    assert session.leaf_id == "e2"
    # the skipped line is not re-emitted
    assert export_pi(session) == f"{HEADER}\n{USER}\n{ASSISTANT}\n"


def test_truncated_last_line(tmp_path: Path) -> None:
    path = write(tmp_path, "trunc.jsonl", f"{HEADER}\n{USER}\n{ASSISTANT[:60]}")
    session = read_session(path)
    assert [str(p) for p in session.problems] == [
        f"{path}:3: truncated last line (no newline at end and not valid JSON); line skipped"
    ]
    assert [e.id for e in session.entries] == ["e1"]
    assert session.problems[0].severity == "error"


def test_unknown_record_type_kept_and_round_trips(tmp_path: Path) -> None:
    odd = '{"type":"bookmark","id":"e3","parentId":"e2","timestamp":"2026-01-01T00:00:03.000Z","note":"look here"}'
    text = f"{HEADER}\n{USER}\n{ASSISTANT}\n{odd}\n"
    path = write(tmp_path, "odd.jsonl", text)
    session = read_session(path)
    assert [str(p) for p in session.problems] == [f"{path}:4: unknown record type 'bookmark' (kept as 'other')"]
    assert session.problems[0].severity == "warning"
    entry = session.entries[2]
    assert (entry.type, entry.sourceType, entry.parentId) == ("other", "bookmark", "e2")
    assert entry.data == {"note": "look here"} and entry.raw_line == odd
    assert session.leaf_id == "e3"  # pi's leaf is the last entry, whatever its type
    assert export_pi(session) == text


def test_missing_header(tmp_path: Path) -> None:
    path = write(tmp_path, "nohead.jsonl", f"{USER}\n{ASSISTANT}\n")
    session = read_session(path)
    assert [str(p) for p in session.problems] == [
        f"{path}: no session header on the first line (pi would not load this file); imported anyway"
    ]
    assert session.problems[0].severity == "warning"
    assert [e.id for e in session.entries] == ["e1", "e2"]
    assert session.header == {} and session.header_line == ""
    assert session.name == "nohead"
    assert export_pi(session) == path.read_text()


def test_invalid_utf8_line(tmp_path: Path) -> None:
    bad = b'{"type":"label","id":"x","label":"caf\xe9"}'
    path = write(tmp_path, "latin1.jsonl", HEADER.encode() + b"\n" + bad + b"\n" + USER.encode() + b"\n")
    session = read_session(path)
    assert [str(p) for p in session.problems] == [
        f"{path}:2: invalid UTF-8 (byte 0xe9 at column 38); read with U+FFFD in its place, as pi reads it"
    ]
    # pi (Node's UTF-8 decoding) keeps the entry with U+FFFD for the bad byte
    assert [(e.id, e.line) for e in session.entries] == [("x", 2), ("e1", 3)]
    assert session.entries[0].raw["label"] == "caf\ufffd"


def test_json_that_is_not_an_object(tmp_path: Path) -> None:
    path = write(tmp_path, "arr.jsonl", f"{HEADER}\n[1,2]\n{USER}\n")
    session = read_session(path)
    assert [str(p) for p in session.problems] == [f"{path}:2: not a JSON object (a JSON array); line skipped"]
    assert [e.id for e in session.entries] == ["e1"]


def test_blank_line_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "blank.jsonl", f"{HEADER}\n\n{USER}\n")
    session = read_session(path)
    assert [str(p) for p in session.problems] == [f"{path}:2: blank line (skipped)"]
    assert [e.id for e in session.entries] == ["e1"]


def test_string_content_and_unknown_blocks(tmp_path: Path) -> None:
    odd_block = '{"type":"message","id":"e3","parentId":"e2","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":[{"type":"text","text":"see"},{"type":"audio","data":"AAA"},{"type":"image","data":"iVBO","mimeType":"image/png"}],"timestamp":3}}'
    path = write(tmp_path, "blocks.jsonl", f"{HEADER}\n{USER}\n{ASSISTANT}\n{odd_block}\n")
    session = read_session(path)
    message = session.entries[2].message
    assert [type(b) for b in message.content] == [TextBlock, ImageBlock]
    assert message.model_extra["otherBlocks"] == [{"type": "audio", "data": "AAA"}]
    assert [str(p) for p in session.problems] == [
        f"{path}:4: 1 content block(s) of unknown type (kept in the raw line, left out of the model)"
    ]
    assert export_pi(session) == path.read_text()


def test_entry_that_does_not_fit_the_model_is_kept(tmp_path: Path) -> None:
    broken = '{"type":"message","id":"e3","parentId":"e2","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"wizard","content":[]}}'
    path = write(tmp_path, "fit.jsonl", f"{HEADER}\n{USER}\n{ASSISTANT}\n{broken}\n")
    session = read_session(path)
    entry = session.entries[2]
    assert (entry.type, entry.id, entry.parentId, entry.raw_line) == ("other", "e3", "e2", broken)
    assert len(session.problems) == 1 and session.problems[0].line == 4
    assert session.problems[0].message.startswith("message record does not fit the session model (message.role:")
    assert export_pi(session) == path.read_text()


def test_entry_without_id_gets_a_stable_one(tmp_path: Path) -> None:
    no_id = '{"type":"label","parentId":"e2","timestamp":"2026-01-01T00:00:03.000Z","targetId":"e1","label":"x"}'
    path = write(tmp_path, "noid.jsonl", f"{HEADER}\n{USER}\n{ASSISTANT}\n{no_id}\n")
    session = read_session(path)
    expected = hashlib.sha256(b"s-1:4").hexdigest()[:8]
    assert session.entries[2].id == expected
    assert [str(p) for p in session.problems] == [f"{path}:4: entry has no id (gave it {expected})"]


def test_non_standard_json_constants_are_malformed(tmp_path: Path) -> None:
    nan = (
        '{"type":"label","id":"e3","parentId":"e2","timestamp":"2026-01-01T00:00:03.000Z","targetId":"e1","label":NaN}'
    )
    path = write(tmp_path, "nan.jsonl", f"{HEADER}\n{USER}\n{ASSISTANT}\n{nan}\n")
    session = read_session(path)
    # pi's JSON.parse rejects NaN, so the line is skipped as pi would skip it
    assert [str(p) for p in session.problems] == [f"{path}:4: malformed JSON (NaN is not valid JSON); line skipped"]
    assert [e.id for e in session.entries] == ["e1", "e2"]


def test_lone_surrogate_is_replaced_in_the_model_only(tmp_path: Path) -> None:
    broken = '{"type":"message","id":"e3","parentId":"e2","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":[{"type":"text","text":"cut \\ud83d here, whole \\ud83d\\ude00"}],"timestamp":3}}'
    path = write(tmp_path, "sur.jsonl", f"{HEADER}\n{USER}\n{ASSISTANT}\n{broken}\n")
    session = read_session(path)
    assert [str(p) for p in session.problems] == [
        f"{path}:4: lone UTF-16 surrogate in a string (replaced by U+FFFD when read; the line itself is kept)"
    ]
    assert session.entries[2].message.text() == "cut \ufffd here, whole \U0001f600"
    assert session.entries[2].raw_line == broken
    assert export_pi(session) == path.read_text()


def test_entries_without_source_lines_are_rebuilt_faithfully() -> None:
    """An entry held without its raw line (e.g. rebuilt elsewhere) exports as the same JSON record."""
    path = FIXTURES / "pi-v3-tree.jsonl"
    session = read_session(path)
    stripped = session.model_copy(update={"entries": [e.model_copy(update={"raw_line": ""}) for e in session.entries]})
    exported = export_pi(stripped).splitlines()
    source = path.read_text().splitlines()
    assert len(exported) == len(source)
    for ours, theirs in zip(exported, source):
        assert json.loads(ours) == json.loads(theirs)


def test_stable_ids_step_past_collisions() -> None:
    from cutline.core.agents.entries import StableIds

    first = hashlib.sha256(b"seed:7").hexdigest()[:8]
    second = hashlib.sha256(b"seed:7:1").hexdigest()[:8]
    assert StableIds("seed").make(7) == first
    ids = StableIds("seed", {first})
    assert ids.make(7) == second
    assert ids.taken == {first, second}
