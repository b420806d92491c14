"""Claude Code and Codex write-back without the programs: what is written, what is refused, and undo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cutline.core import review
from cutline.core.agents import read_session
from cutline.core.agents.claude_code.compaction import KEPT_VERBATIM_NOTE, SUMMARY_OPENING
from cutline.core.agents.codex.compaction import SUMMARY_PREFIX
from cutline.core.agents.registry import adapter_for
from cutline.core.agents.writeback import UndoNeedsChoice
from cutline.core.errors import WriteBackRefused
from cutline.core.store import Store
from cutline.core.writeback import undo
from tests.support.paths import TESTS
from tests.support.writeback import propose

CORPUS = TESTS / "fixtures" / "corpus"


def _case(tmp_path: Path, agent: str) -> Path:
    source, drop = (
        (CORPUS / "claude-code" / "thirdparty" / "session.jsonl", 2)
        if agent == "claude_code"
        else (CORPUS / "codex" / "thirdparty" / "rollout.jsonl", 1)
    )
    path = tmp_path / ("session.jsonl" if agent == "claude_code" else "rollout-x.jsonl")
    path.write_bytes(b"".join(source.read_bytes().splitlines(keepends=True)[:-drop]))
    return path


@pytest.mark.parametrize("agent", ["claude_code", "codex"])
def test_the_plan_says_possible_before_anyone_confirms(agent: str, tmp_path: Path) -> None:
    session = read_session(str(_case(tmp_path, agent)))
    adapter = adapter_for(session.format)
    assert adapter.write_back_refusal() is None
    assert adapter.write_back_plan(session).possible


def test_claude_code_records_and_undo(tmp_path: Path) -> None:
    path = _case(tmp_path, "claude_code")
    original = path.read_bytes()
    with Store(tmp_path / "db") as store:
        proposal = propose(store, path, keep_recent_tokens=60)
        review.accept(store, proposal.id, write_back=True, timestamp="2026-01-01T00:00:00.000Z")
        added = path.read_bytes()[len(original) :].splitlines()
        boundary, summary = (json.loads(x) for x in added)
        assert boundary["subtype"] == "compact_boundary" and boundary["parentUuid"] is None
        leaf = json.loads(original.splitlines()[-1]) if b'"uuid"' in original.splitlines()[-1] else None
        assert boundary["logicalParentUuid"] == proposal.parentEntryId and (leaf is None or leaf.get("uuid"))
        metadata = boundary["compactMetadata"]
        assert metadata["trigger"] == "manual" and metadata["preTokens"] == proposal.tokensBefore
        assert metadata["preservedSegment"]["headUuid"] == proposal.firstKeptEntryId
        assert metadata["preservedSegment"]["anchorUuid"] == summary["uuid"]
        assert metadata["preservedMessages"]["uuids"][0] == proposal.firstKeptEntryId
        text = summary["message"]["content"]
        assert summary["isCompactSummary"] is True and summary["parentUuid"] == boundary["uuid"]
        assert text.startswith(SUMMARY_OPENING) and proposal.summary in text and text.endswith(KEPT_VERBATIM_NOTE)
        assert review.proposal_status(store, proposal.id) == "accepted"
        assert "byte for byte" in undo(store, proposal.id).message
        assert review.proposal_status(store, proposal.id) == "open"
    assert path.read_bytes() == original


def test_codex_record_and_undo_after_the_agent_wrote(tmp_path: Path) -> None:
    path = _case(tmp_path, "codex")
    original = path.read_bytes()
    last = json.loads(original.splitlines()[-1])
    with Store(tmp_path / "db") as store:
        proposal = propose(store, path, keep_recent_tokens=60)
        review.accept(store, proposal.id, write_back=True, timestamp="2026-01-01T00:00:00.000Z")
        record = json.loads(path.read_bytes()[len(original) :])
        assert record["type"] == "compacted" and record["ordinal"] == last["ordinal"] + 1
        history = record["payload"]["replacement_history"]
        assert record["payload"]["message"] == f"{SUMMARY_PREFIX}\n{proposal.summary}"
        assert history[0]["content"][0]["text"] == record["payload"]["message"]
        with path.open("ab") as handle:  # the agent resumed and wrote
            handle.write(b'{"timestamp":"x","ordinal":999,"type":"event_msg","payload":{"type":"task_started"}}\n')
        with pytest.raises(UndoNeedsChoice, match="from-backup"):
            undo(store, proposal.id)
        undo(store, proposal.id, from_backup=True)
    assert path.read_bytes() == original


def test_claude_code_refuses_kept_records_claude_code_would_drop(tmp_path: Path) -> None:
    """Parallel tool calls beside the parent chain are not kept by Claude Code's preservedSegment walk."""
    path = _case(tmp_path, "claude_code")
    original = path.read_bytes()
    with Store(tmp_path / "db") as store:
        proposal = propose(store, path, keep_recent_tokens=1500, rules="pi-0.73")  # a cut among parallel calls
        with pytest.raises(WriteBackRefused, match="beside Claude Code's parent chain"):
            review.accept(store, proposal.id, write_back=True)
    assert path.read_bytes() == original


def test_codex_refuses_a_rollout_without_ordinals(tmp_path: Path) -> None:
    path = _case(tmp_path, "codex")
    lines = [json.loads(x) for x in path.read_bytes().splitlines()]
    for line in lines:
        line.pop("ordinal", None)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    session = read_session(str(path))
    plan = adapter_for("codex").write_back_plan(session)
    assert not plan.possible and "ordinal" in plan.reason
