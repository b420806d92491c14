"""An import tells how far its reading has come, then that it writes."""

from __future__ import annotations

from pathlib import Path

from cutline.core.store import Store
from tests.support.tui_app import write_session


def test_import_tells_its_reading_progress_then_the_writing(tmp_path: Path) -> None:
    session = write_session(tmp_path / "ledger.jsonl", turns=20)
    size = session.stat().st_size
    told: list[tuple[str, int, int]] = []
    with Store(tmp_path / "store.db") as store:
        report = store.import_file(session, progress=lambda stage, done, total: told.append((stage, done, total)))
        again = store.import_file(session, progress=lambda *args: told.append(("again", 0, 0)))
    assert report.status == "imported" and again.status == "unchanged"
    reading = [(done, total) for stage, done, total in told if stage == "reading"]
    assert len(reading) >= 10, "told often enough for a bar to move"
    assert all(total == size for _, total in reading)
    dones = [done for done, _ in reading]
    assert dones == sorted(dones) and dones[-1] >= size * 0.95
    assert len(reading) <= 101, "at most once a percent"
    assert told[-1] == ("writing", 0, 0)
    assert ("again", 0, 0) not in told, "an unchanged file is not read, so nothing is told"
