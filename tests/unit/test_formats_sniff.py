"""Recognizing a file's format, and the one-line errors for files that are not session transcripts."""

from __future__ import annotations

from pathlib import Path

import pytest

from cutline.core.agents import read_session, sniff
from cutline.core.errors import FormatError
from tests.support.paths import TESTS

FIXTURES = TESTS / "fixtures" / "formats"


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("pi-v3-tree.jsonl", "pi"),
        ("pi-v1-legacy.jsonl", "pi"),
        ("pi-v2-hook.jsonl", "pi"),
        ("claude-code-small.jsonl", "claude_code"),
        ("codex-small.jsonl", "codex"),
    ],
)
def test_fixtures(name: str, fmt: str) -> None:
    assert sniff(FIXTURES / name) == fmt


def test_pi_without_header_and_after_a_bad_line(tmp_path: Path) -> None:
    v1_entry = '{"type":"message","timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"user","content":"x"}}'
    path = tmp_path / "v1.jsonl"
    path.write_text("not json at all\n" + v1_entry + "\n")
    assert sniff(path) == "pi"


def test_claude_code_starting_with_a_summary(tmp_path: Path) -> None:
    path = tmp_path / "cc.jsonl"
    path.write_text('{"type":"summary","summary":"t","leafUuid":"u1"}\n')
    assert sniff(path) == "claude_code"


def error_of(path: Path) -> str:
    with pytest.raises(FormatError) as sniffed:
        sniff(path)
    with pytest.raises(FormatError) as read:
        read_session(path)
    assert str(sniffed.value) == str(read.value)
    return str(read.value)


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    assert error_of(path) == f"{path}: empty file"
    path.write_bytes(b"\n \n\t\n")
    assert error_of(path) == f"{path}: empty file"


def test_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "image.jsonl"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert error_of(path) == f"{path}: binary file (contains NUL bytes), not a session transcript"
    path.write_bytes(bytes(range(128, 256)) * 20)
    assert error_of(path) == f"{path}: binary file (mostly not UTF-8 text), not a session transcript"


def test_text_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text("# my notes\nbuy milk\n")
    assert error_of(path) == f"{path}: not a JSON Lines session transcript (line 1 is not JSON)"


def test_json_of_no_known_shape(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text('{"name":"a","value":1}\n{"name":"b","value":2}\n')
    assert error_of(path) == f"{path}: JSON of no known session format (first record has no 'type'; keys: name, value)"
    path.write_text('{"type":"order","total":3}\n')
    assert (
        error_of(path) == f"{path}: JSON of no known session format (first record has type 'order'; keys: total, type)"
    )


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "gone.jsonl"
    with pytest.raises(FormatError) as caught:
        read_session(path)
    assert str(caught.value) == f"{path}: cannot read (No such file or directory)"


def test_summary_only_claude_code_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "cc.jsonl"
    path.write_text('{"type":"summary","summary":"t","leafUuid":"u1"}\n')
    session = read_session(path)
    assert [e.type for e in session.entries] == ["other"]
