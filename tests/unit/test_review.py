"""Proposals in the store: versions, diffs, reverts, decisions, refusals, the entry preview, the CLI."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import multiprocessing
from pathlib import Path

import pytest
from click.testing import CliRunner

from cutline.core import review
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compact import compact
from cutline.core.engine.plan import plan
from cutline.core.errors import CutlineError
from cutline.core.models import Message, TextBlock
from cutline.core.store import Store
from tests.golden_writeback.make_session import write_session
from tests.golden_writeback.writeback import FixedSummarizer


@pytest.fixture
def made(tmp_path):
    """A stored session file and an open proposal for it."""
    path = write_session(tmp_path / "session.jsonl")
    store = Store(tmp_path / "cutline.db")
    session = store.load_session(store.import_file(path).session_id)
    settings = CompactionSettings(keepRecentTokens=300)
    the_plan = plan(session.active_path(), settings)
    proposal = asyncio.run(compact(the_plan, session, FixedSummarizer(), settings, today=dt.date(2026, 1, 1)))
    review.save_proposal(store, proposal)
    yield store, proposal, path
    store.close()


def test_versions_diff_and_revert(made):
    store, proposal, _ = made
    first = review.versions(store, proposal.id)
    assert [(v.n, v.origin) for v in first] == [(1, "generated")]
    assert first[0].text == proposal.summary
    edited = review.add_version(store, proposal.id[:12], "## Goal\nfix the parser tests\nand keep the API")
    assert (edited.n, edited.origin) == (2, "edited")
    v1 = review.SummaryVersion(proposal_id="p", n=1, created_at="", origin="generated", text="a\nb\n")
    v2 = review.SummaryVersion(proposal_id="p", n=2, created_at="", origin="edited", text="a\nc\n")
    assert review.diff_versions(v1, v2) == "--- v1 (generated)\n+++ v2 (edited)\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    back = review.revert(store, proposal.id, 1)
    assert (back.n, back.origin, back.text) == (3, "reverted", proposal.summary)
    assert review.latest_version(store, proposal.id).n == 3


def _add_versions(db: str, proposal_id: str, count: int) -> None:
    store = Store(db)
    for i in range(count):
        review.add_version(store, proposal_id, f"text {i}")
    store.close()


def test_two_processes_adding_versions_never_share_a_number(made, tmp_path):
    store, proposal, _ = made
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=_add_versions, args=(str(tmp_path / "cutline.db"), proposal.id, 15)) for _ in range(2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [w.exitcode for w in workers] == [0, 0]
    assert [v.n for v in review.versions(store, proposal.id)] == list(range(1, 32))


def test_preview_is_exactly_the_appended_line(made):
    store, proposal, path = made
    review.add_version(store, proposal.id, "## Goal\nedited summary")
    stamp = "2026-02-02T02:02:02.000Z"
    line = review.preview_entry(store, proposal.id, timestamp=stamp)
    decision = review.accept(store, proposal.id, write_back=True, timestamp=stamp)
    assert path.read_text(encoding="utf-8").splitlines()[-1] == line
    fields = json.loads(line)
    assert list(fields)[:4] == ["type", "id", "parentId", "timestamp"]
    assert fields["summary"] == "## Goal\nedited summary" and fields["id"] == decision.entry_id
    assert decision.version == 2


def test_accept_refuses_decided_invalid_empty_and_moved_on(made, tmp_path):
    store, proposal, path = made
    review.add_version(store, proposal.id, "   ")
    with pytest.raises(review.InvalidProposal, match="the summary is empty"):
        review.accept(store, proposal.id)
    review.add_version(store, proposal.id, "fine")

    broken = proposal.model_copy(deep=True)
    broken.id = "0" * 20
    broken.context.insert(1, Message(role="toolResult", toolCallId="gone", content=[TextBlock(text="x")]))
    review.save_proposal(store, broken)
    with pytest.raises(review.InvalidProposal, match=r"orphan|not in the context"):
        review.accept(store, broken.id)

    size = path.stat().st_size
    decision = review.reject(store, proposal.id, note="too vague")
    assert decision.decision == "rejected" and path.stat().st_size == size
    with pytest.raises(review.ProposalDecided, match="already rejected"):
        review.accept(store, proposal.id)
    with pytest.raises(review.ProposalDecided):
        review.add_version(store, proposal.id, "late edit")

    moved = proposal.model_copy(deep=True)
    moved.id = "1" * 20
    moved.parentEntryId = "e0000009"
    review.save_proposal(store, moved)
    with pytest.raises(CutlineError, match="moved on"):
        review.accept(store, moved.id, write_back=True)


def test_accept_without_write_back_leaves_the_file(made):
    store, proposal, path = made
    before = path.read_bytes()
    decision = review.accept(store, proposal.id, write_back=False, note="recorded only")
    assert path.read_bytes() == before
    assert decision.written_to is None and decision.entry_id is None
    assert review.decisions(store, proposal.id)[0].note == "recorded only"
    (info,) = review.list_proposals(store, str(path))
    assert (info.status, info.versions, info.valid, info.mode) == ("accepted", 1, True, "pi")


def test_unknown_proposal(made):
    store, _, _ = made
    with pytest.raises(CutlineError, match="no proposal matches 'zzz'"):
        review.accept(store, "zzz")


def test_cli_compact_accept_proposals(tmp_path: Path):
    from cutline.app.cli import cli

    path = write_session(tmp_path / "session.jsonl")
    db = str(tmp_path / "cli.db")
    runner = CliRunner()
    made = runner.invoke(cli, ["compact", str(path), "--keep-recent-tokens", "300", "--json", "--db", db])
    assert made.exit_code == 0, made.output
    proposal = json.loads(made.output)
    assert proposal["firstKeptEntryId"] == "e000000a" and proposal["validation"]["ok"] is True
    listed = runner.invoke(cli, ["proposals", str(path), "--json", "--db", db])
    assert [p["id"] for p in json.loads(listed.output)] == [proposal["id"]]
    accepted = runner.invoke(cli, ["accept", proposal["id"][:14], "--write-back", "--db", db])
    assert accepted.exit_code == 0, accepted.output
    assert accepted.output.startswith(f"accepted {proposal['id']} (summary version 1); compaction entry ")
    assert json.loads(path.read_text().splitlines()[-1])["type"] == "compaction"
    again = runner.invoke(cli, ["reject", proposal["id"], "--db", db])
    assert again.exit_code != 0 and "already accepted" in str(again.exception)


def test_cli_compact_with_anthropic_needs_a_key(tmp_path: Path):
    from cutline.app.cli import cli

    path = write_session(tmp_path / "session.jsonl")
    result = CliRunner().invoke(
        cli, ["compact", str(path), "--summarizer", "anthropic", "--db", str(tmp_path / "c.db")]
    )
    assert result.exit_code != 0
    assert str(result.exception) == "the anthropic summarizer needs ANTHROPIC_API_KEY in the environment"


class _LockCheckedConnection:
    """The store's connection, refusing any statement run without the store's lock held."""

    def __init__(self, conn, lock) -> None:
        self._conn, self._lock = conn, lock
        self.statements = 0

    def _check(self) -> None:
        assert self._lock._is_owned(), "SQL ran without the store's lock"
        self.statements += 1

    def execute(self, *args):
        self._check()
        return self._conn.execute(*args)

    def executemany(self, *args):
        self._check()
        return self._conn.executemany(*args)

    def __getattr__(self, name):
        return getattr(self._conn, name)


def test_every_review_statement_runs_under_the_stores_lock(made):
    store, proposal, _ = made
    checked = _LockCheckedConnection(store.database.conn, store.database.lock)
    store.database.conn = checked
    review.add_version(store, proposal.id, "## Goal\nunder the lock")
    assert [v.n for v in review.versions(store, proposal.id[:10])] == [1, 2]
    assert review.latest_version(store, proposal.id).text == "## Goal\nunder the lock"
    assert review.proposal_status(store, proposal.id) == "open"
    assert [p.id for p in review.list_proposals(store, proposal.session_id)] == [proposal.id]
    review.accept(store, proposal.id, write_back=False)
    assert [d.decision for d in review.decisions(store, proposal.id)] == ["accepted"]
    assert checked.statements > 10
