"""cutline's own store when something happened to it (issue 27, item 18): each said in one line with what to do."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import pytest

from cutline.core.agents import safe_write
from cutline.core.errors import StoreDamaged
from cutline.core.store import Store
from tests.support.cli import run
from tests.support.paths import SAMPLES

PAGE = 16384  # the store's page size (core/store/db.py)


def _damage_the_last_pages(db: Path, pages: int) -> None:
    """Overwrite the start of the file's last pages, as a bad sector or a torn copy would."""
    size = db.stat().st_size
    with db.open("r+b") as handle:
        for n in range(size // PAGE - pages, size // PAGE):
            handle.seek(n * PAGE)
            handle.write(b"\xff" * 64)


def test_a_damaged_page_says_what_to_do(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = tmp_path / "cutline.db"
    code, _, _ = run(capsys, "import", str(SAMPLES / "pi-coding-session.jsonl"), "--db", str(db))
    assert code == 0
    _damage_the_last_pages(db, 40)
    code, out, err = run(capsys, "show", "pi-coding-session", "--db", str(db))  # `run` refuses an internal error
    assert code == 1 and out == ""
    assert err == (
        f"cutline: {db}: cutline's store is damaged (database disk image is malformed); move it aside "
        f"(mv {db} {db}.damaged) and cutline makes a new one on the next run — import your session files again "
        "(they are untouched; the proposals and decisions stay in the damaged copy)\n"
    )


def test_an_emptied_store_is_said_and_a_store_being_made_is_not(tmp_path: Path) -> None:
    db = tmp_path / "cutline.db"
    db.write_bytes(b"")
    with Store(db) as store:  # a 0-byte file made this moment: another cutline is creating it
        assert store.list_sessions() == []
    emptied = tmp_path / "emptied.db"
    emptied.write_bytes(b"")
    an_hour_ago = time.time() - 3600
    os.utime(emptied, (an_hour_ago, an_hour_ago))
    with pytest.raises(StoreDamaged, match=r"emptied.db: cutline's store is an empty file \(0 bytes\), not a store"):
        Store(emptied)
    assert emptied.stat().st_size == 0  # left as it was, for the user to look at


def _backup_in_a_child(backups: Path, source: Path) -> int:
    """A process making a backup that stalls in the middle of writing it (its temporary file half written)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        real_write = os.write

        def stalling_write(fd: int, data: bytes | memoryview) -> int:
            done = real_write(fd, bytes(data[:10]))
            time.sleep(60)
            return done

        safe_write.os.write = stalling_write  # type: ignore[attr-defined]
        try:
            safe_write.backup(source, source.read_bytes(), backups)
        finally:
            os._exit(0)
    return pid


def _temporary_files(backups: Path, count: int) -> list[Path]:
    for _ in range(500):
        found = sorted(backups.glob("*.tmp"))
        if len(found) >= count:
            return found
        time.sleep(0.01)
    raise AssertionError(f"no {count} temporary files appeared in {backups}")


def test_a_killed_backups_temporary_file_is_removed_on_the_next_start(tmp_path: Path) -> None:
    backups = Path(os.environ["CUTLINE_HOME"]) / "backups"
    killed_source = tmp_path / "killed.jsonl"
    killed_source.write_text("x" * 5000)
    writing_source = tmp_path / "writing.jsonl"
    writing_source.write_text("y" * 5000)
    children: list[int] = []
    try:
        children.append(_backup_in_a_child(backups, writing_source))
        [in_progress] = _temporary_files(backups, 1)
        children.append(_backup_in_a_child(backups, killed_source))  # its start leaves the other backup alone
        [left] = [p for p in _temporary_files(backups, 2) if p != in_progress]
        os.kill(children[1], signal.SIGKILL)
        os.waitpid(children[1], 0)
        Store(tmp_path / "cutline.db").close()
        assert not left.exists()  # the killed backup's leftover: gone on the next start
        assert in_progress.exists()  # another process's backup in progress: left alone
    finally:
        for child in children:
            with contextlib.suppress(ProcessLookupError, ChildProcessError):
                os.kill(child, signal.SIGKILL)
                os.waitpid(child, 0)
