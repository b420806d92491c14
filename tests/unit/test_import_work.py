"""What an import reads back from the store: no path total it can sum itself, no raw line it does not compare.

A session's path total (`sessions.path_tokens`) is set at import without summing the
stored counts in SQL where the import knows them.

Why: a whole-file import (every Codex file, a Claude Code or pi file read whole, and
every re-import of a grown or changed file) summed the path's cached chars4 counts
twice with `PATH_TOKENS_SUM` (once when caching the counts, once after): ~0.35 s each
for a 50,000-item Codex rollout, a fifth of its import. A new or replaced session's
cached counts are exactly those the import made, so its total is their sum over the
path; only a grown session, whose earlier counts stay cached, needs the query (once).
The stored total must be what the query gives, on every Claude Code and Codex file
of the samples, fixtures and corpus (whole-file import, then replaced, then grown).

A grown file's re-import compares the stored keys with the file's: it read every
stored raw line back with them (~110 MB for 50,000 Claude Code records), though it
compares a raw line only for an OpenClaw store's events and for the old last record
of a file that did not end with a newline.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cutline.core.store import Store
from cutline.core.store.schema import PATH_TOKENS_SUM
from tests.support.grown_sessions import grow
from tests.support.session_files import files_of

ROOT = Path(__file__).resolve().parents[2]


FILES = files_of("claude_code", "codex")


class _Sums:
    """Counts the path-total queries run on a connection, and keeps the statements that read raw lines back."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.runs = 0
        self.raw_reads: list[str] = []
        conn.set_trace_callback(self._seen)

    def _seen(self, statement: str) -> None:
        if "sum(t.tokens)" in statement:
            self.runs += 1
        if statement.lstrip().upper().startswith("SELECT") and " raw" in statement:
            self.raw_reads.append(statement)


def _total_by_query(store: Store, session_id: str) -> int | None:
    counted = store.conn.execute(
        "SELECT 1 FROM token_counts WHERE session_id = ? AND counter = 'chars4' LIMIT 1", (session_id,)
    ).fetchone()
    return store.conn.execute(PATH_TOKENS_SUM, (session_id,)).fetchone()[0] if counted else None


def _stored_total(store: Store, session_id: str) -> int | None:
    return store.conn.execute("SELECT path_tokens FROM sessions WHERE id = ?", (session_id,)).fetchone()[0]


def test_there_are_claude_code_and_codex_files() -> None:
    assert len(FILES) >= 20


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_whole_file_import_stores_the_path_total_the_query_gives(path: Path, tmp_path: Path) -> None:
    """Its first half new (read whole, as `import_and_read` reads), then the whole file (grown), then a line dropped (replaced)."""
    lines = path.read_bytes().splitlines(keepends=True)
    half = max(1, len(lines) // 2)
    copy = tmp_path / path.name
    with Store(tmp_path / "store.db") as store:
        sums = _Sums(store.conn)
        for step, content in enumerate([lines[:half], lines, lines[:half] + lines[half + 1 :]]):
            copy.write_bytes(b"".join(content))
            sums.runs = 0
            if step == 0:
                report = store.import_and_read(copy, count=lambda entry: len(entry.raw_line) % 97).report
            else:
                report = store.import_file(copy)
            runs = sums.runs
            if report.grown:
                assert runs == 1  # main: 2
            elif not report.unchanged:
                assert runs == 0  # new or replaced; main: 2
            assert _stored_total(store, report.session_id) == _total_by_query(store, report.session_id)


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_a_grown_session_s_import_sums_its_path_once(agent: str, tmp_path: Path) -> None:
    """A 600-record session imported at 300 records, then grown: the new import runs no sum, the grown one one."""
    whole = grow(agent, 600, tmp_path / "whole.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(whole[:300]))
    with Store(tmp_path / "store.db") as store:
        sums = _Sums(store.conn)
        first = store.import_file(path)
        assert sums.runs == 0
        path.write_bytes(b"".join(whole))
        grown = store.import_file(path)
        assert grown.grown and grown.added == grown.total - first.total
        assert sums.runs == 1  # main: 2 (once when caching the new counts, once after)
        sums.runs = 0
        assert _stored_total(store, grown.session_id) == _total_by_query(store, grown.session_id) is not None


@pytest.mark.parametrize("trailing_newline", [True, False])
def test_a_grown_file_s_import_reads_back_only_the_raw_line_it_compares(trailing_newline: bool, tmp_path: Path) -> None:
    """Every stored key is compared; a raw line is read back only for the old last record of a file without a final newline."""
    whole = grow("codex", 400, tmp_path / "whole.jsonl").read_text(encoding="utf-8").splitlines()
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(whole[:200]) + ("\n" if trailing_newline else ""), encoding="utf-8")
    with Store(tmp_path / "store.db") as store:
        first = store.import_file(path)
        path.write_text("\n".join(whole) + "\n", encoding="utf-8")
        sums = _Sums(store.conn)
        grown = store.import_file(path)
        assert grown.grown and grown.added == grown.total - first.total
        if trailing_newline:
            assert sums.raw_reads == []  # main: every stored raw line, with its key
        else:
            assert len(sums.raw_reads) == 1 and "LIMIT 1" in sums.raw_reads[0]
