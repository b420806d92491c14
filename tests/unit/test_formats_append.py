"""Writing an accepted compaction back to a pi session file: one appended line, a backup, refusals."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cutline.core.agents import append_compaction, read_session
from cutline.core.errors import WriteBackRefused
from cutline.core.models import CompactionRecord
from tests.support.paths import TESTS

FIXTURES = TESTS / "fixtures" / "formats"

# the line pi's appendCompaction would write for these values (key order: type, id,
# parentId, timestamp, summary, firstKeptEntryId, tokensBefore, details, fromHook)
EXPECTED_LINE = (
    '{"type":"compaction","id":"c0ffee01","parentId":"a000000e","timestamp":"2026-02-02T10:00:00.000Z",'
    '"summary":"## Goal\\nExplain the test — résumé","firstKeptEntryId":"a000000c","tokensBefore":4100,'
    '"details":{"readFiles":["tests/test_cart.py"],"modifiedFiles":[]}}'
)


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    path = tmp_path / "live.jsonl"
    shutil.copyfile(FIXTURES / "pi-v3-tree.jsonl", path)
    return path


def record() -> CompactionRecord:
    return CompactionRecord(
        summary="## Goal\nExplain the test — résumé",
        firstKeptEntryId="a000000c",
        tokensBefore=4100,
        details={"readFiles": ["tests/test_cart.py"], "modifiedFiles": []},
    )


def test_appends_one_line_and_backs_up(session_file: Path, tmp_path: Path) -> None:
    original = session_file.read_bytes()
    session = read_session(session_file)
    backups = tmp_path / "backups"
    entry = append_compaction(
        session_file, session, record(), backup_dir=backups, entry_id="c0ffee01", timestamp="2026-02-02T10:00:00.000Z"
    )
    assert session_file.read_bytes() == original + EXPECTED_LINE.encode("utf-8") + b"\n"
    copies = list(backups.iterdir())
    assert len(copies) == 1 and copies[0].read_bytes() == original
    assert (entry.id, entry.parentId, entry.type, entry.raw_line) == (
        "c0ffee01",
        "a000000e",
        "compaction",
        EXPECTED_LINE,
    )
    assert entry.line == 16 and entry.compaction == record()
    # the session object is not changed; re-reading shows the new leaf
    assert session.leaf_id == "a000000e"
    again = read_session(session_file)
    assert again.problems == [] and again.leaf_id == "c0ffee01"
    assert again.entries[-1].compaction == record()
    assert [e.id for e in again.active_path()][-3:] == ["a000000d", "a000000e", "c0ffee01"]


def test_optional_fields_follow_pi_order(session_file: Path, tmp_path: Path) -> None:
    session = read_session(session_file)
    full = CompactionRecord(summary="s", firstKeptEntryId=None, tokensBefore=7, fromHook=True, tokensAfter=3)
    entry = append_compaction(
        session_file,
        session,
        full,
        backup_dir=tmp_path / "b",
        entry_id="c0ffee02",
        timestamp="2026-02-02T10:00:00.000Z",
    )
    assert entry.raw_line == (
        '{"type":"compaction","id":"c0ffee02","parentId":"a000000e","timestamp":"2026-02-02T10:00:00.000Z",'
        '"summary":"s","firstKeptEntryId":null,"tokensBefore":7,"fromHook":true,"tokensAfter":3}'
    )


def test_generated_id_and_timestamp(session_file: Path, tmp_path: Path) -> None:
    session = read_session(session_file)
    entry = append_compaction(session_file, session, record(), backup_dir=tmp_path / "b")
    assert len(entry.id) == 8 and int(entry.id, 16) >= 0
    assert entry.id not in session.by_id()
    assert entry.timestamp.endswith("Z") and len(entry.timestamp) == 24


def test_each_append_keeps_the_exact_file_before_it(session_file: Path, tmp_path: Path) -> None:
    backups = tmp_path / "backups"
    original = session_file.read_bytes()
    first = read_session(session_file)
    append_compaction(session_file, first, record(), backup_dir=backups, entry_id="c0ffee01")
    between = session_file.read_bytes()
    second = read_session(session_file)
    follow_up = CompactionRecord(summary="again", firstKeptEntryId=None, tokensBefore=1)
    entry = append_compaction(session_file, second, follow_up, backup_dir=backups, entry_id="c0ffee03")
    assert entry.parentId == "c0ffee01"
    # undo restores the file as it was before each write-back: one exact backup of each state
    assert sorted(p.read_bytes() for p in backups.iterdir()) == sorted([original, between])
    assert read_session(session_file).leaf_id == "c0ffee03"


def test_refuses_when_someone_appended(session_file: Path, tmp_path: Path) -> None:
    session = read_session(session_file)
    size = session_file.stat().st_size
    extra = b'{"type":"label","id":"zz000001","parentId":"a000000e","timestamp":"2026-02-02T09:00:00.000Z","targetId":"a0000003","label":"x"}\n'
    with session_file.open("ab") as handle:
        handle.write(extra)
    before = session_file.read_bytes()
    with pytest.raises(WriteBackRefused) as caught:
        append_compaction(session_file, session, record(), backup_dir=tmp_path / "b")
    assert str(caught.value) == (
        f"{session_file} changed since it was read (size {size} -> {size + len(extra)} bytes); re-import it and try again"
    )
    assert session_file.read_bytes() == before
    assert not (tmp_path / "b").exists()


def test_refuses_when_edited_in_place(session_file: Path, tmp_path: Path) -> None:
    session = read_session(session_file)
    data = session_file.read_bytes().replace(b"first look", b"first LOOK")
    session_file.write_bytes(data)
    with pytest.raises(WriteBackRefused) as caught:
        append_compaction(session_file, session, record(), backup_dir=tmp_path / "b")
    assert str(caught.value) == (
        f"{session_file} changed since it was read (same size, different content); re-import it and try again"
    )
    assert session_file.read_bytes() == data


def test_refuses_a_file_without_final_newline(tmp_path: Path) -> None:
    path = tmp_path / "open.jsonl"
    path.write_bytes((FIXTURES / "pi-v2-hook.jsonl").read_bytes().rstrip(b"\n"))
    session = read_session(path)
    with pytest.raises(WriteBackRefused) as caught:
        append_compaction(path, session, CompactionRecord(summary="s"), backup_dir=tmp_path / "b")
    assert "does not end with a newline" in str(caught.value)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("claude-code-small.jsonl", "only pi / OpenClaw session files take a compaction (this one is claude_code)"),
        ("codex-small.jsonl", "only pi / OpenClaw session files take a compaction (this one is codex)"),
    ],
)
def test_refuses_files_pi_would_not_resume_from(tmp_path: Path, name: str, reason: str) -> None:
    path = tmp_path / name
    shutil.copyfile(FIXTURES / name, path)
    before = path.read_bytes()
    with pytest.raises(WriteBackRefused) as caught:
        append_compaction(path, read_session(path), CompactionRecord(summary="s"), backup_dir=tmp_path / "b")
    assert reason in str(caught.value)
    assert path.read_bytes() == before


def test_refuses_first_kept_entry_off_the_active_path(session_file: Path, tmp_path: Path) -> None:
    session = read_session(session_file)
    off_path = CompactionRecord(summary="s", firstKeptEntryId="a000000b", tokensBefore=1)
    with pytest.raises(WriteBackRefused) as caught:
        append_compaction(session_file, session, off_path, backup_dir=tmp_path / "b")
    assert "first kept entry a000000b is not on the session's active path" in str(caught.value)


def test_refuses_an_id_already_used(session_file: Path, tmp_path: Path) -> None:
    session = read_session(session_file)
    with pytest.raises(WriteBackRefused):
        append_compaction(session_file, session, record(), backup_dir=tmp_path / "b", entry_id="a0000003")
