"""Whether a proposal can be written back, and what undoing it restores, are told without reading the session whole.

Why: `write-back-plan`, the accept preview, `context --proposal`, `undo` and the crash
recovery loaded a 50,000-record Claude Code session whole (~650 MB of models) to ask that
question, or only for its format; the store's header and facts of the path tell it
(`stored_write_back_plan`), as `compact` already does.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

import pytest

from cutline.core import review, workbench
from cutline.core.agents.registry import adapter_for
from cutline.core.agents.writeback import PendingWrite
from cutline.core.session_writes import recover_write_backs, undo, undo_plan
from cutline.core.store import Store
from tests.support.cli import run
from tests.support.grown_sessions import grow
from tests.support.whole_reads import count_whole_reads
from tests.support.writeback import propose, thirdparty_case


def _proposal(capsys: pytest.CaptureFixture[str], file: Path) -> str:
    code, out, err = run(capsys, "compact", "--json", "--keep-recent-tokens", "2000", str(file))
    assert code == 0, err
    return str(json.loads(out)["id"])


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_write_back_plan_reads_no_session_whole(
    agent: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    proposal = _proposal(capsys, grow(agent, 400, tmp_path / f"{agent}.jsonl"))
    whole = count_whole_reads(monkeypatch)
    code, out, err = run(capsys, "write-back-plan", proposal)
    assert code == 0, err
    assert out.startswith("write-back possible ("), out
    assert whole == [], whole


@pytest.mark.parametrize("agent", ["claude_code", "codex"])
def test_undo_and_its_plan_read_no_session_whole(agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`undo` cuts the appended bytes off by its record; the session is looked at only for its agent running."""
    path = thirdparty_case(tmp_path, agent)
    original = path.read_bytes()
    with Store(tmp_path / "db") as store:
        proposal = propose(store, path, keep_recent_tokens=60)
        review.accept(store, proposal.id, write_back=True, timestamp="2026-01-01T00:00:00.000Z")
        assert path.read_bytes() != original
        whole = count_whole_reads(monkeypatch)
        assert "byte for byte" in undo_plan(store, proposal.id).restores
        assert recover_write_backs(store) == []
        assert "byte for byte" in undo(store, proposal.id).message
        assert "load" not in whole, whole  # the file cut back is re-imported afterwards, as after any change
    assert path.read_bytes() == original


@pytest.mark.parametrize("agent", ["claude_code", "codex"])
def test_the_crash_recovery_reads_no_session_whole(agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write-back recorded as pending, nothing written: the recovery forgets it, asking the store only the agent."""
    path = thirdparty_case(tmp_path, agent)
    with Store(tmp_path / "db") as store:
        proposal = propose(store, path, keep_recent_tokens=60)
        session_id = store.resolve_session(str(path))
        size, payload = path.stat().st_size, b'{"never":"written"}\n'
        pending = PendingWrite(
            proposal_id=proposal.id,
            session_id=session_id,
            path=str(path),
            how="append",
            entry_id=proposal.entryId,
            size_before=size,
            sha_before=hashlib.sha256(path.read_bytes()).hexdigest(),
            payload_size=len(payload),
            payload_sha=hashlib.sha256(payload).hexdigest(),
            size_after=size + len(payload),
            sha_after=hashlib.sha256(path.read_bytes() + payload).hexdigest(),
            payload=payload.decode(),
        )
        store.write_backs.record_pending(pending)
        whole = count_whole_reads(monkeypatch)
        said = recover_write_backs(store)
        assert len(said) == 1 and "still open" in said[0], said
        assert whole == [], whole


@pytest.mark.parametrize("agent", ["claude_code", "codex"])
def test_the_accept_preview_and_the_context_after_it_read_no_session_whole(
    agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The line and the plan from stored facts; the context after it reads the file with the line appended."""
    path = thirdparty_case(tmp_path, agent)
    with Store(tmp_path / "db") as store:
        proposal = propose(store, path, keep_recent_tokens=60)
        whole = count_whole_reads(monkeypatch)
        preview = workbench.accept_preview(store, proposal.id, dt.datetime(2026, 1, 2, 3, 4, 5, 678000))
        after = review.context_after_accept(store, proposal.id, timestamp=preview.timestamp)
        assert whole == [], whole
        monkeypatch.undo()
        assert preview.write_back.possible
        assert preview.line == review.preview_entry(store, proposal.id, timestamp=preview.timestamp)
        session = store.load_session(proposal.session_id)
        record = proposal.compaction_record(preview.summary)
        expected = adapter_for(session.format).preview_line(
            session, record, entry_id=proposal.entryId, timestamp=preview.timestamp
        )
        assert preview.line == expected
        assert after is not None
        review.accept(store, proposal.id, write_back=True, timestamp=preview.timestamp)
        assert path.read_text(encoding="utf-8").rstrip("\n").endswith(preview.line)
