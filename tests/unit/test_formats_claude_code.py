"""Claude Code transcripts: tree with rewinds and sidechains, compact boundaries, tool results, usage, pi export."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from cutline.core.agents import export_pi, read_session
from cutline.core.models import TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from tests.support.paths import TESTS

FIXTURES = TESTS / "fixtures" / "formats"
FILE = FIXTURES / "claude-code-small.jsonl"


def uuid(n: int) -> str:
    return f"00000000-0000-4000-8000-0000000000{n:02d}"


def test_session_fields() -> None:
    session = read_session(FILE)
    assert session.problems == []
    assert session.format == "claude_code"
    assert session.id == "5f0c6a2e-1111-4222-8333-944455556666"
    assert session.cwd == "/home/dev/shop"
    assert session.name == "claude-code-small"
    assert len(session.entries) == 18


def test_active_path_spans_compaction_and_follows_the_rewind() -> None:
    session = read_session(FILE)
    # uuid N sits on line N; line 1 is a summary record, line 10 a file-history-snapshot
    assert session.leaf_id == uuid(16)
    assert [e.line for e in session.active_path()] == [2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 15, 16]
    children = [e.id for e in session.entries if e.parentId == uuid(12)]
    assert children == [uuid(13), uuid(15)]  # the rewind: two children of one parent


def test_compact_boundary() -> None:
    entries = read_session(FILE).by_id()
    boundary = entries[uuid(11)]
    assert boundary.type == "compaction" and boundary.sourceType == "system"
    assert boundary.parentId == uuid(9)  # logicalParentUuid, not the null parentUuid
    assert boundary.compaction.summary == (
        "This session is being continued from a previous conversation that ran out of context. "
        "The conversation is summarized below:\nAnalysis: refactored cart.py; lint error E501 remains."
    )
    assert boundary.compaction.firstKeptEntryId is None
    assert boundary.compaction.tokensBefore == 45210
    assert boundary.compaction.details == {
        "trigger": "manual",
        "logicalParentUuid": "00000000-0000-4000-8000-000000000009",
    }
    summary = entries[uuid(12)]
    assert summary.isCompactSummary and summary.message.role == "user"


def test_sidechain_and_meta_flags() -> None:
    entries = read_session(FILE).by_id()
    assert entries[uuid(17)].isSidechain and entries[uuid(18)].isSidechain
    assert not entries[uuid(16)].isSidechain
    assert entries[uuid(9)].isMeta and not entries[uuid(2)].isMeta


def test_other_record_types_are_kept_silently() -> None:
    session = read_session(FILE)
    first, snapshot = session.entries[0], session.entries[9]
    assert (first.type, first.sourceType, first.data["summary"]) == ("other", "summary", "Cart refactor and tests")
    assert (snapshot.type, snapshot.sourceType) == ("other", "file-history-snapshot")
    assert snapshot.raw_line == FILE.read_text().splitlines()[9]


def test_messages_blocks_usage_and_tool_results() -> None:
    entries = read_session(FILE).by_id()
    user = entries[uuid(2)].message
    assert user.contentWasString and user.content == [TextBlock(text="Refactor cart.py")]
    streamed_a, streamed_b = entries[uuid(3)].message, entries[uuid(4)].message
    assert streamed_a.model_extra["responseId"] == streamed_b.model_extra["responseId"] == "msg_01"
    assert isinstance(streamed_a.content[0], ThinkingBlock) and streamed_a.stopReason is None
    assert streamed_a.content[0].model_extra["thinkingSignature"] == "sigA"
    call = streamed_b.content[0]
    assert isinstance(call, ToolCallBlock)
    assert (call.id, call.name, call.arguments) == ("toolu_01", "Read", {"file_path": "/home/dev/shop/cart.py"})
    assert streamed_b.stopReason == "toolUse" and streamed_b.model == "claude-sonnet-4-5-20250929"
    usage = entries[uuid(6)].message.usage
    # input 5, output 90, cache creation 300, cache read 1200
    assert (usage.input, usage.output, usage.cacheWrite, usage.cacheRead, usage.totalTokens) == (5, 90, 300, 1200, 1595)
    single = entries[uuid(5)].message
    assert (single.role, single.toolCallId, single.toolName, single.isError) == (
        "toolResult",
        "toolu_01",
        "Read",
        False,
    )
    assert single.content[0].content == [TextBlock(text="class Cart:\n    pass\n")]
    double = entries[uuid(7)].message
    assert double.role == "toolResult" and double.toolCallId is None
    assert [(b.toolCallId, b.isError) for b in double.content if isinstance(b, ToolResultBlock)] == [
        ("toolu_02", False),
        ("toolu_03", True),
    ]
    assert double.tool_result_ids() == ["toolu_02", "toolu_03"]
    assert entries[uuid(8)].message.stopReason == "stop"


def test_unknown_record_type_is_reported(tmp_path: Path) -> None:
    line = '{"type":"hologram","uuid":"u-9","sessionId":"s","parentUuid":null}'
    path = tmp_path / "cc.jsonl"
    path.write_text(FILE.read_text() + line + "\n")
    session = read_session(path)
    assert [str(p) for p in session.problems] == [f"{path}:19: unknown record type 'hologram' (kept as 'other')"]
    assert session.entries[-1].raw_line == line and session.entries[-1].type == "other"


def test_export_to_pi_is_a_linear_v3_session() -> None:
    lines = [json.loads(line) for line in export_pi(read_session(FILE)).splitlines()]
    header, body = lines[0], lines[1:]
    assert header == {
        "type": "session",
        "version": 3,
        "id": "5f0c6a2e-1111-4222-8333-944455556666",
        "timestamp": "2026-02-01T12:00:02.000Z",
        "cwd": "/home/dev/shop",
    }
    # pi 0.73.1's SessionManager read this export by hand: 12 entries, context
    # [compactionSummary, user, assistant]
    assert [(e["type"], e.get("message", {}).get("role")) for e in body] == [
        ("message", "user"),
        ("message", "assistant"),
        ("message", "assistant"),
        ("message", "toolResult"),
        ("message", "assistant"),
        ("message", "toolResult"),
        ("message", "toolResult"),
        ("message", "assistant"),
        ("message", "user"),
        ("compaction", None),
        ("message", "user"),
        ("message", "assistant"),
    ]
    for previous, entry in itertools.pairwise(body):
        assert entry["parentId"] == previous["id"]
    assert body[0]["parentId"] is None
    split = [e["message"] for e in body[5:7]]
    assert [(m["toolCallId"], m["toolName"], m["isError"]) for m in split] == [
        ("toolu_02", "Bash", False),
        ("toolu_03", "Bash", True),
    ]
    assert body[9]["firstKeptEntryId"] is None and body[9]["tokensBefore"] == 45210
    assert body[0]["message"]["content"] == "Refactor cart.py"
    # one API call in two block records: its usage is counted once, on the last of them
    assert body[1]["message"]["usage"]["totalTokens"] == 0
    assert body[2]["message"]["usage"]["totalTokens"] == 1263  # the last block record has the final output count
