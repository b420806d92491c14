"""Codex rollouts: linear chain with stable ids, response items, token usage, compacted records, pi export."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

from cutline.core.agents import export_pi, read_session
from cutline.core.models import ImageBlock, TextBlock, ThinkingBlock, ToolCallBlock
from tests.support.paths import TESTS

FIXTURES = TESTS / "fixtures" / "formats"
FILE = FIXTURES / "codex-small.jsonl"
SESSION_ID = "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000"


def by_line(session):
    return {e.line: e for e in session.entries}


def test_header_ids_and_chain() -> None:
    session = read_session(FILE)
    assert session.problems == []
    assert (session.format, session.id, session.cwd) == ("codex", SESSION_ID, "/home/dev/api")
    assert session.header["cli_version"] == "0.46.0"
    assert session.header_line == FILE.read_text().splitlines()[0]
    assert [e.line for e in session.entries] == list(range(2, 18))
    assert session.entries[0].id == hashlib.sha256(f"{SESSION_ID}:2".encode()).hexdigest()[:8]
    assert [e.id for e in session.entries] == [e.id for e in read_session(FILE).entries]
    for previous, entry in zip(session.entries, session.entries[1:]):
        assert entry.parentId == previous.id
    assert session.entries[0].parentId is None
    assert session.leaf_id == session.entries[-1].id
    assert len(session.active_path()) == 16


def test_response_items() -> None:
    lines = by_line(read_session(FILE))
    developer = lines[2].message
    assert developer.role == "system" and developer.text().startswith("<permissions instructions>")
    assert lines[3].message.role == "user" and lines[3].isMeta  # injected environment context
    assert lines[4].type == "other" and lines[4].data["model"] == "gpt-5-codex"  # turn_context
    assert lines[5].message.content == [TextBlock(text="Why does /health return 500?")]
    assert not lines[5].isMeta
    reasoning = lines[7].message
    assert reasoning.role == "assistant" and reasoning.content == [ThinkingBlock(thinking="**Inspecting the handler**")]
    assert reasoning.model == "gpt-5-codex"
    call = lines[8].message.content[0]
    assert isinstance(call, ToolCallBlock)
    assert (call.id, call.name) == ("call_A1", "shell")
    assert call.arguments == {"command": ["bash", "-lc", "cat app/health.py"], "workdir": "/home/dev/api"}
    output = lines[10].message
    assert (output.role, output.toolCallId, output.toolName, output.isError) == (
        "toolResult",
        "call_A1",
        "shell",
        False,
    )
    assert output.text().startswith('{"output":"def health()')
    patch = lines[11].message.content[0]
    assert (patch.id, patch.name) == ("call_A2", "apply_patch")
    assert patch.arguments["input"].startswith("*** Begin Patch")
    assert lines[12].message.toolName == "apply_patch"
    assert lines[13].message.text() == "Fixed: the handler now returns a dict."


def test_token_count_usage_goes_to_latest_assistant_message() -> None:
    lines = by_line(read_session(FILE))
    first = lines[8].message.usage  # the function_call that ended the first response
    # input_tokens 5000 of which 3000 cached
    assert (first.input, first.cacheRead, first.output, first.cacheWrite, first.totalTokens) == (
        2000,
        3000,
        120,
        0,
        5120,
    )
    assert lines[7].message.usage is None
    second = lines[13].message.usage
    assert (second.input, second.cacheRead, second.output, second.totalTokens) == (1000, 5000, 80, 6080)
    assert lines[17].message.usage is None


def test_compacted_record() -> None:
    lines = by_line(read_session(FILE))
    compaction = lines[15]
    assert compaction.type == "compaction" and compaction.sourceType == "compacted"
    assert compaction.compaction.summary == "Summary: fixed /health to return a dict."
    assert compaction.compaction.firstKeptEntryId is None
    assert compaction.compaction.tokensBefore == 6080  # the last token_count's total
    history = compaction.compaction.details["replacement_history"]
    assert [item["content"][0]["text"] for item in history] == [
        "Why does /health return 500?",
        "Summary: fixed /health to return a dict.",
    ]


def test_outputs_images_and_unknown_items(tmp_path: Path) -> None:
    rows = [
        {"timestamp": "2026-03-01T08:00:00.000Z", "type": "session_meta", "payload": {"id": "x", "cwd": "/"}},
        {
            "timestamp": "2026-03-01T08:00:01.000Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "look"},
                    {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0"},
                ],
            },
        },
        {
            "timestamp": "2026-03-01T08:00:02.000Z",
            "type": "response_item",
            "payload": {"type": "function_call", "name": "shell", "arguments": "not json", "call_id": "c1"},
        },
        {
            "timestamp": "2026-03-01T08:00:03.000Z",
            "type": "response_item",
            "payload": {
                "type": "function_call_output",
                "call_id": "c1",
                "output": {"content": "boom", "success": False},
            },
        },
        {
            "timestamp": "2026-03-01T08:00:04.000Z",
            "type": "response_item",
            "payload": {"type": "teleport", "where": "mars"},
        },
        {"timestamp": "2026-03-01T08:00:05.000Z", "type": "weather", "payload": {"sunny": True}},
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    session = read_session(path)
    assert [str(p) for p in session.problems] == [
        f"{path}:5: unknown response item type 'teleport' (kept as 'other')",
        f"{path}:6: unknown record type 'weather' (kept as 'other')",
    ]
    lines = by_line(session)
    assert lines[2].message.content == [TextBlock(text="look"), ImageBlock(data="iVBORw0", mimeType="image/png")]
    assert lines[3].message.content[0].arguments == "not json"
    assert lines[4].message.isError and lines[4].message.text() == "boom"
    assert lines[5].type == "other" and lines[5].data == {"type": "teleport", "where": "mars"}
    assert lines[6].type == "other" and lines[6].sourceType == "weather"


def test_export_to_pi() -> None:
    lines = [json.loads(line) for line in export_pi(read_session(FILE)).splitlines()]
    header, body = lines[0], lines[1:]
    assert (header["type"], header["version"], header["id"], header["cwd"]) == (
        "session",
        3,
        SESSION_ID,
        "/home/dev/api",
    )
    # system-role (developer) messages and event/turn_context records have no pi counterpart
    assert [(e["type"], e.get("message", {}).get("role")) for e in body] == [
        ("message", "user"),
        ("message", "user"),
        ("message", "assistant"),
        ("message", "assistant"),
        ("message", "toolResult"),
        ("message", "assistant"),
        ("message", "toolResult"),
        ("message", "assistant"),
        ("compaction", None),
        ("message", "user"),
        ("message", "assistant"),
    ]
    for previous, entry in itertools.pairwise(body):
        assert entry["parentId"] == previous["id"]
    assert body[8]["summary"] == "Summary: fixed /health to return a dict."
    assert body[8]["details"]["replacement_history"][0]["role"] == "user"


def test_early_rollout_without_envelopes(tmp_path: Path) -> None:
    rows = [
        {"id": "0198-early", "timestamp": "2025-08-01T10:00:00.000Z", "instructions": None, "git": None},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list files"}]},
        {"type": "function_call", "name": "shell", "arguments": '{"command":["ls"]}', "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": "a.py\nb.py"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "two files"}]},
    ]
    path = tmp_path / "rollout-early.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    from cutline.core.agents import sniff

    assert sniff(path) == "codex"
    session = read_session(path)
    assert session.problems == []
    assert session.id == "0198-early" and session.header_line == json.dumps(rows[0])
    assert [(e.type, e.role) for e in session.entries] == [
        ("other", None),
        ("message", "user"),
        ("message", "assistant"),
        ("message", "toolResult"),
        ("message", "assistant"),
    ]
    assert session.entries[2].message.content[0].arguments == {"command": ["ls"]}
    assert session.entries[3].message.toolName == "shell"
