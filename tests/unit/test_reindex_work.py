"""A grown file's whole-file re-import sets path_index on its old rows only: no UPDATE per appended entry.

Why: the re-import (a pi or Codex file that grew, read whole) set each entry of the new
active path to its place before the new rows were inserted, so every appended entry
cost an UPDATE that matched no row (the new rows are inserted with their place). Counted
here: the path_index UPDATEs the re-import runs, at n and 4n appended turns, on a
session whose path only grows (none of its old rows moves): none at either size. The
rows stored are checked against a fresh import of the whole file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cutline.core.store import Store
from tests.support.pi_compactions import append_turns, write_pi_session
from tests.support.sql_trace import StatementCount


def _rows(store: Store, session_id: str) -> list[tuple[Any, ...]]:
    return store.conn.execute(
        "SELECT id, seq, line, parent_id, type, role, path_index, timestamp, raw, model_json, facts"
        " FROM entries WHERE session_id = ? ORDER BY seq",
        (session_id,),
    ).fetchall()


def _regrown(turns: int, tmp_path: Path) -> tuple[int, int, list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Import a pi session, append `turns` turns, re-import it whole: (path_index UPDATEs, added, rows, a fresh import's rows)."""
    path = write_pi_session(tmp_path / "session.jsonl", turns=20, every=0, seed=3)
    with Store(tmp_path / "store.db") as store:
        store.import_file(path)
        append_turns(path, turns, seed=4)
        updates = StatementCount(store.conn, "UPDATE entries SET path_index")
        report = store.import_file(path)
        assert report.grown
        runs = updates.runs
        rows = _rows(store, report.session_id)
    with Store(tmp_path / "fresh.db") as fresh:
        fresh_rows = _rows(fresh, fresh.import_file(path).session_id)
    return runs, report.added, rows, fresh_rows


@pytest.mark.parametrize("turns", [50, 200])
def test_a_grown_re_import_updates_no_row_it_inserts(turns: int, tmp_path: Path) -> None:
    runs, added, rows, fresh = _regrown(turns, tmp_path)
    assert added == 2 * turns
    assert rows == fresh  # the same rows, path_index included, as a fresh import of the whole file
    assert runs == 0  # main: one per appended entry (100 / 400)
