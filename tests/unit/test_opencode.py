"""opencode's SQLite store (tests/fixtures/corpus/opencode, written by opencode 1.18.33): read, context, write-back, undo."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from cutline.core.agents import read_session, session_wire_context
from cutline.core.agents.boundaries import continues_message
from cutline.core.agents.discover import discover
from cutline.core.agents.opencode import ADAPTER
from cutline.core.agents.opencode.reader import COMPACTION_PROMPT
from cutline.core.agents.writeback import UndoNeedsChoice
from cutline.core.errors import WriteBackRefused
from cutline.core.models import CompactionRecord
from tests.support.paths import TESTS

CORPUS = TESTS / "fixtures" / "corpus" / "opencode" / "main"
STAMP = "2026-12-02T04:00:00.000Z"


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / "opencode.db"
    shutil.copyfile(CORPUS / name, target)
    return target


def _rows(db: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    try:
        return [
            *conn.execute("SELECT * FROM message ORDER BY id"),
            *conn.execute("SELECT * FROM part ORDER BY id"),
            *conn.execute("SELECT * FROM session ORDER BY id"),
        ]
    finally:
        conn.close()


def test_read_from_the_store_without_writing_beside_it(tmp_path: Path) -> None:
    db = _copy(tmp_path, "before-compact.sqlite")
    session = read_session(db)
    assert session.format == "opencode" and session.problems == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["opencode.db"]  # no -wal, no -shm
    path = session.active_path()
    # the two parallel calls are one model call; their results one entry after it, continuing that message
    calls = [i for i, e in enumerate(path) if e.message is not None and len(e.message.tool_calls()) == 2]
    assert len(calls) == 1
    results = path[calls[0] + 1]
    assert results.message is not None and results.message.role == "toolResult"
    assert [b.toolCallId for b in results.message.content if b.type == "toolResult"] == [
        b.id
        for b in path[calls[0]].message.tool_calls()  # type: ignore[union-attr]
    ]
    assert continues_message(results.message)
    # opencode 1.18 stores each model call as a message of its own: the next one starts a message (a place to cut)
    assert not continues_message(path[calls[0] + 2].message) and path[calls[0] + 2].id.startswith("msg_")
    assert not any(continues_message(e.message) for e in path if e.role == "user")
    # each model call's usage is its step-finish tokens
    conn = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    finishes = [
        json.loads(d)["tokens"]
        for (d,) in conn.execute("SELECT data FROM part ORDER BY message_id, id")
        if json.loads(d)["type"] == "step-finish"
    ]
    conn.close()
    usage = [e.message.usage for e in path if e.message is not None and e.message.usage is not None]
    assert [u.totalTokens for u in usage] == [t["total"] for t in finishes]
    assert [u.input for u in usage] == [t["input"] for t in finishes]


def test_a_bad_row_is_one_problem_and_the_rest_is_read(tmp_path: Path) -> None:
    db = _copy(tmp_path, "before-compact.sqlite")
    conn = sqlite3.connect(db)
    (part_id,) = conn.execute("SELECT id FROM part ORDER BY id LIMIT 1").fetchone()
    conn.execute("UPDATE part SET data = '{not json' WHERE id = ?", (part_id,))
    conn.commit()
    conn.close()
    session = read_session(db)
    assert [p.message.split(":")[0] for p in session.problems] == [f"part {part_id}"]
    assert len(session.active_path()) > 5


def test_after_a_compaction_it_is_sent_first_then_the_kept_tail() -> None:
    session = read_session(CORPUS / "after-auto-compact.sqlite")
    path = session.active_path()
    compaction = next(i for i, e in enumerate(path) if e.type == "compaction")
    record = path[compaction].compaction
    assert record is not None and record.summary.startswith("## Objective")
    kept = record.firstKeptEntryId
    assert kept is not None and any(e.id == kept for e in path[:compaction])
    wire = session_wire_context(session).messages
    assert wire[0].role == "user" and wire[0].text() == COMPACTION_PROMPT
    assert wire[1].role == "assistant" and wire[1].text().startswith("## Objective")
    first_kept = next(e for e in path if e.id == kept)
    assert first_kept.message is not None
    # the tail follows the summary, then what came after the compaction (its "Continue…" turn)
    assert wire[2].text() == first_kept.message.text() or wire[2].role != "user"
    assert any(m.text().startswith("Continue if you have next steps") for m in wire[3:])


def test_write_back_inserts_a_compaction_opencode_reads_and_undo_removes_it(tmp_path: Path) -> None:
    db = _copy(tmp_path, "before-compact.sqlite")
    before = _rows(db)
    session = read_session(db)
    users = [e for e in session.active_path() if e.role == "user"]
    record = CompactionRecord(summary="SUMMARY OF EARLIER WORK", firstKeptEntryId=users[-1].id, tokensBefore=500)
    preview = ADAPTER.preview_line(session, record, entry_id="p1", timestamp=STAMP)
    predicted = ADAPTER.session_after_write_back(session, preview)
    assert predicted is not None
    written = ADAPTER.write_back(
        Path(session.source_path or ""),
        session,
        record,
        backup_dir=tmp_path / "backups",
        entry_id="p1",
        timestamp=STAMP,
    )
    assert written.pending.payload == preview
    after = read_session(db)
    assert session_wire_context(after) == session_wire_context(predicted)
    wire = session_wire_context(after).messages
    assert [wire[0].text(), wire[1].text()] == [COMPACTION_PROMPT, "SUMMARY OF EARLIER WORK"]
    assert wire[2].text() == users[-1].message.text()  # type: ignore[union-attr]
    assert (after.source_size, after.source_sha256) == (written.pending.size_after, written.pending.sha_after)
    # the backup is the whole database as it was
    assert _rows(Path(written.pending.backup_path or "")) == before
    ADAPTER.undo(written.pending, backup_dir=tmp_path / "backups")
    assert _rows(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backups", "opencode.db"]


def test_write_back_refuses_a_changed_session_and_a_cut_inside_a_message(tmp_path: Path) -> None:
    db = _copy(tmp_path, "before-compact.sqlite")
    session = read_session(db)
    where = Path(session.source_path or "")
    inside = next(e for e in session.active_path() if e.message is not None and continues_message(e.message))
    with pytest.raises(WriteBackRefused, match="must start at an opencode message"):
        ADAPTER.write_back(
            where, session, CompactionRecord(summary="S", firstKeptEntryId=inside.id), backup_dir=tmp_path / "b"
        )
    conn = sqlite3.connect(db)
    conn.execute("UPDATE part SET time_updated = time_updated + 1, data = data WHERE rowid = 1")
    conn.execute("UPDATE part SET data = json_set(data, '$.extra', 1) WHERE rowid = 1")
    conn.commit()
    conn.close()
    changed = _rows(db)
    with pytest.raises(WriteBackRefused, match="changed since the proposal"):
        ADAPTER.write_back(where, session, CompactionRecord(summary="S"), backup_dir=tmp_path / "b")
    assert _rows(db) == changed


def test_undo_after_opencode_wrote_needs_the_backup(tmp_path: Path) -> None:
    db = _copy(tmp_path, "before-compact.sqlite")
    before = _rows(db)
    session = read_session(db)
    written = ADAPTER.write_back(
        Path(session.source_path or ""),
        session,
        CompactionRecord(summary="S"),
        backup_dir=tmp_path / "b",
        timestamp=STAMP,
    )
    conn = sqlite3.connect(db)
    sid = session.id
    conn.execute(
        "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)",
        ("msg_ffffffffffff0000000000000000", sid, 9999999999999, 9999999999999, '{"role":"user","time":{}}'),
    )
    conn.commit()
    conn.close()
    with pytest.raises(UndoNeedsChoice, match="from-backup"):
        ADAPTER.undo(written.pending, backup_dir=tmp_path / "b")
    ADAPTER.undo(written.pending, backup_dir=tmp_path / "b", from_backup=True)
    assert _rows(db) == before


def test_discovered_where_opencode_keeps_its_store(tmp_path: Path) -> None:
    home = tmp_path / "home"
    db = home / ".local" / "share" / "opencode" / "opencode.db"
    db.parent.mkdir(parents=True)
    shutil.copyfile(CORPUS / "session.sqlite", db)
    found = discover(env={}, home=home)
    assert found.problems == []
    [listed] = [s for s in found.sessions if s.agent == "opencode"]
    sid = read_session(db).id
    assert (listed.version, listed.ref) == ("1.18.33", f"{db}#{sid}")
    assert listed.cwd is not None and listed.cwd.endswith("/work")
    moved = tmp_path / "data"
    shutil.move(str(home / ".local" / "share"), str(moved))
    assert [s for s in discover(env={}, home=home).sessions if s.agent == "opencode"] == []
    assert [s.ref for s in discover(env={"XDG_DATA_HOME": str(moved)}, home=home).sessions] == [
        f"{moved / 'opencode' / 'opencode.db'}#{sid}"
    ]
