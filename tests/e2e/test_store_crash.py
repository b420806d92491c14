"""Crash safety: an import killed with SIGKILL leaves an intact database and the session fully there or absent."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cutline.core.store import Store
from tests.support.paths import ROOT
from tests.support.sessions import generate

# The child imports the file, announcing each batch of entries it has written (inside
# the open transaction) and pausing after it, so the parent can kill it mid-import.
_CHILD = """
import sys, time
sys.path.insert(0, {root!r})
import cutline.core.store.importer
from cutline.core.store import Store
from cutline.core.store.importer import Importer

cutline.core.store.importer._ENTRY_BATCH = 500
insert = Importer._insert_entry_rows

def announcing(self, conn, batch):
    insert(self, conn, batch)
    print("batch", len(batch), flush=True)
    time.sleep({pause})

Importer._insert_entry_rows = announcing
with Store({db!r}) as store:
    print("open", flush=True)
    report = store.import_file({file!r})
print("done", report.total, flush=True)
"""

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")


def _spawn(db: Path, file: Path, pause: float) -> subprocess.Popen[str]:
    code = _CHILD.format(root=str(ROOT), db=str(db), file=str(file), pause=pause)
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _kill(child: subprocess.Popen[str]) -> None:
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL


def _check(db: Path, file: Path, others: dict[str, int]) -> str:
    """integrity_check is ok; the big session is absent or complete; other sessions are untouched. Returns which."""
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    conn.close()
    expected = len(file.read_text(encoding="utf-8").splitlines()) - 1
    with Store(db) as store:
        counts = dict(store.conn.execute("SELECT session_id, count(*) FROM entries GROUP BY session_id").fetchall())
        sessions = {info.id: info.entries for info in store.list_sessions()}
        for session_id, entries in others.items():
            assert sessions.pop(session_id) == entries == counts.pop(session_id)
        if not sessions:
            assert counts == {}
            return "absent"
        ((session_id, entries),) = sessions.items()
        assert entries == expected and counts == {session_id: expected}
        assert len(store.load_session(session_id).entries) == expected
        return "complete"


def test_an_import_killed_between_batches_leaves_nothing(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    file = generate(tmp_path / "large.jsonl", 3000, seed=9)
    with Store(db) as store:
        before = store.import_file(generate(tmp_path / "small.jsonl", 40, seed=1))
    child = _spawn(db, file, pause=30)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "open"
    # wait until a batch is written inside the transaction, and the WAL holds it
    assert child.stdout.readline().startswith("batch")
    assert Path(f"{db}-wal").exists()
    _kill(child)
    assert _check(db, file, {before.session_id: 40}) == "absent"


@pytest.mark.parametrize("delay", [0.0, 0.4, 1.2])
def test_an_import_killed_at_any_moment_is_all_or_nothing(tmp_path: Path, delay: float) -> None:
    db = tmp_path / "store.db"
    file = generate(tmp_path / "large.jsonl", 2500, seed=4)
    child = _spawn(db, file, pause=0.02)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "open"
    time.sleep(delay)
    if child.poll() is None:
        _kill(child)
    assert _check(db, file, {}) in ("absent", "complete")
    # whatever happened, importing again completes the session
    with Store(db) as store:
        assert store.import_file(file).total == 2500
    assert _check(db, file, {}) == "complete"


def test_two_processes_importing_the_same_file_store_it_once(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    file = generate(tmp_path / "shared.jsonl", 1500, seed=6)
    Store(db).close()  # migrate first, so both children only import
    children = [_spawn(db, file, pause=0.01) for _ in range(2)]
    outputs = [child.communicate(timeout=240) for child in children]
    assert [child.returncode for child in children] == [0, 0], [err for _, err in outputs]
    assert all(out.splitlines()[-1] == "done 1500" for out, _ in outputs)
    assert _check(db, file, {}) == "complete"
