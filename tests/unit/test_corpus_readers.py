"""The Claude Code 2.1.331 and Codex 0.169.0 readers on sessions the real programs wrote (tests/fixtures/corpus)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cutline.app.cli import cli
from cutline.core.agents import read_session, session_wire_context
from cutline.core.agents.wire import WireThinking, WireToolCall, WireToolResult
from tests.conformance.requests import CORPUS, load_manifest

CC_MAIN = CORPUS / "claude-code" / "main" / "session.jsonl"
CODEX_MAIN = CORPUS / "codex" / "main" / "rollout.jsonl"
SESSION_FILES = sorted([*CORPUS.glob("claude-code/*/*.jsonl"), *CORPUS.glob("codex/*/*.jsonl")])
MANIFEST_FILES = [CORPUS / e["session_file"] for e in load_manifest() if e["agent"] in ("claude-code", "codex")]


@pytest.mark.parametrize("path", SESSION_FILES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_sessions_read_without_problems(path: Path) -> None:
    session = read_session(path)
    assert [str(p) for p in session.problems] == []


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_claude_code_usage_counted_once_per_api_call() -> None:
    session = read_session(CC_MAIN)
    calls = {r["message"]["id"] for r in _records(CC_MAIN) if r.get("type") == "assistant"}
    with_usage = [e for e in session.entries if e.message is not None and e.message.usage is not None]
    assert len(with_usage) == len(calls)
    assert {(e.message.model_extra or {}).get("responseId") for e in with_usage if e.message} == calls


def test_claude_code_parallel_tool_calls_and_results_are_on_the_active_path() -> None:
    session = read_session(CC_MAIN.parent / "after-manual-compact.jsonl")
    path = session.active_path()
    calls = [b.id for e in path if e.message is not None for b in e.message.tool_calls()]
    results = [i for e in path if e.message is not None for i in e.message.tool_result_ids()]
    assert len(calls) == 5 and sorted(calls) == sorted(set(results))
    parents = [e.parentId for e in path]
    assert parents == [None, *(e.id for e in path[:-1])]


def test_claude_code_compaction_keeps_its_preserved_segment_and_token_figures() -> None:
    session = read_session(CC_MAIN)
    manual, auto = session.compactions()
    boundary = next(r for r in _records(CC_MAIN) if r.get("uuid") == auto.id)
    meta = boundary["compactMetadata"]
    assert auto.compaction is not None and manual.compaction is not None
    assert auto.compaction.firstKeptEntryId == meta["preservedSegment"]["headUuid"]
    assert auto.compaction.tokensAfter == meta["postTokens"]
    assert auto.compaction.details["preservedMessages"] == meta["preservedMessages"]
    assert auto.parentId == boundary["logicalParentUuid"]
    assert auto.compaction.summary.startswith("This session is being continued")


def test_claude_code_attachments_are_reminder_messages_with_tokens() -> None:
    from cutline.core.tokens import entry_tokens, get_counter

    session = read_session(CC_MAIN)
    dates = [
        e
        for e in session.entries
        if e.sourceType == "attachment" and e.message is not None and e.message.role == "system"
    ]
    assert dates and all(not e.message.text().startswith("<system-reminder>") for e in dates if e.message)
    counter = get_counter("chars4")
    assert all(entry_tokens(e, counter) > 0 for e in dates)
    not_sent = [e for e in session.entries if e.sourceType == "attachment" and e.message is None]
    assert not_sent and all(e.type == "other" for e in not_sent)


def test_claude_code_resumed_summary_is_answered_no_response_requested() -> None:
    context = session_wire_context(read_session(CORPUS / "claude-code" / "thirdparty-plain" / "session.jsonl"))
    assert [m.role for m in context.messages] == ["user", "system", "assistant"]
    assert context.messages[-1].text() == "No response requested."


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_claude_code_file_without_parents_is_read_as_one_conversation(tmp_path: Path) -> None:
    records = _records(CORPUS / "claude-code" / "thirdparty-plain" / "session.jsonl")
    kept = [r for r in records if r.get("type") in ("user", "assistant")][:12]
    for record in kept:
        record["parentUuid"] = None
    session = read_session(_write(tmp_path / "flat.jsonl", kept))
    assert len(session.active_path()) == 12
    assert any("parentUuid is null everywhere" in p.message for p in session.problems)


def test_claude_code_duplicate_uuids_and_other_sessions_are_reported(tmp_path: Path) -> None:
    records = [
        r for r in _records(CORPUS / "claude-code" / "thirdparty-plain" / "session.jsonl") if r.get("type") == "user"
    ]
    first, second = records[0], dict(records[1])
    copy = dict(first)
    second["sessionId"] = "another-session"
    session = read_session(_write(tmp_path / "dup.jsonl", [first, second, copy]))
    messages = [p.message for p in session.problems]
    assert any("duplicate uuid" in m and "line 1" in m for m in messages)
    assert any("another session (another-session)" in m for m in messages)
    assert len(session.entries) == 3


def test_codex_encrypted_remote_compaction_is_shown_as_such(tmp_path: Path) -> None:
    lines = _records(CODEX_MAIN.parent / "after-manual-compact.jsonl")
    for record in lines:
        if record["type"] == "compacted":
            record["payload"]["message"] = ""
            history = record["payload"]["replacement_history"]
            history[-1] = {"type": "compaction", "encrypted_content": "gAAAA-opaque"}
    session = read_session(_write(tmp_path / "rollout.jsonl", lines))
    (compaction,) = session.compactions()
    assert compaction.compaction is not None and "encrypted" in compaction.compaction.summary
    context = session_wire_context(session)
    assert context.notes and "cannot be read" in context.notes[0]
    opaque = [m for m in context.messages if any(isinstance(b, WireThinking) and b.redacted for b in m.content)]
    assert len(opaque) == 1


def test_codex_compaction_without_replacement_history_is_user_prompts_and_summary(tmp_path: Path) -> None:
    lines = _records(CODEX_MAIN.parent / "after-manual-compact.jsonl")
    for record in lines:
        if record["type"] == "compacted":
            summary = record["payload"]["message"]
            record["payload"] = {"message": summary}
    context = session_wire_context(read_session(_write(tmp_path / "rollout.jsonl", lines)))
    texts = [m.text() for m in context.messages]
    assert texts[-1] == summary
    assert texts[0].startswith("First turn: hello.")
    assert not any(t.startswith("<environment_context>") for t in texts)
    assert not any(isinstance(b, WireToolCall | WireToolResult) for m in context.messages for b in m.content)


def test_codex_token_usage_counted_once_per_response() -> None:
    session = read_session(CODEX_MAIN)
    responses = [r for r in _records(CODEX_MAIN) if r["type"] == "token_usage_record"]
    with_usage = [e for e in session.entries if e.message is not None and e.message.usage is not None]
    assert len(with_usage) == len(responses)


@pytest.mark.parametrize("path", MANIFEST_FILES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_tokens_are_calibrated_on_every_corpus_session(path: Path) -> None:
    result = CliRunner().invoke(cli, ["tokens", "--json", str(path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["calibration"]["samples"]
    assert data["calibration"]["medianError"] is not None
