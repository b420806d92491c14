"""A new session's rows written while its file is read: the same store as the whole-file import, batches before the end."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from cutline.core.errors import CutlineError
from cutline.core.models import Entry
from cutline.core.store import Store
from cutline.core.store.importer import Importer
from cutline.core.tokens import entry_tokens, get_counter
from tests.support.paths import ROOT, SAMPLES
from tests.support.sessions import generate


def _has_header(path: Path) -> bool:
    try:
        first = json.loads(path.open("rb").readline())
    except ValueError:
        return False
    return isinstance(first, dict) and first.get("type") == "session" and isinstance(first.get("id"), str)


FILES = sorted({*SAMPLES.glob("*.jsonl"), *(ROOT / "tests/fixtures/corpus").glob("**/*.jsonl")}, key=lambda p: str(p))
HEADED = [path for path in FILES if _has_header(path)]


def _chars4(entry: Entry) -> int:
    return entry_tokens(entry, get_counter("chars4"))


def _snapshot(store: Store, session_id: str) -> dict[str, Any]:
    """Everything stored of one session (its row without the import times and the file status a later command
    recorded on finding the file unchanged, entries, cached counts)."""
    conn = store.conn
    cursor = conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,))
    names = [d[0] for d in cursor.description]
    row = dict(zip(names, cursor.fetchone(), strict=True))
    del row["imported_at"], row["updated_at"], row["source_stat"]
    entries = conn.execute("SELECT * FROM entries WHERE session_id = ? ORDER BY seq", (session_id,)).fetchall()
    counts = conn.execute(
        "SELECT * FROM token_counts WHERE session_id = ? ORDER BY entry_id, counter", (session_id,)
    ).fetchall()
    return {"session": row, "entries": entries, "counts": counts}


def _whole_file(path: Path) -> dict[str, Any] | type[BaseException]:
    """What the whole-file import (read first, then written) stores of `path`, or the error it raises."""
    with Store() as store:
        try:
            opened = store.import_and_read(path, _chars4)
        except CutlineError as exc:
            return type(exc)
        return _snapshot(store, opened.report.session_id)


def _streamed(path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any] | type[BaseException]:
    """What `import_file` stores of `path`, failing if it takes the whole-file import instead of streaming."""

    def not_whole(*args: object, **kwargs: object) -> None:
        raise AssertionError("read whole, not streamed")

    with Store() as store, monkeypatch.context() as patched:
        patched.setattr(Importer, "_import", not_whole)
        try:
            report = store.import_file(path)
        except CutlineError as exc:
            assert store.conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 0
            assert store.conn.execute("SELECT count(*) FROM entries").fetchone()[0] == 0
            return type(exc)
        return _snapshot(store, report.session_id)


def test_there_are_headed_files_to_compare() -> None:
    assert len(HEADED) >= 15


@pytest.mark.parametrize("path", HEADED, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_streamed_import_stores_what_the_whole_file_import_stores(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _streamed(path, monkeypatch) == _whole_file(path)


def _line(value: dict[str, Any]) -> str:
    return json.dumps(value, separators=(",", ":"))


def _message(entry_id: str, parent: str | None, text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2025-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1},
    }


HEADER = {"type": "session", "version": 3, "id": "odd-1", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/w"}


def _odd_lines() -> list[str]:
    """Repeated ids (twice and three times), a branch left behind, a parent named before it appears, bad lines."""
    return [
        _line(HEADER),
        _line(_message("a", None, "one")),
        _line(_message("b", "a", "two")),
        _line(_message("c", "b", "abandoned branch")),
        _line(_message("b", "a", "two again")),
        "{not json",
        "",
        _line(_message("d", "late", "parent named before it appears")),
        _line(_message("late", "b", "the late parent")),
        _line({"type": "label", "id": "l1", "parentId": "d", "label": "x", "timestamp": "2025-01-01T00:00:03.000Z"}),
        _line(_message("b", "a", "two, third record")),
        _line(_message("e", "d", "the leaf")),
        '{"type":"message","id":"f","parentId":"e","mess',  # truncated: no newline, not JSON
    ]


def test_repeated_ids_branches_late_parents_and_bad_lines_stored_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_text("\n".join(_odd_lines()))
    streamed = _streamed(path, monkeypatch)
    assert streamed == _whole_file(path)
    assert isinstance(streamed, dict)
    keys = [row[1] for row in streamed["entries"]]
    assert keys == ["a", "b~1", "c", "b~3", "d", "late", "l1", "b", "e"]
    path_index = {row[1]: row[7] for row in streamed["entries"]}
    assert path_index == {"a": 0, "b~1": None, "c": None, "b~3": None, "d": 3, "late": 2, "l1": None, "b": 1, "e": 4}


@pytest.mark.parametrize("order", ["key-first", "repeat-first"])
def test_an_id_that_collides_with_a_repeated_ids_key_fails_as_before_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, order: str
) -> None:
    lines = [_line(HEADER), _line(_message("a", None, "one")), _line(_message("a", None, "again"))]
    # the earlier "a" is stored as a~<its seq>: a~1 when the clash comes first, a~0 when last
    if order == "key-first":
        lines.insert(1, _line(_message("a~1", None, "named like a key")))
    else:
        lines.append(_line(_message("a~0", None, "named like a key")))
    path = tmp_path / "clash.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert _whole_file(path) is CutlineError
    assert _streamed(path, monkeypatch) is CutlineError


def test_rows_are_written_before_the_file_is_read_to_its_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = generate(tmp_path / "big.jsonl", 3000, seed=3)
    written: list[int] = []
    at_end: list[int] = []
    insert = Importer._insert_entry_rows

    def recording(self: Importer, conn: sqlite3.Connection, batch: list[tuple[Any, ...]]) -> None:
        written.append(len(batch))
        insert(self, conn, batch)

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "writing":  # the reading is over
            at_end.append(sum(written))

    monkeypatch.setattr("cutline.core.store.importer._ENTRY_BATCH", 100)
    monkeypatch.setattr(Importer, "_insert_entry_rows", recording)
    with Store() as store:
        report = store.import_file(path, progress=progress)
    assert report.total == 3000
    assert at_end[0] >= 2900  # all but the last, partial batch written while reading
    assert max(written) == 100


def test_a_reader_that_keeps_no_entries_lets_go_of_each_line_once_read(tmp_path: Path) -> None:
    from cutline.core.agents.jsonl import split_lines
    from cutline.core.agents.pi.reader import read_pi

    path = generate(tmp_path / "some.jsonl", 50, seed=2)
    lines = split_lines(path.read_text(encoding="utf-8"), str(path))
    kept = split_lines(path.read_text(encoding="utf-8"), str(path))
    streamed = read_pi(lines, str(path), "some", sink=lambda entry, from_line: None, keep=False)
    whole = read_pi(kept, str(path), "some")
    assert [text for _, text in lines.lines[1:]] == [""] * 50  # every line after the header let go of
    assert [text for _, text in kept.lines[1:]] == [e.raw_line for e in whole.entries]  # kept when entries are
    assert streamed.leaf_id == whole.leaf_id and streamed.problems == whole.problems
