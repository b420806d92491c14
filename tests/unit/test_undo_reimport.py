"""After `undo`, the store holds what a fresh import of the cut-back file makes, though the file is now streamed in.

Why: `undo` cuts the session file back to its bytes before the write-back and re-imports
it; a file no longer than the stored one is replaced, and the whole-file import held every
record's row (~780 MB at 50,000 Claude Code records). Now a stored pi or Claude Code file
that is no longer than it was is re-imported as a new file is, its rows written as they are
read under its stored id (`Importer._import_streamed(replacing=True)`). Checked: the
sessions, entries and token_counts tables after undo equal, row by row, those of the
whole-file re-import and those of a fresh import of the cut-back file into an empty store,
for every pi and Claude Code file of the samples and fixtures that takes a write-back.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cutline.core import review, session_writes
from cutline.core.errors import CutlineError
from cutline.core.store import Store, importer
from cutline.core.store.proposals import Decision
from tests.support.grown_sessions import grow
from tests.support.paths import ROOT
from tests.support.session_files import files_of
from tests.support.writeback import propose

STAMP = "2026-01-02T03:04:05.678Z"
FILES = files_of("pi", "claude_code")
TABLES = ("sessions", "entries", "token_counts")


def _tables(db: Path) -> dict[str, list[dict[str, Any]]]:
    """The session tables' rows (but the times a row was written at), in a stable order."""
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return {
            name: sorted(
                (
                    {k: v for k, v in dict(row).items() if k not in ("imported_at", "updated_at")}
                    for row in conn.execute(f"SELECT * FROM {name}")  # the store's own table names
                ),
                key=repr,
            )
            for name in TABLES
        }
    finally:
        conn.close()


def _undone(file: Path, db: Path, original: bytes) -> dict[str, list[dict[str, Any]]] | None:
    """Propose, write back and undo on `file` with the store at `db`; its tables after, None when nothing was written."""
    file.write_bytes(original)
    with Store(db) as store:
        try:
            proposal = propose(store, file, keep_recent_tokens=60)
            version = review.latest_version(store, proposal.id)
            decision = Decision(
                proposal_id=proposal.id,
                session_id=proposal.session_id,
                decision="accepted",
                decided_at=STAMP,
                version=version.n,
            )
            session_writes.write_back(
                store, decision, entry_id=proposal.entryId, record_text=version.text, timestamp=STAMP
            )
        except CutlineError:
            return None
        session_writes.undo(store, proposal.id)
    assert file.read_bytes() == original
    return _tables(db)


def _compare(file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Undo streamed, undo read whole, a fresh import: the same tables. "streamed", or why not compared."""
    original = file.read_bytes()
    streamed: Counter[str] = Counter()
    replace = importer.Importer._import_streamed

    def counted(self: importer.Importer, *args: Any, **kwargs: Any) -> Any:
        report = replace(self, *args, **kwargs)
        if kwargs.get("replacing") and report is not None:
            streamed["replaced"] += 1
        return report

    with monkeypatch.context() as patched:
        patched.setattr(importer.Importer, "_import_streamed", counted)
        after = _undone(file, tmp_path / "streamed.db", original)
    if after is None:
        return "not written"
    with monkeypatch.context() as patched:
        patched.setattr(importer, "_no_longer", lambda row, path: False)  # the whole-file re-import, as before
        whole = _undone(file, tmp_path / "whole.db", original)
    file.write_bytes(original)
    with Store(tmp_path / "fresh.db") as store:
        store.import_file(file)
    fresh = _tables(tmp_path / "fresh.db")
    assert after == whole
    assert after["entries"] == fresh["entries"]
    assert after["token_counts"] == fresh["token_counts"]
    assert after["sessions"] == fresh["sessions"]
    return "streamed" if streamed["replaced"] else "whole"


@pytest.mark.parametrize("file", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_undo_leaves_the_store_as_a_fresh_import_of_the_cut_back_file(
    file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / file.name
    shutil.copyfile(file, copy)
    how = _compare(copy, tmp_path, monkeypatch)
    if how == "whole":  # read whole only where the file is not streamed when new either
        with Store(tmp_path / "peek.db") as store:
            assert not store.importer.streams_pi_file(copy) and not store.importer.windowed_agent_file(copy)


def test_a_grown_claude_code_session_is_streamed_back_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = grow("claude-code", 300, tmp_path / "session.jsonl")
    assert _compare(file, tmp_path, monkeypatch) == "streamed"


def test_the_comparison_has_teeth(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both agents' files are undone and streamed back in."""
    told: Counter[str] = Counter()
    for n, file in enumerate(FILES):
        where = tmp_path / str(n)
        where.mkdir()
        copy = where / file.name
        shutil.copyfile(file, copy)
        told[f"{file.suffix} {_compare(copy, where, monkeypatch)}"] += 1
        shutil.rmtree(where)
    assert told[".jsonl streamed"] >= 20, told
