"""OpenClaw 2026.9's SQLite store: read-only, zstd events, the projected active path, several sessions, bad stores.

The stores are the conformance corpus's (tests/fixtures/corpus/openclaw, written by
OpenClaw 2026.9.6 itself); variations are made on copies in a temp dir.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from cutline.app.cli import cli
from cutline.core.agents import read_session, session_context
from cutline.core.agents.openclaw import store as oc_store
from cutline.core.errors import FormatError
from cutline.core.store import Store

OPENCLAW = Path(__file__).parent.parent / "fixtures" / "corpus" / "openclaw"
SID = (OPENCLAW / "session_id").read_text(encoding="utf-8").strip()
STATES = ["main/session.sqlite", "main/after-manual-compact.sqlite", "thirdparty/session.sqlite"]


def _copy(tmp_path: Path, name: str = "main/session.sqlite") -> Path:
    target = tmp_path / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    target.parent.mkdir(parents=True)
    shutil.copyfile(OPENCLAW / name, target)
    return target


def _writable(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute("PRAGMA ignore_check_constraints = ON")  # its CHECKs call octet_length(), newer than this SQLite
    return conn


@pytest.mark.parametrize("name", STATES)
def test_corpus_stores_read_without_problems_and_leave_nothing_beside_them(name: str, tmp_path: Path) -> None:
    path = _copy(tmp_path, name)
    before = sorted(p.name for p in path.parent.iterdir())
    session = read_session(path)
    assert session.format == "openclaw" and session.version == 4
    assert session.id == SID and session.source_path == f"{path}#{SID}"
    assert [str(p) for p in session.problems] == []
    assert sorted(p.name for p in path.parent.iterdir()) == before  # no -wal, no -shm


def test_events_are_the_exported_transcript_zstd_ones_decoded() -> None:
    session = read_session(OPENCLAW / "main" / "session.sqlite")
    export = [json.loads(line) for line in (OPENCLAW / "main" / "session.export.jsonl").read_text().splitlines()]
    assert [e.raw for e in session.entries] == export[1:]
    assert session.header == export[0]
    conn = sqlite3.connect(f"file:{OPENCLAW / 'main' / 'session.sqlite'}?immutable=1", uri=True)
    compressed = [row[0] for row in conn.execute("SELECT seq FROM transcript_events WHERE event_zstd IS NOT NULL")]
    conn.close()
    assert len(compressed) == 3
    kinds = {e.line: e.type for e in session.entries}
    assert sorted(kinds[seq] for seq in compressed) == ["compaction", "compaction", "message"]


def test_the_active_path_is_openclaws_projection_and_dangling_parents_are_tolerated(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    conn = _writable(path)
    seqs = [
        r[0] for r in conn.execute("SELECT event_seq FROM session_transcript_active_events ORDER BY active_position")
    ]
    row = conn.execute("SELECT event_json FROM transcript_events WHERE seq = 15").fetchone()
    event = json.loads(row[0])
    event["parentId"] = "not-a-stored-event"
    conn.execute("UPDATE transcript_events SET event_json = ? WHERE seq = 15", (json.dumps(event),))
    conn.commit()
    conn.close()
    session = read_session(path)
    assert [e.line for e in session.active_path()] == seqs
    assert [(p.line, p.severity) for p in session.problems] == [(15, "warning")]
    assert "names no stored event" in session.problems[0].message


def test_a_store_with_several_sessions_picks_the_latest_or_the_one_named(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    conn = _writable(path)
    other = "0ther000-0000-0000-0000-000000000000"
    conn.execute(
        "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, 0, ?, 1)",
        (other, json.dumps({"type": "session", "version": 4, "id": other, "cwd": "/elsewhere"})),
    )
    conn.execute(
        "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, 1, ?, 1)",
        (
            other,
            json.dumps({"type": "message", "id": "m1", "parentId": None, "message": {"role": "user", "content": "hi"}}),
        ),
    )
    conn.commit()
    conn.close()
    assert read_session(path).id == SID  # the most recently updated
    named = read_session(f"{path}#{other[:6]}")
    assert named.id == other and named.cwd == "/elsewhere" and len(named.entries) == 1
    with pytest.raises(FormatError, match="no session 'nope' in this OpenClaw store"):
        read_session(f"{path}#nope")


def test_a_newer_schema_is_read_and_named(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    conn = _writable(path)
    conn.execute("UPDATE schema_meta SET schema_version = 99, app_version = '2027.1.0'")
    conn.commit()
    conn.close()
    session = read_session(path)
    assert len(session.entries) == 37
    assert [p.message for p in session.problems] == [
        "store schema version 99 by OpenClaw 2027.1.0 is newer than the 23 cutline knows (OpenClaw 2026.9.6); "
        "read what is understood"
    ]


def test_a_locked_store_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(oc_store, "BUSY_TIMEOUT_MS", 50)
    path = _copy(tmp_path)
    writer = _writable(path)
    writer.execute("BEGIN EXCLUSIVE")
    writer.execute("UPDATE schema_meta SET updated_at = updated_at + 1")
    try:
        result = CliRunner().invoke(cli, ["import", str(path)])
    finally:
        writer.rollback()
        writer.close()
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"cutline: {path}: the OpenClaw store is locked by another process (a gateway writing it?); try again"
    ]


def test_not_a_store_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "openclaw-agent.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE something (x)")
    conn.commit()
    conn.close()
    with pytest.raises(FormatError, match="an OpenClaw store with no transcript events"):
        read_session(path)


def test_context_after_compaction_comes_from_the_store() -> None:
    context = session_context(read_session(OPENCLAW / "main" / "session.sqlite"))
    assert context[0].role == "compactionSummary"
    assert [m.text() for m in context if m.role == "user"][-1].startswith(
        "Turn after big usage (auto-compaction first)"
    )


def test_import_fingerprints_the_session_and_adds_only_what_grew(tmp_path: Path) -> None:
    path = _copy(tmp_path, "main/after-manual-compact.sqlite")
    with Store(tmp_path / "cutline.db") as store:
        first = store.import_file(path)
        assert first.status == "imported" and first.total == 27 and first.problems == []
        assert store.import_file(path).status == "unchanged"
        assert store.import_file(f"{path}#{SID}").status == "unchanged"
        shutil.copyfile(OPENCLAW / "main" / "session.sqlite", path)  # the session went on: 10 more events
        grown = store.import_file(path)
        assert grown.grown and grown.added == 10 and grown.total == 37
        assert grown.session_id == first.session_id
