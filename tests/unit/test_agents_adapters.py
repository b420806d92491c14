"""One adapter per agent: the registry, OpenClaw's own identity, and bad input each adapter reports in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cutline.core.agents import ADAPTERS, adapter_for, read_session, session_context, sniff
from cutline.core.errors import FormatError, WriteBackRefused
from cutline.core.models import CompactionRecord
from tests.support.paths import TESTS

FIXTURES = TESTS / "fixtures" / "formats"


def test_every_adapter_has_its_own_format_and_is_found_by_it() -> None:
    formats = [adapter.format for adapter in ADAPTERS]
    assert sorted(formats) == ["claude_code", "codex", "openclaw", "opencode", "pi", "qwen_code"]
    for adapter in ADAPTERS:
        assert adapter_for(adapter.format) is adapter
    with pytest.raises(FormatError, match="no reader for session format 'gemini'"):
        adapter_for("gemini")


def openclaw_copy(tmp_path: Path) -> Path:
    """The pi fixture under the version 4 header OpenClaw 2026.9 writes."""
    lines = (FIXTURES / "pi-v3-tree.jsonl").read_text().splitlines()
    header = json.loads(lines[0])
    header["version"] = 4
    path = tmp_path / "openclaw.jsonl"
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    return path


def test_openclaw_jsonl_reads_through_pi_with_its_own_identity(tmp_path: Path) -> None:
    path = openclaw_copy(tmp_path)
    pi = read_session(FIXTURES / "pi-v3-tree.jsonl")
    session = read_session(path)
    assert sniff(path) == "openclaw"
    assert session.format == "openclaw"
    assert [e.raw_line for e in session.entries] == [e.raw_line for e in pi.entries]
    assert session_context(session) == session_context(pi)


def test_write_back_goes_through_the_adapter_and_an_openclaw_jsonl_export_refuses(tmp_path: Path) -> None:
    # OpenClaw's SQLite stores are written back (tests/unit/test_writeback_openclaw.py); its JSONL exports are not
    path = openclaw_copy(tmp_path)
    session = read_session(path)
    adapter = adapter_for(session.format)
    assert adapter.write_back_refusal() is None and not adapter.write_back_plan(session).possible
    before = path.read_bytes()
    with pytest.raises(WriteBackRefused, match="SQLite store"):
        adapter.write_back(path, session, CompactionRecord(summary="s"), backup_dir=tmp_path / "b")
    assert path.read_bytes() == before
    assert adapter_for("pi").write_back_refusal() is None


def test_utf16_session_reads_and_is_never_appended_to(tmp_path: Path) -> None:
    text = (FIXTURES / "pi-v3-tree.jsonl").read_text()
    path = tmp_path / "utf16.jsonl"
    path.write_bytes(text.encode("utf-16"))
    session = read_session(path)
    assert [e.raw_line for e in session.entries] == [
        e.raw_line for e in read_session(FIXTURES / "pi-v3-tree.jsonl").entries
    ]
    assert str(session.problems[0]) == (
        f"{path}: the file is UTF-16-LE text, not UTF-8 as agents write it; read as UTF-16-LE"
    )
    leaf = session.active_path()[-1].id
    with pytest.raises(WriteBackRefused, match="UTF-16"):
        adapter_for("pi").write_back(
            path, session, CompactionRecord(summary="s", firstKeptEntryId=leaf), backup_dir=tmp_path / "b"
        )


def test_codex_ordinal_gap_is_one_line_and_nothing_is_lost(tmp_path: Path) -> None:
    lines = (FIXTURES / "codex-small.jsonl").read_text().splitlines()
    numbered = []
    for ordinal, line in enumerate(lines):
        value = json.loads(line)
        value["ordinal"] = ordinal
        numbered.append(json.dumps(value))
    del numbered[5:7]  # two records lost
    path = tmp_path / "rollout-gap.jsonl"
    path.write_text("\n".join(numbered) + "\n")
    session = read_session(path)
    gaps = [str(p) for p in session.problems if "ordinal" in p.message]
    assert gaps == [f"{path}:6: ordinal 7 where 5 was next (2 records missing before it); read on"]
    assert len(session.entries) == len(numbered) - 1  # every line but the session_meta header


def test_a_file_whose_records_follow_binary_garbage_is_read(tmp_path: Path) -> None:
    path = tmp_path / "garbage.jsonl"
    shutil.copyfile(FIXTURES / "claude-code-small.jsonl", path)
    path.write_bytes(b"\x00\x89PNG\x00\xff\n" * 3 + path.read_bytes())
    session = read_session(path)
    assert session.format == "claude_code"
    assert {p.line for p in session.problems if p.severity == "error"} == {1, 2, 3}
