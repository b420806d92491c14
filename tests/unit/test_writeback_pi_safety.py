"""The pi write-back's safety defects (issue 15, item 7), each shown by a test, plus migration, systemMessage and undo."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import stat
import subprocess
import time
from pathlib import Path

import pytest

import cutline.core.agents.safe_write as safe_write
from cutline.core import review, session_writes
from cutline.core.agents import read_session
from cutline.core.agents.context import build_context
from cutline.core.agents.pi.append import compaction_payload
from cutline.core.agents.writeback import AgentRunning, UndoNeedsChoice
from cutline.core.errors import CutlineError, WriteBackRefused
from cutline.core.paths import backups_dir
from cutline.core.store import Store
from tests.support.paths import TESTS
from tests.support.writeback import jsonl_lines, propose

CORPUS = TESTS / "fixtures" / "corpus"
FORMATS = TESTS / "fixtures" / "formats"


def precompact(tmp_path: Path, version: str = "0.73") -> tuple[Path, bytes]:
    """The corpus session as it was right before pi's manual compaction, and pi's own compaction line."""
    lines = (CORPUS / f"pi-{version}" / "main" / "after-manual-compact.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / f"pi-{version}.jsonl"
    path.write_bytes(b"".join(lines[:-1]))
    return path, lines[-1]


def agent_line(parent: str | None, n: int = 1) -> bytes:
    record = {
        "type": "message",
        "id": f"a9e{n:05d}",
        "parentId": parent,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": f"agent line {n}"}], "timestamp": 1},
    }
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


@pytest.fixture
def case(tmp_path: Path) -> tuple[Path, Store, str]:
    path, _ = precompact(tmp_path)
    store = Store(tmp_path / "cutline.db")
    proposal = propose(store, path)
    yield path, store, proposal.id
    store.close()


# -- a failed append leaves the file exactly as it was --------------------------------


def test_short_write_is_taken_back(case: tuple[Path, Store, str], monkeypatch: pytest.MonkeyPatch) -> None:
    path, store, proposal_id = case
    original = path.read_bytes()
    real = os.write
    monkeypatch.setattr(safe_write.os, "write", lambda fd, data: real(fd, bytes(data[:353])))  # disk full
    with pytest.raises(WriteBackRefused, match=r"only 353 of .* bytes could be appended"):
        review.accept(store, proposal_id, write_back=True)
    assert path.read_bytes() == original
    assert store.proposals.status(proposal_id) == "open"
    assert store.write_backs.pending() == []


def test_failed_write_is_taken_back(case: tuple[Path, Store, str], monkeypatch: pytest.MonkeyPatch) -> None:
    path, store, proposal_id = case
    original = path.read_bytes()

    def no_space(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(safe_write.os, "write", no_space)
    with pytest.raises(WriteBackRefused, match="No space left on device"):
        review.accept(store, proposal_id, write_back=True)
    assert path.read_bytes() == original


def _interrupted(path: Path, store: Store, proposal_id: str, monkeypatch: pytest.MonkeyPatch, keep: int) -> bytes:
    """A write-back killed after `keep` bytes of its line reached the file (the pending record stored)."""
    real = os.write

    def killed(fd: int, data: bytes) -> int:
        if os.fstat(fd).st_size == 0:  # the backup's new file
            return real(fd, data)
        real(fd, bytes(data[:keep]))
        raise KeyboardInterrupt  # stands for SIGKILL: nothing after this runs

    monkeypatch.setattr(safe_write.os, "write", killed)
    with pytest.raises(KeyboardInterrupt):
        review.accept(store, proposal_id, write_back=True)
    monkeypatch.setattr(safe_write.os, "write", real)
    assert len(store.write_backs.pending()) == 1
    return path.read_bytes()


def test_interrupted_append_is_repaired_on_the_next_start(
    case: tuple[Path, Store, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, store, proposal_id = case
    original = path.read_bytes()
    assert _interrupted(path, store, proposal_id, monkeypatch, keep=353) != original
    with Store(store.path) as again:
        messages = session_writes.recover_write_backs(again)
        assert "half-written compaction line (353 bytes) was removed" in messages[0]
        assert again.proposals.status(proposal_id) == "open"
    assert path.read_bytes() == original


def test_agent_lines_after_a_half_line_are_kept_when_it_is_cut_out(
    case: tuple[Path, Store, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, store, proposal_id = case
    original = path.read_bytes()
    leaf = jsonl_lines(original)[-1]["id"]
    _interrupted(path, store, proposal_id, monkeypatch, keep=353)
    with path.open("ab") as handle:  # pi 0.87 on load: a newline after the broken line, then its next entry
        handle.write(b"\n" + agent_line(str(leaf)))
    assert session_writes.recover_write_backs(store)
    assert path.read_bytes() == original + agent_line(str(leaf))
    assert len(read_session(path).active_path()) == len(jsonl_lines(original))  # nothing orphaned


# -- nothing between the check and the append ---------------------------------------


def test_agent_line_written_during_the_backup_is_never_orphaned(
    case: tuple[Path, Store, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, store, proposal_id = case
    original = path.read_bytes()
    leaf = str(jsonl_lines(original)[-1]["id"])
    import cutline.core.agents.pi.append as pi_append

    real_backup = pi_append.make_backup

    def slow_backup(source: Path, data: bytes, directory: Path) -> Path:
        saved = real_backup(source, data, directory)
        with path.open("ab") as handle:  # the agent writes while the backup is fsynced
            handle.write(agent_line(leaf))
        return saved

    monkeypatch.setattr(pi_append, "make_backup", slow_backup)
    with pytest.raises(WriteBackRefused, match="changed while cutline was preparing"):
        review.accept(store, proposal_id, write_back=True)
    assert path.read_bytes() == original + agent_line(leaf)
    assert store.write_backs.pending() == []


# -- a running agent ----------------------------------------------------------------


def test_refuses_while_pi_runs_on_the_session(case: tuple[Path, Store, str], tmp_path: Path) -> None:
    path, store, proposal_id = case
    original = path.read_bytes()
    fake_pi = tmp_path / "bin" / "pi"  # a stand-in named like pi's launcher: `/bin/sh …/pi --session FILE`
    fake_pi.parent.mkdir()
    fake_pi.write_text("#!/bin/sh\nsleep 30\n")
    fake_pi.chmod(0o755)
    running = subprocess.Popen([str(fake_pi), "--session", str(path)])
    cmdline = Path("/proc", str(running.pid), "cmdline")
    while running.poll() is None and str(fake_pi).encode() not in cmdline.read_bytes():
        time.sleep(0.01)  # until the shell has started the script
    try:
        plan = session_writes.write_back_plan(store.load_session(store.resolve_session(str(path))))
        assert not plan.possible and "pi is running on this session" in plan.reason
        with pytest.raises(AgentRunning, match="Quit it, accept again, then resume it"):
            review.accept(store, proposal_id, write_back=True)
    finally:
        running.kill()
        running.wait()
    assert path.read_bytes() == original


def test_warns_when_the_agent_kept_writing_on_its_old_branch(case: tuple[Path, Store, str]) -> None:
    path, store, proposal_id = case
    leaf = str(jsonl_lines(path.read_bytes())[-1]["id"])
    review.accept(store, proposal_id, write_back=True)
    assert session_writes.drift_warning(store, proposal_id) is None
    with path.open("ab") as handle:  # a pi that kept running appends to its in-memory leaf
        handle.write(agent_line(leaf))
    store.import_file(path)
    warning = session_writes.drift_warning(store, proposal_id)
    assert warning is not None and "kept writing on its old branch" in warning


# -- written, but the store was not told ---------------------------------------------


def test_a_written_line_the_store_missed_is_recognised(
    case: tuple[Path, Store, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, store, proposal_id = case

    def locked(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(session_writes, "_record_done", locked)
    with pytest.raises(CutlineError, match="do not compact this session again"):
        review.accept(store, proposal_id, write_back=True)
    monkeypatch.undo()
    written = path.read_bytes()
    with Store(store.path) as again:
        assert "recorded as accepted" in session_writes.recover_write_backs(again)[0]
        assert again.proposals.status(proposal_id) == "accepted"
        assert again.proposals.decisions(proposal_id)[-1].written_to == str(path)
    assert path.read_bytes() == written  # one compaction, never two


def test_accept_finds_its_own_line_even_without_a_pending_record(case: tuple[Path, Store, str]) -> None:
    path, store, proposal_id = case
    decision = review.accept(store, proposal_id, write_back=True)
    written = path.read_bytes()
    with store.transaction() as conn:  # as if the decision had never been recorded
        conn.execute("DELETE FROM decisions")
        conn.execute("DELETE FROM write_backs")
        conn.execute("UPDATE proposals SET status = 'open'")
    again = review.accept(store, proposal_id, write_back=True)
    assert again.entry_id == decision.entry_id and "already in the file" in again.notes[0]
    assert path.read_bytes() == written


# -- a proposal is tied to the bytes it was made from ----------------------------------


def test_a_proposal_made_before_an_edit_in_place_is_refused(case: tuple[Path, Store, str]) -> None:
    path, store, proposal_id = case
    text = path.read_text(encoding="utf-8")
    assert "First turn: hello." in text
    path.write_text(text.replace("First turn: hello.", "First turn: HELLO."), encoding="utf-8")
    store.import_file(path)  # same leaf, different content
    before = path.read_bytes()
    with pytest.raises(WriteBackRefused, match=r"changed since proposal .* was made"):
        review.accept(store, proposal_id, write_back=True)
    assert path.read_bytes() == before


# -- leftovers and modes ------------------------------------------------------------


def test_leftover_backup_temporaries_are_cleaned_and_modes_kept(case: tuple[Path, Store, str]) -> None:
    path, store, proposal_id = case
    path.chmod(0o600)
    leftover = backups_dir() / "old-session.123.abc.jsonl.tmp"
    leftover.write_bytes(b"half a backup")
    review.accept(store, proposal_id, write_back=True)
    assert not leftover.exists()
    (backup,) = backups_dir().iterdir()
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert stat.S_IMODE(backups_dir().stat().st_mode) == 0o700
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_store_and_home_are_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "fresh-home"
    monkeypatch.setenv("CUTLINE_HOME", str(home))
    with Store() as store:
        store.import_file(FORMATS / "pi-v3-tree.jsonl")
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "cutline.db").stat().st_mode) == 0o600


# -- how each pi file is written -------------------------------------------------------


def test_current_pi_gets_the_system_message_checkpoint_pi_would_write(tmp_path: Path) -> None:
    path, pis_line = precompact(tmp_path, "0.87")
    pis = json.loads(pis_line)
    session = read_session(path)
    record = session.compactions()[0].compaction if session.compactions() else None
    assert record is None  # the pre-compaction state
    from cutline.core.models import CompactionRecord

    ours = json.loads(
        compaction_payload(
            session,
            CompactionRecord(summary="s", firstKeptEntryId=pis["firstKeptEntryId"], tokensBefore=1),
            entry_id=pis["id"],
            timestamp=pis["timestamp"],
        )
    )
    assert ours["systemMessage"] == pis["systemMessage"]
    assert list(ours)[-1] == "systemMessage" and ours["parentId"] == pis["parentId"]


def test_plan_says_how_before_anything_runs(tmp_path: Path) -> None:
    v3, _ = precompact(tmp_path, "0.73")
    current, _ = precompact(tmp_path, "0.87")
    plans = {
        name: session_writes.write_back_plan(read_session(p), look_for_agent=False)
        for name, p in [("v3", v3), ("0.87", current), ("v1", FORMATS / "pi-v1-legacy.jsonl")]
    }
    assert (plans["v3"].how, plans["v3"].style) == ("append", "pi v3")
    assert plans["0.87"].style.startswith("pi 0.87")
    assert plans["v1"].how == "migrate-and-append" and "rewrites it as v3" in plans["v1"].reason
    cc = session_writes.write_back_plan(read_session(FORMATS / "claude-code-small.jsonl"))
    assert cc.possible and cc.how == "append" and "compact_boundary" in cc.reason


@pytest.mark.parametrize("name", ["pi-v1-legacy.jsonl", "pi-v2-hook.jsonl"])
def test_old_files_are_migrated_as_pi_does_then_compacted_and_undone_exactly(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes((FORMATS / name).read_bytes())
    original = path.read_bytes()
    before = read_session(path)
    with Store(tmp_path / "cutline.db") as store:
        proposal = propose(store, path, keep_recent_tokens=1)
        decision = review.accept(store, proposal.id, write_back=True)
        after = read_session(path)
        assert after.header["version"] == 3
        assert [e.id for e in after.entries[:-1]] == [e.id for e in before.entries]  # the ids the store knows
        assert after.active_path()[-1].id == decision.entry_id
        assert "hookMessage" not in path.read_text(encoding="utf-8")
        result = session_writes.undo(store, proposal.id)
        assert result.how == "exact" and path.read_bytes() == original
        assert store.proposals.status(proposal.id) == "open"


# -- undo ---------------------------------------------------------------------------


def test_undo_restores_the_exact_bytes(case: tuple[Path, Store, str]) -> None:
    path, store, proposal_id = case
    original = path.read_bytes()
    review.accept(store, proposal_id, write_back=True)
    assert session_writes.undo(store, proposal_id).how == "exact"
    assert path.read_bytes() == original
    with pytest.raises(WriteBackRefused, match="undone already"):
        session_writes.undo(store, proposal_id)


def test_undo_after_the_agent_wrote_offers_a_branch_or_the_backup(case: tuple[Path, Store, str]) -> None:
    path, store, proposal_id = case
    original_context = build_context(read_session(path).active_path())
    decision = review.accept(store, proposal_id, write_back=True)
    with path.open("ab") as handle:
        handle.write(agent_line(decision.entry_id))
    with pytest.raises(UndoNeedsChoice, match=r"--branch .* or --from-backup"):
        session_writes.undo(store, proposal_id)
    grown = path.read_bytes()
    result = session_writes.undo(store, proposal_id, branch=True)
    assert result.how == "branched" and path.read_bytes().startswith(grown)
    assert build_context(read_session(path).active_path()) == original_context


def test_undo_from_backup_keeps_a_copy_of_what_it_replaces(case: tuple[Path, Store, str]) -> None:
    path, store, proposal_id = case
    original = path.read_bytes()
    decision = review.accept(store, proposal_id, write_back=True)
    with path.open("ab") as handle:
        handle.write(agent_line(decision.entry_id))
    grown = path.read_bytes()
    result = session_writes.undo(store, proposal_id, from_backup=True)
    assert result.how == "restored-backup" and path.read_bytes() == original
    assert any(p.read_bytes() == grown for p in backups_dir().iterdir())
