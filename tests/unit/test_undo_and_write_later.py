"""Undo's plan and choices, "accept into the store only, write back later", and `ls` after an undo (issue 27, items 1 and 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cutline.core import review, workbench
from cutline.core.agents.writeback import UndoNeedsChoice
from cutline.core.errors import CutlineError, NotFoundError
from cutline.core.store import Store
from tests.support.cli import run
from tests.support.paths import TESTS
from tests.support.writeback import propose

CORPUS = TESTS / "fixtures" / "corpus"


@pytest.fixture
def case(tmp_path: Path) -> tuple[Path, Path, str]:
    """A pi 0.73 session right before its compaction, imported, with a proposal; the file, the store and the id."""
    lines = (CORPUS / "pi-0.73" / "main" / "after-manual-compact.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "pi.jsonl"
    path.write_bytes(b"".join(lines[:-1]))
    db = tmp_path / "cutline.db"
    with Store(db) as store:
        proposal_id = propose(store, path).id
    return path, db, proposal_id


def agent_line(parent: str) -> bytes:
    record = {
        "type": "message",
        "id": "a9e00001",
        "parentId": parent,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "agent line"}], "timestamp": 1},
    }
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def ls_row(capsys: pytest.CaptureFixture[str], db: Path) -> str:
    code, out, _ = run(capsys, "ls", "--db", str(db))
    assert code == 0
    [row] = [line for line in out.splitlines()[1:] if line.strip()]
    return row


def test_after_undo_ls_and_the_store_say_undone_and_the_proposal_is_open(
    tmp_path: Path, case: tuple[Path, Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, db, proposal_id = case
    original = path.read_bytes()
    assert run(capsys, "accept", proposal_id, "--write-back", "--anyway", "--db", str(db))[0] == 0
    assert " accepted " in ls_row(capsys, db)
    code, out, _ = run(capsys, "undo", proposal_id, "--db", str(db))
    assert code == 0 and "byte for byte" in out and path.read_bytes() == original
    row = ls_row(capsys, db)
    assert " undone " in row and " accepted " not in row, row
    with Store(db) as store:
        [info] = store.list_sessions()
        assert info.last_decision == "undone" and info.open_proposals == 1
        assert review.proposal_status(store, proposal_id) == "open"
    # accepted again: the newest decision is what is said
    assert run(capsys, "accept", proposal_id, "--db", str(db))[0] == 0
    assert " accepted " in ls_row(capsys, db)


def test_undo_plan_says_what_is_restored_and_from_where_and_refuses_as_undo_does(
    case: tuple[Path, Path, str],
) -> None:
    path, db, proposal_id = case
    before = path.stat().st_size
    with Store(db) as store:
        with pytest.raises(NotFoundError, match="was not written back by cutline"):
            workbench.undo_plan(store, proposal_id)
        review.accept(store, proposal_id, write_back=True)
        after = path.stat().st_size
        plan = workbench.undo_plan(store, proposal_id)
        assert plan.path == str(path) and plan.branches, "pi can continue from before the compaction"
        assert f"{before:,} bytes it had before" in plan.restores
        assert f"{after - before:,} bytes cutline appended" in plan.restores
        assert plan.backup_path is not None and Path(plan.backup_path).read_bytes() == path.read_bytes()[:before]
        assert path.stat().st_size == after, "planning writes nothing"
        workbench.undo(store, proposal_id)
        with pytest.raises(CutlineError, match="undone already"):
            workbench.undo_plan(store, proposal_id)


def test_undo_needing_a_choice_names_the_choices_it_offers(case: tuple[Path, Path, str]) -> None:
    path, db, proposal_id = case
    with Store(db) as store:
        decision = review.accept(store, proposal_id, write_back=True)
        assert decision.entry_id is not None
        with path.open("ab") as handle:
            handle.write(agent_line(decision.entry_id))
        with pytest.raises(UndoNeedsChoice) as grew:
            workbench.undo(store, proposal_id)
        assert grew.value.choices == ("branch", "from_backup")
        with path.open("r+b") as handle:  # an earlier byte changed: no branch can continue it, only the backup
            handle.write(b" ")
        with pytest.raises(UndoNeedsChoice) as changed:
            workbench.undo(store, proposal_id)
        assert changed.value.choices == ("from_backup",)


def test_accepted_into_the_store_only_then_written_back_later_and_undone(
    case: tuple[Path, Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, db, proposal_id = case
    original = path.read_bytes()
    assert run(capsys, "accept", proposal_id, "--db", str(db))[0] == 0
    assert path.read_bytes() == original, "the store only"
    with Store(db) as store:
        assert workbench.written_back_to(store, proposal_id) is None
        summary = review.latest_version(store, proposal_id).text
    code, out, _ = run(
        capsys, "accept", proposal_id, "--write-back", "--anyway", "--db", str(db)
    )  # later, from the CLI
    assert code == 0 and "written to" in out, out
    last = json.loads(path.read_bytes().splitlines()[-1])
    assert last["type"] == "compaction" and last["summary"] == summary
    assert path.read_bytes().startswith(original)
    with Store(db) as store:
        assert review.proposal_status(store, proposal_id) == "accepted"
        assert workbench.written_back_to(store, proposal_id) == str(path)
        with pytest.raises(CutlineError, match="written back already"):
            workbench.write_back_later(store, proposal_id)
        workbench.undo(store, proposal_id)
        assert path.read_bytes() == original
        assert review.proposal_status(store, proposal_id) == "open"
        with pytest.raises(CutlineError, match="open, not accepted into the store only"):
            workbench.write_back_later(store, proposal_id)
        # accepted into the store only again, then written back: the record of the earlier write-back is no obstacle
        review.accept(store, proposal_id, write_back=False)
        workbench.write_back_later(store, proposal_id)
        assert path.read_bytes().startswith(original) and len(path.read_bytes()) > len(original)
