"""Two cutlines that open a new store at the same moment both get it (the desk's inbox listener and its first load do).

Before: about half of such opens failed with "cannot open the cutline database (database is
locked)" or a duplicate migration row; in the desk that was an error modal over the review
screen, in some runs of the test suite only.
"""

from __future__ import annotations

import threading
from pathlib import Path

from cutline.core.store import Store
from cutline.core.store.schema import up_to_date

OPENERS = 4
ROUNDS = 12


def open_together(path: Path) -> list[str]:
    start = threading.Barrier(OPENERS)
    failures: list[str] = []

    def open_one() -> None:
        start.wait()
        try:
            with Store(path) as store:
                assert up_to_date(store.database.conn)
        except Exception as exc:  # every failure is the finding
            failures.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=open_one) for _ in range(OPENERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


def test_a_new_store_opened_by_several_at_once_opens_for_each(tmp_path: Path) -> None:
    failures = [failure for n in range(ROUNDS) for failure in open_together(tmp_path / f"s{n}" / "store.db")]
    assert failures == []


def test_the_store_made_together_is_one_store_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    assert open_together(path) == []
    with Store(path) as store:
        conn = store.database.conn
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        rows = conn.execute("SELECT name, count(*) FROM _sqlite_migrations GROUP BY name HAVING count(*) > 1")
        assert rows.fetchall() == []  # each migration applied once
    assert (path.stat().st_mode & 0o777) == 0o600
