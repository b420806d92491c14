"""OpenClaw write-back without the program: the rows written, octet_length(), refusals, recovery, backups and undo."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from cutline.core import review
from cutline.core.agents.openclaw import writeback as ocwb
from cutline.core.agents.openclaw.running import running_openclaw
from cutline.core.agents.openclaw.sqlite_compat import ensure_octet_length, octet_length
from cutline.core.agents.openclaw.store import read_store
from cutline.core.agents.registry import adapter_for
from cutline.core.agents.writeback import UndoNeedsChoice
from cutline.core.errors import CutlineError, WriteBackRefused
from cutline.core.session_writes import recover_write_backs, undo, write_back_plan
from cutline.core.store import Store
from tests.support.openclaw_store import append_message_event, copy_store, integrity_ok, session_rows
from tests.support.paths import TESTS

SOURCE = TESTS / "fixtures" / "corpus" / "openclaw" / "main" / "session.sqlite"
SID = "cde7b62f-b5d2-453a-a896-24ee78fd4b51"
STAMP = "2026-01-01T00:00:00.000Z"


def _store(tmp_path: Path, mode: int = 0o640) -> Path:
    path = copy_store(SOURCE, tmp_path / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite")
    path.chmod(mode)
    return path


def _proposal(store: Store, path: Path) -> str:
    from tests.support.writeback import propose

    return propose(store, path, keep_recent_tokens=200, rules="openclaw-2026.9").id


def _agent_event(path: Path, text: str = "agent") -> None:
    """What a running OpenClaw does on its next turn: one message event and its projection rows."""
    conn = sqlite3.connect(path, isolation_level=None)
    ensure_octet_length(conn)
    try:
        append_message_event(conn, SID, text, stamp=STAMP)
    finally:
        conn.close()


def test_octet_length_counts_utf8_bytes_blob_bytes_and_null() -> None:
    assert octet_length("aé€") == 1 + 2 + 3
    assert octet_length(b"\x00\x01\x02") == 3
    assert octet_length(None) is None
    assert octet_length(12) == 2


def test_an_older_sqlite_cannot_insert_into_openclaw_tables_until_octet_length_is_registered(tmp_path: Path) -> None:
    path = _store(tmp_path)
    conn = sqlite3.connect(path)
    try:
        insert = "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, 999, '{}', 0)"
        if sqlite3.sqlite_version_info < (3, 43):
            with pytest.raises(sqlite3.OperationalError, match="octet_length"):
                conn.execute(insert, (SID,))
        assert ensure_octet_length(conn) is (sqlite3.sqlite_version_info < (3, 43))
        conn.execute(insert, (SID,))
        assert conn.execute("SELECT octet_length('é')").fetchone() == (2,)
        conn.rollback()
    finally:
        conn.close()


def test_write_back_inserts_the_event_and_its_projection_rows(tmp_path: Path) -> None:
    path = _store(tmp_path)
    before = session_rows(path, SID)
    with Store(tmp_path / "cutline.db") as store:
        proposal_id = _proposal(store, path)
        session = store.load_session(review.load_proposal(store, proposal_id).session_id)
        plan = write_back_plan(session)
        assert plan.possible and plan.how == "insert" and adapter_for("openclaw").write_back_refusal() is None
        decision = review.accept(store, proposal_id, write_back=True, timestamp=STAMP)
    after = session_rows(path, SID)
    event = after["events"][-1]
    assert event["type"] == "compaction" and event["id"] == decision.entry_id
    assert event["parentId"] == before["state"][0][2]  # the leaf OpenClaw projected
    seq = before["transcript_events"][-1][0] + 1
    assert after["transcript_events"][:-1] == before["transcript_events"]
    assert after["identities"][-1][:4] == [decision.entry_id, seq, "compaction", event["parentId"]]
    assert after["active"] == [*before["active"], [len(before["active"]), seq, None, 1]]
    state = after["state"][0]
    assert state[1:6] == [seq, decision.entry_id, 0, len(before["active"]) + 1, before["state"][0][5]]
    assert integrity_ok(path)
    # cutline reads its compaction back on OpenClaw's active path
    assert read_store(f"{path}#{SID}").active_path()[-1].id == decision.entry_id


def test_backup_is_a_private_copy_with_the_store_mode(tmp_path: Path) -> None:
    path = _store(tmp_path, mode=0o600)
    before = session_rows(path, SID)
    with Store(tmp_path / "cutline.db") as store:
        proposal_id = _proposal(store, path)
        review.accept(store, proposal_id, write_back=True, timestamp=STAMP)
        _, record = store.write_backs.get(proposal_id) or (None, None)
    assert record is not None and record.backup_path
    backup = Path(record.backup_path)
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert stat.S_IMODE(backup.parent.stat().st_mode) == 0o700
    assert session_rows(backup, SID) == before


def test_refused_when_the_session_changed_since_the_proposal(tmp_path: Path) -> None:
    path = _store(tmp_path)
    with Store(tmp_path / "cutline.db") as store:
        proposal_id = _proposal(store, path)
        _agent_event(path)
        changed = session_rows(path, SID)
        with pytest.raises(WriteBackRefused, match="changed since the proposal"):
            review.accept(store, proposal_id, write_back=True, timestamp=STAMP)
        assert store.proposals.status(proposal_id) == "open" and store.write_backs.get(proposal_id) is None
    assert session_rows(path, SID) == changed


def test_refused_while_a_process_holds_the_store_or_a_gateway_lock_is_live(tmp_path: Path) -> None:
    path = _store(tmp_path)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3,sys,time; c=sqlite3.connect(sys.argv[1]); c.execute('select 1').fetchall();"
            " print('open', flush=True); time.sleep(60)",
            str(path),
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"open"
        found = running_openclaw(path)
        assert found is not None and str(holder.pid) in found
        with Store(tmp_path / "cutline.db") as store:
            proposal_id = _proposal(store, path)
            session = store.load_session(review.load_proposal(store, proposal_id).session_id)
            assert not write_back_plan(session).possible
            with pytest.raises(CutlineError, match="running"):
                review.accept(store, proposal_id, write_back=True, timestamp=STAMP)
    finally:
        holder.kill()
        holder.wait()
    assert running_openclaw(path) is None
    locks = tmp_path / "state" / "tmp" / f"openclaw-{os.getuid()}"
    locks.mkdir(parents=True)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (locks / "gateway.state.lock").write_text(json.dumps({"pid": sleeper.pid, "role": "gateway"}))
        assert running_openclaw(path) == f"gateway pid {sleeper.pid} (lock gateway.state.lock)"
    finally:
        sleeper.kill()
        sleeper.wait()
    assert running_openclaw(path) is None  # a stale lock names a dead pid


def test_a_write_back_killed_after_recording_is_recovered_from_the_store(tmp_path: Path) -> None:
    path = _store(tmp_path)
    original = session_rows(path, SID)
    with Store(tmp_path / "cutline.db") as store:
        proposal_id = _proposal(store, path)
        real_insert = ocwb._insert

        def killed(*args: object, **kwargs: object) -> None:
            raise KeyboardInterrupt  # stands for SIGKILL inside the transaction: nothing commits

        ocwb._insert = killed  # type: ignore[assignment]
        try:
            with pytest.raises(KeyboardInterrupt):
                review.accept(store, proposal_id, write_back=True, timestamp=STAMP)
        finally:
            ocwb._insert = real_insert
        assert store.write_backs.any_pending()
        assert session_rows(path, SID) == original
        assert any("had not committed" in line for line in recover_write_backs(store))
        assert store.proposals.status(proposal_id) == "open" and not store.write_backs.any_pending()
        # the event committed but the store was not told: the next start records it as accepted
        decision = review.accept(store, proposal_id, write_back=True, timestamp=STAMP)
        with store.transaction() as conn:
            conn.execute("UPDATE write_backs SET state = 'pending' WHERE proposal_id = ?", (proposal_id,))
            conn.execute("DELETE FROM decisions WHERE proposal_id = ?", (proposal_id,))
            conn.execute("UPDATE proposals SET status = 'open' WHERE id = ?", (proposal_id,))
        assert any("is in the store" in line for line in recover_write_backs(store))
        assert store.proposals.status(proposal_id) == "accepted"
    assert session_rows(path, SID)["events"][-1]["id"] == decision.entry_id


def test_undo_removes_exactly_the_rows_it_added(tmp_path: Path) -> None:
    path = _store(tmp_path)
    original = session_rows(path, SID)
    with Store(tmp_path / "cutline.db") as store:
        proposal_id = _proposal(store, path)
        review.accept(store, proposal_id, write_back=True, timestamp=STAMP)
        assert session_rows(path, SID) != original
        result = undo(store, proposal_id)
        assert result.how == "exact"
        assert store.proposals.status(proposal_id) == "open"
    assert session_rows(path, SID) == original
    assert integrity_ok(path)


def test_undo_after_openclaw_wrote_offers_the_backup(tmp_path: Path) -> None:
    path = _store(tmp_path)
    original = session_rows(path, SID)
    with Store(tmp_path / "cutline.db") as store:
        proposal_id = _proposal(store, path)
        review.accept(store, proposal_id, write_back=True, timestamp=STAMP)
        _agent_event(path, "after the compaction")
        written = session_rows(path, SID)
        with pytest.raises(UndoNeedsChoice, match=r"wrote 1 event\(s\) after the compaction.*--from-backup"):
            undo(store, proposal_id)
        assert session_rows(path, SID) == written
        result = undo(store, proposal_id, from_backup=True)
        assert result.how == "restored-backup" and "kept in" in result.message
    assert session_rows(path, SID) == original
    kept = Path(result.message.rsplit("kept in ", 1)[1])
    assert session_rows(kept, SID) == written
    assert integrity_ok(path)
