"""Qwen Code chat files (tests/fixtures/corpus/qwen-code, written by Qwen Code 0.24.4): read, usage, write-back, undo."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cutline.core.agents import read_session
from cutline.core.agents.qwen_code import ADAPTER
from cutline.core.agents.qwen_code.writeback import ACKNOWLEDGEMENT, RESUME_LINE
from cutline.core.agents.sniff import sniff
from cutline.core.errors import WriteBackRefused
from cutline.core.models import CompactionRecord
from tests.support.paths import TESTS

CORPUS = TESTS / "fixtures" / "corpus" / "qwen-code"
STAMP = "2026-12-02T02:00:00.000Z"


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / "chat.jsonl"
    shutil.copyfile(CORPUS / name, target)
    return target


def test_detected_and_read_with_its_compression_and_usage() -> None:
    assert sniff(CORPUS / "main" / "session.jsonl") == "qwen_code"
    assert sniff(TESTS / "fixtures" / "corpus" / "claude-code" / "main" / "session.jsonl") == "claude_code"
    session = read_session(CORPUS / "main" / "session.jsonl")
    assert session.problems == []
    path = session.active_path()
    compactions = [e for e in path if e.type == "compaction"]
    assert len(compactions) == 1 and compactions[0].compaction is not None
    assert compactions[0].compaction.summary.startswith("<state_snapshot>")
    assert (
        compactions[0].compaction.tokensBefore
        == json.loads(compactions[0].raw_line)["systemPayload"]["info"]["originalTokenCount"]
    )
    # the usage every model call reported, on the assistant entries that carry it
    usage = [
        e.message.usage
        for e in path
        if e.message is not None and e.message.role == "assistant" and e.message.usage is not None
    ]
    raw = [json.loads(e.raw_line)["usageMetadata"] for e in path if e.sourceType == "assistant"]
    assert [u.totalTokens for u in usage] == [m["totalTokenCount"] for m in raw]
    calls = [e for e in path if e.message is not None and len(e.message.tool_calls()) == 2]
    assert len(calls) == 1  # the two parallel calls are one model turn


def test_write_back_appends_one_record_linked_to_the_last(tmp_path: Path) -> None:
    file = _copy(tmp_path, "main/before-compact.jsonl")
    before = file.read_bytes()
    session = read_session(file)
    record = CompactionRecord(summary="SUMMARY", firstKeptEntryId=None, tokensBefore=1234)
    written = ADAPTER.write_back(file, session, record, backup_dir=tmp_path / "backups", entry_id="e1", timestamp=STAMP)
    after = file.read_bytes()
    assert after.startswith(before)
    line = json.loads(after[len(before) :])
    last = json.loads(before.splitlines()[-1])
    assert line["parentUuid"] == last["uuid"] and line["uuid"] not in before.decode()
    assert line["type"] == "system" and line["subtype"] == "chat_compression"
    history = line["systemPayload"]["compressedHistory"]
    assert history == [
        {"role": "user", "parts": [{"text": f"SUMMARY\n\n{RESUME_LINE}"}]},
        {"role": "model", "parts": [{"text": ACKNOWLEDGEMENT}]},
    ]
    assert line["systemPayload"]["info"]["originalTokenCount"] == 1234
    assert written.pending.backup_path and Path(written.pending.backup_path).read_bytes() == before
    reread = read_session(file)
    assert [m.text() for m in ADAPTER.context(reread.active_path())] == [f"SUMMARY\n\n{RESUME_LINE}", ACKNOWLEDGEMENT]
    # undo right away: the former bytes
    ADAPTER.undo(written.pending, backup_dir=tmp_path / "backups")
    assert file.read_bytes() == before


def test_cutlines_notes_after_the_snapshot_follow_the_acknowledgement_as_qwen_code_adds_its_own_context(
    tmp_path: Path,
) -> None:
    """Qwen Code 0.24.4 puts the context it restores itself (files, reminders) in a user message after its
    acknowledgement; the snapshot alone goes before its resume line."""
    file = _copy(tmp_path, "main/before-compact.jsonl")
    session = read_session(file)
    snapshot = "<state_snapshot>\n    <current_work>\n        Adding --bbox.\n    </current_work>\n</state_snapshot>"
    notes = "## Last Exchange (Verbatim)\n\n**User:**\nAdd --bbox.\n\n## Tool Failures\n- bash: exit 1"
    record = CompactionRecord(summary=f"{snapshot}\n\n{notes}\n", firstKeptEntryId=None, tokensBefore=1)
    line = json.loads(ADAPTER.preview_line(session, record, entry_id="e3", timestamp=STAMP))
    assert line["systemPayload"]["compressedHistory"] == [
        {"role": "user", "parts": [{"text": f"{snapshot}\n\n{RESUME_LINE}"}]},
        {"role": "model", "parts": [{"text": ACKNOWLEDGEMENT}]},
        {"role": "user", "parts": [{"text": notes}]},
    ]


def test_kept_records_follow_the_acknowledgement_as_written(tmp_path: Path) -> None:
    file = _copy(tmp_path, "main/before-compact.jsonl")
    session = read_session(file)
    path = session.active_path()
    first_kept = next(e for e in reversed(path) if e.sourceType == "user")
    record = CompactionRecord(summary="S", firstKeptEntryId=first_kept.id, tokensBefore=1)
    line = json.loads(ADAPTER.preview_line(session, record, entry_id="e2", timestamp=STAMP))
    kept = [json.loads(e.raw_line)["message"] for e in path[path.index(first_kept) :] if e.type == "message"]
    assert line["systemPayload"]["compressedHistory"][2:] == kept and kept


def test_a_changed_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    file = _copy(tmp_path, "main/before-compact.jsonl")
    session = read_session(file)
    with file.open("ab") as out:
        out.write(
            b'{"uuid":"x","parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","parts":[]}}\n'
        )
    changed = file.read_bytes()
    record = CompactionRecord(summary="SUMMARY", firstKeptEntryId=None, tokensBefore=1)
    with pytest.raises(WriteBackRefused):
        ADAPTER.write_back(file, session, record, backup_dir=tmp_path / "backups", entry_id="e3", timestamp=STAMP)
    assert file.read_bytes() == changed
