"""A Claude Code file that grew since the store read it is re-imported as it is read (`Importer._import_grown_streamed`).

The whole-file re-import held every record's row to compare the keys and insert the
new ones (~720 MB at 50,000 records). The streamed one compares each record's id with
the stored keys as it comes, builds rows only for the new records, and recounts the old
ones the end of the reading changes. Checked here: every table of the store, row by
row, equals what the whole-file re-import makes (first import streamed or read whole;
every Claude Code file of the samples and fixtures cut at three points, then whole;
files replaced rather than grown), and the rows built do not grow with the old part.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from cutline.core.store import Store, rows, streamed
from cutline.core.store.importer import Importer
from tests.support.grown_sessions import grow
from tests.support.session_files import files_of

ROOT = Path(__file__).resolve().parents[2]


FILES = files_of("claude_code")


def _tables(db: Path) -> dict[str, list[dict[str, Any]]]:
    """Every row of every table (but the times a row was written at), in a stable order."""
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        out: dict[str, list[dict[str, Any]]] = {}
        for name in names:
            found = [
                {k: v for k, v in dict(row).items() if k not in ("imported_at", "updated_at", "applied_at")}
                for row in conn.execute(f"SELECT * FROM {name}")  # the store's own table names
            ]
            out[name] = sorted(found, key=repr)
        return out
    finally:
        conn.close()


def _whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """The re-import as it was: a stored file read whole, every record's row held, then compared and written."""
    monkeypatch.setattr(Importer, "_import_grown_streamed", lambda self, *args: None)


def _imported(
    steps: list[bytes], db: Path, copy: Path, *, first_whole: bool
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    reports = []
    with Store(db) as store:
        for step, content in enumerate(steps):
            copy.write_bytes(content)
            if step == 0 and first_whole:
                report = store.import_and_read(copy).report
            else:
                report = store.import_file(copy)
            reports.append(report.model_dump())
    return reports, _tables(db)


def _both(
    steps: list[bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, first_whole: bool = False
) -> tuple[Any, Any]:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    copy = tmp_path / "session.jsonl"  # one path for both: the stores keep it
    streamed_result = _imported(steps, tmp_path / "a" / "s.db", copy, first_whole=first_whole)
    with monkeypatch.context() as patch:
        _whole(patch)
        whole_result = _imported(steps, tmp_path / "b" / "s.db", copy, first_whole=first_whole)
    return streamed_result, whole_result


def _cuts(lines: list[bytes]) -> list[int]:
    return sorted({max(1, len(lines) // 3), max(1, len(lines) // 2), max(1, len(lines) - 1)})


def test_there_are_claude_code_files_to_grow() -> None:
    assert len(FILES) >= 10


@pytest.mark.parametrize("first_whole", [False, True], ids=["first-streamed", "first-whole"])
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_grown_file_s_streamed_re_import_stores_what_the_whole_one_does(
    path: Path, first_whole: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    if len(lines) < 2:
        pytest.skip("one line: nothing to grow")
    for cut in _cuts(lines):
        where = tmp_path / str(cut)
        where.mkdir()
        head = b"".join(lines[:cut])
        if not head.endswith(b"\n"):
            head += b"\n"
        steps = [head, head + b"".join(lines[cut:])]
        (reports, tables), (whole_reports, whole_tables) = _both(steps, where, monkeypatch, first_whole=first_whole)
        assert reports == whole_reports
        assert tables == whole_tables


def _rewound(head: list[bytes], tail: list[bytes], at: int) -> bytes:
    """The tail appended as a rewind: its first message's parent is an old message from `at` on (the records after it leave the path)."""
    records = [json.loads(line) for line in tail]
    first = next(i for i, r in enumerate(records) if r.get("type") in ("user", "assistant") and "uuid" in r)
    old = next(json.loads(line) for line in head[at:] if json.loads(line).get("type") in ("user", "assistant"))
    records[first]["parentUuid"] = old["uuid"]
    return b"".join(head) + b"".join(json.dumps(r).encode() + b"\n" for r in records)


@pytest.mark.parametrize("how", ["line-dropped", "old-record-repeated", "no-final-newline", "rewound"])
def test_a_file_replaced_or_not_safely_grown_is_read_whole_as_before(
    how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = grow("claude-code", 400, tmp_path / "whole.jsonl").read_bytes().splitlines(keepends=True)
    head = b"".join(whole[:200])
    if how == "line-dropped":
        later = b"".join(whole[:100] + whole[101:])
    elif how == "old-record-repeated":
        later = head + whole[50] + b"".join(whole[200:])  # an old uuid again: an old key changes
    elif how == "rewound":
        later = _rewound(whole[:200], whole[200:], 120)
    else:
        head = head.rstrip(b"\n")
        later = head + b"\n" + b"".join(whole[200:])
    (reports, tables), (whole_reports, whole_tables) = _both([head, later], tmp_path, monkeypatch)
    assert reports == whole_reports
    assert tables == whole_tables
    if how == "line-dropped":
        assert reports[1]["replaced"]
    if how == "rewound":
        assert reports[1]["grown"]


def _rows_built(old: int, new: int, whole: list[bytes], tmp_path: Path) -> tuple[int, dict[str, Any]]:
    """How many entry rows a grown file's re-import builds (`entry_row`), `old` records stored and `new` appended."""
    path = tmp_path / f"session-{old}.jsonl"
    path.write_bytes(b"".join(whole[:old]))
    built = 0
    real = rows.entry_row

    def counting(*args: Any) -> Any:
        nonlocal built
        built += 1
        return real(*args)

    with Store(tmp_path / f"store-{old}.db") as store:
        store.import_file(path)
        path.write_bytes(b"".join(whole[: old + new]))
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rows, "entry_row", counting)
            patch.setattr(streamed, "entry_row", counting)
            report = store.import_file(path)
    return built, report.model_dump()


def test_a_grown_file_s_re_import_builds_rows_for_the_new_records_only(tmp_path: Path) -> None:
    """300 then 1,200 records stored, 100 appended: the rows built stay those of the new part (main: every record's)."""
    whole = grow("claude-code", 1300, tmp_path / "whole.jsonl").read_bytes().splitlines(keepends=True)
    small, small_report = _rows_built(300, 100, whole, tmp_path)
    large, large_report = _rows_built(1200, 100, whole, tmp_path)
    assert small_report["grown"] and large_report["grown"]
    assert small_report["added"] == large_report["added"] == 100
    assert small <= 2 * 100 and large <= 2 * 100  # main: 400 and 1,300
