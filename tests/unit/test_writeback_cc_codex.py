"""Claude Code and Codex write-back without the programs: what is written, what is refused, and undo."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from cutline.core import review
from cutline.core.agents import read_session
from cutline.core.agents.claude_code.compaction import KEPT_VERBATIM_NOTE, SUMMARY_OPENING
from cutline.core.agents.codex.compaction import SUMMARY_PREFIX
from cutline.core.agents.registry import adapter_for
from cutline.core.agents.writeback import UndoNeedsChoice
from cutline.core.errors import WriteBackRefused
from cutline.core.session_writes import drift_warning, undo
from cutline.core.store import Store
from tests.support.writeback import propose, thirdparty_case


@pytest.mark.parametrize("agent", ["claude_code", "codex"])
def test_the_plan_says_possible_before_anyone_confirms(agent: str, tmp_path: Path) -> None:
    session = read_session(str(thirdparty_case(tmp_path, agent)))
    adapter = adapter_for(session.format)
    assert adapter.write_back_refusal() is None
    assert adapter.write_back_plan(session).possible


def test_claude_code_records_and_undo(tmp_path: Path) -> None:
    path = thirdparty_case(tmp_path, "claude_code")
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
    path = thirdparty_case(tmp_path, "codex")
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
        with pytest.raises(UndoNeedsChoice, match="from-backup") as grew:
            undo(store, proposal.id)
        # Codex has no tree to continue from before the compaction: --branch is refused, so never offered
        assert "--branch" not in str(grew.value) and grew.value.choices == ("from_backup",)
        undo(store, proposal.id, from_backup=True)
    assert path.read_bytes() == original


def test_claude_code_refuses_kept_records_claude_code_would_drop(tmp_path: Path) -> None:
    """Parallel tool calls beside the parent chain are not kept by Claude Code's preservedSegment walk."""
    path = thirdparty_case(tmp_path, "claude_code")
    original = path.read_bytes()
    with Store(tmp_path / "db") as store:
        proposal = propose(store, path, keep_recent_tokens=1500, rules="pi-0.73")  # a cut among parallel calls
        with pytest.raises(WriteBackRefused, match="beside Claude Code's parent chain"):
            review.accept(store, proposal.id, write_back=True)
    assert path.read_bytes() == original


def test_codex_refuses_a_rollout_without_ordinals(tmp_path: Path) -> None:
    path = thirdparty_case(tmp_path, "codex")
    lines = [json.loads(x) for x in path.read_bytes().splitlines()]
    for line in lines:
        line.pop("ordinal", None)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    session = read_session(str(path))
    plan = adapter_for("codex").write_back_plan(session)
    assert not plan.possible and "ordinal" in plan.reason


def _resumed_line(agent: str, last: dict[str, object], text: str) -> dict[str, object]:
    """A record appended after `last` as the agent appends it (Claude Code links it; Codex numbers it)."""
    if agent == "codex":
        ordinal = last["ordinal"]
        assert isinstance(ordinal, int)
        return {
            "timestamp": "2026-01-01T00:00:01.000Z",
            "ordinal": ordinal + 1,
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
        }
    return {
        "parentUuid": last["uuid"],
        "isSidechain": False,
        "type": "user",
        "message": {"role": "user", "content": text},
        "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, text)),
        "timestamp": "2026-01-01T00:00:01.000Z",
        "sessionId": last["sessionId"],
    }


def _last_record(data: bytes, agent: str) -> dict[str, object]:
    records = [json.loads(x) for x in data.splitlines()]
    return next(r for r in reversed(records) if agent == "codex" or r.get("uuid"))


@pytest.mark.parametrize("agent", ["claude_code", "codex"])
def test_drift_warned_when_the_agent_kept_writing_past_the_compaction(agent: str, tmp_path: Path) -> None:
    """Found by what the store recorded as written, not the proposal's entry id (Claude Code's and Codex's differ)."""
    path = thirdparty_case(tmp_path, agent)
    before = _last_record(path.read_bytes(), agent)  # what a still-running agent holds as its last record
    with Store(tmp_path / "db") as store:
        proposal = propose(store, path, keep_recent_tokens=60)
        review.accept(store, proposal.id, write_back=True, timestamp="2026-01-01T00:00:00.000Z")
        done = store.write_backs.get(proposal.id)
        assert done is not None and done[1].first_line is not None
        assert drift_warning(store, proposal.id) is None
        written = path.read_bytes()

        # resumed from the compaction: the agent goes on after the written records, no warning
        with path.open("ab") as handle:
            handle.write(json.dumps(_resumed_line(agent, _last_record(written, agent), "resumed")).encode() + b"\n")
        store.import_file(path)
        assert drift_warning(store, proposal.id) is None

        # an agent that kept running goes on from its own last record, past the compaction
        path.write_bytes(written)
        with path.open("ab") as handle:
            handle.write(json.dumps(_resumed_line(agent, before, "still running")).encode() + b"\n")
        store.import_file(path)
        warning = drift_warning(store, proposal.id)
    assert warning is not None and "make a new proposal, or undo this one" in warning
