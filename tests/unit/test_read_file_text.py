"""A session file read a chunk at a time splits into exactly the lines the whole-file read gave."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from cutline.core.agents import jsonl, read_session
from cutline.core.agents.jsonl import FileText, decode_text, read_file_text, split_lines

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted(
    p
    for folder in (
        ROOT / "sample_sessions",
        ROOT / "tests" / "fixtures" / "corpus",
        ROOT / "tests" / "fixtures" / "formats",
    )
    for p in folder.rglob("*.jsonl")
)

CASES = {
    "empty": b"",
    "one line, no newline": b'{"a":1}',
    "trailing newline": b'{"a":1}\n{"b":2}\n',
    "blank lines": b'\n\n{"a":1}\n\n',
    "crlf": b'{"a":1}\r\n{"b":"\xc3\xa9"}\r\n',
    "utf-8 bom": b'\xef\xbb\xbf{"a":1}\n',
    "multibyte across chunks": ('{"t":"' + "é🙂中" * 40 + '"}\n').encode() * 5,
    "a line longer than many chunks": b'{"t":"' + b"x" * 5000 + b'"}\n{"u":1}',
}


def _whole(data: bytes) -> list[tuple[int, str]]:
    text, _ = decode_text(data)
    return split_lines(text, "f").lines


def _chunked(path: Path) -> FileText:
    read = read_file_text(path)
    assert read.size == path.stat().st_size
    assert read.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    return read


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 20])
@pytest.mark.parametrize("name", sorted(CASES))
def test_same_lines_at_any_chunk_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, chunk: int) -> None:
    monkeypatch.setattr(jsonl, "READ_CHUNK", chunk)
    path = tmp_path / "s.jsonl"
    path.write_bytes(CASES[name])
    read = _chunked(path)
    assert isinstance(read.data, list)
    whole = split_lines(decode_text(CASES[name])[0], "f")
    got = split_lines(read, "f")
    assert got == whole


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_same_lines_on_the_corpus(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    monkeypatch.setattr(jsonl, "READ_CHUNK", 4096)
    data = path.read_bytes()
    read = _chunked(path)
    if isinstance(read.data, bytes):  # not plain UTF-8: the whole-file path decides
        assert read.data == data
        return
    assert split_lines(read, str(path)).lines == _whole(data)


@pytest.mark.parametrize(
    "data",
    [
        b'{"a":"ok"}\n{"b":"\xff bad"}\n',
        '{"a":"utf-16"}\n'.encode("utf-16"),
        '{"a":"utf-16 without bom"}\n'.encode("utf-16-le"),
    ],
    ids=["bad utf-8", "utf-16", "utf-16-le"],
)
def test_other_text_is_handed_over_as_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(jsonl, "READ_CHUNK", 8)
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    read = _chunked(path)
    assert read.data == data


def test_a_bad_line_is_still_reported_once(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    good = (ROOT / "sample_sessions" / "pi-one-compaction.jsonl").read_bytes()
    path.write_bytes(good.replace(b'"role":"user"', b'"role":"user","x":"\xff"', 1))
    session = read_session(path)
    lines = good.split(b"\n")
    first_user = next(number for number, line in enumerate(lines, start=1) if b'"role":"user"' in line)
    assert [p.line for p in session.problems if "invalid UTF-8" in p.message] == [first_user]
