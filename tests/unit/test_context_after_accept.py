"""The context after a proposal is written back is known before it is: it equals what reading the written file gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cutline.app.cli import cli
from cutline.core import review
from cutline.core.agents import read_session, session_wire_context
from cutline.core.agents.wire import context_json
from cutline.core.store import Store
from tests.support.openclaw_store import copy_store, session_rows, without_last_event
from tests.support.paths import SAMPLES, TESTS
from tests.support.writeback import propose

STAMP = "2026-11-24T12:00:00.000Z"
CORPUS = TESTS / "fixtures" / "corpus"


def _copy(tmp_path: Path, source: Path, name: str, drop: int = 0) -> Path:
    lines = source.read_bytes().splitlines(keepends=True)
    path = tmp_path / name
    path.write_bytes(b"".join(lines[: len(lines) - drop]))
    return path


CASES = {
    "pi v3": (SAMPLES / "pi-coding-session.jsonl", "pi.jsonl", 0, 2000, None),
    "pi 0.87": (CORPUS / "pi-0.87" / "context-edit" / "session.jsonl", "pi087.jsonl", 0, 1000, None),
    "claude code": (CORPUS / "claude-code" / "thirdparty" / "session.jsonl", "session.jsonl", 2, 60, None),
    "codex": (CORPUS / "codex" / "thirdparty" / "rollout.jsonl", "rollout-x.jsonl", 1, 60, None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_context_after_accepting_is_what_the_written_file_gives(tmp_path: Path, case: str) -> None:
    source, name, drop, keep, rules = CASES[case]
    path = _copy(tmp_path, source, name, drop)
    with Store(tmp_path / "db") as store:
        proposal = propose(store, path, keep_recent_tokens=keep, rules=rules)
        predicted = review.context_after_accept(store, proposal.id, timestamp=STAMP)
        assert predicted is not None
        before = session_wire_context(read_session(path))
        review.accept(store, proposal.id, write_back=True, timestamp=STAMP)
    written = session_wire_context(read_session(path))
    assert context_json(predicted) == context_json(written)
    assert context_json(predicted) != context_json(before)  # the proposal changes what is sent


# corpus store, whether its last event (a compaction) is taken out first, keepRecentTokens
OPENCLAW = {
    "final": ("main/session.sqlite", False, 200),
    "before the manual compaction": ("main/after-manual-compact.sqlite", True, 16000),
    "before the third-party compaction": ("thirdparty/session.sqlite", True, 200),
}
OPENCLAW_SESSION = "cde7b62f-b5d2-453a-a896-24ee78fd4b51"


@pytest.mark.parametrize("case", sorted(OPENCLAW))
def test_the_context_after_accepting_is_what_the_written_openclaw_store_gives(tmp_path: Path, case: str) -> None:
    """OpenClaw takes a compaction as rows inserted into its store: predicted from those rows, the store untouched."""
    source, uncompact, keep = OPENCLAW[case]
    copy = without_last_event if uncompact else lambda a, b, _: copy_store(a, b)
    db = copy(CORPUS / "openclaw" / source, tmp_path / "agent.sqlite", OPENCLAW_SESSION)
    ref = f"{db}#{OPENCLAW_SESSION}"
    rows = session_rows(db, OPENCLAW_SESSION)
    with Store(tmp_path / "db") as store:
        proposal = propose(store, Path(ref), keep_recent_tokens=keep, rules="openclaw-2026.9")
        predicted = review.context_after_accept(store, proposal.id, timestamp=STAMP)
        assert predicted is not None
        assert session_rows(db, OPENCLAW_SESSION) == rows, "predicting writes nothing"
        before = session_wire_context(read_session(ref))
        review.accept(store, proposal.id, write_back=True, timestamp=STAMP)
    written = session_wire_context(read_session(ref))
    assert context_json(predicted) == context_json(written)
    assert context_json(predicted) != context_json(before)
    assert len(predicted.messages) > 1, "the prediction keeps messages after the summary"


def test_context_command_prints_the_context_after_a_proposal(tmp_path: Path) -> None:
    path = _copy(tmp_path, SAMPLES / "pi-coding-session.jsonl", "pi.jsonl")
    with Store() as store:
        proposal = propose(store, path, keep_recent_tokens=2000)
    result = CliRunner().invoke(cli, ["context", "--proposal", proposal.id, "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    with Store() as store:
        assert shown == context_json(review.context_after_accept(store, proposal.id) or pytest.fail("no context"))
    assert "compacted into the following summary" in json.dumps(shown["messages"][0])
    neither = CliRunner().invoke(cli, ["context"])
    assert neither.exit_code != 0 and "give a SESSION, or --proposal" in neither.output
