"""The audit, the replay and every command that plans use the rules of the agent version that wrote the session.

Corpus sessions written by pi 0.73.1 and pi 0.87.1 (tests/fixtures/corpus) tell their
writer: pi 0.87 writes a system entry when a session starts, pi 0.73 does not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cutline.core.agents import read_session
from cutline.core.audit.replay import replay
from cutline.core.audit.report import OPEN_END, audit_compaction, path_to, rule_reproducing_ranges
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.plan import index_path, plan
from cutline.core.engine.rules.choice import written_by
from tests.support.paths import TESTS
from tests.unit.test_cli_qa import run

CORPUS = TESTS / "fixtures" / "corpus"
PI_073 = CORPUS / "pi-0.73" / "main" / "session.jsonl"
PI_087 = CORPUS / "pi-0.87" / "main" / "session.jsonl"
SESSIONS_RULES = TESTS / "golden" / "sessions-rules"


def test_the_file_tells_which_version_wrote_it_and_the_rest_is_said_to_be_assumed() -> None:
    old, new = read_session(PI_073), read_session(PI_087)
    assert written_by(old.active_path(), "pi").rules == "pi-0.73"
    assert written_by(new.active_path(), "pi")[:2] == ("pi", "a system entry: current pi (0.87 or later) wrote it")
    edit = read_session(CORPUS / "pi-0.87" / "context-edit" / "session.jsonl").active_path()
    assert written_by([e for e in edit if e.role != "system"], "pi").reason.startswith("context_edit entries")
    # a compaction carrying pi 0.87's systemMessage tells on its own
    compaction = next(e for e in new.active_path() if e.type == "compaction")
    assert written_by([compaction], "pi").reason.startswith("a compaction with a systemMessage")
    reset = read_session(SESSIONS_RULES / "openclaw-reset.jsonl").active_path()
    assert written_by(reset, "pi").rules == "openclaw-2026.9"
    assert written_by(old.active_path(), "pi", version=4).rules == "openclaw-2026.9"
    assumed = written_by(old.active_path(), "claude_code", setting="pi-0.73")
    assert assumed.rules == "pi-0.73" and not assumed.told and assumed.reason.startswith("assumed (the rules setting)")
    assert written_by(new.active_path(), "pi", override="pi-0.73") == ("pi-0.73", "given explicitly", True)


@pytest.mark.parametrize(("source", "rules"), [(PI_073, "pi-0.73"), (PI_087, "pi")])
def test_the_audit_explains_a_past_compaction_with_its_writers_rules(source: Path, rules: str) -> None:
    report = audit_compaction(read_session(source))
    assert report.why.rules == rules and report.why.reproduced
    data = report.to_json()
    assert data["rules"] == rules and "wrote it" in data["rulesReason"]
    # a pinned setting does not change what the file tells
    assert (
        audit_compaction(read_session(source), settings=CompactionSettings(rules="openclaw-2026.9")).why.rules == rules
    )


def test_the_reproducing_range_of_current_pi_is_its_own() -> None:
    session = read_session(PI_087)
    report = audit_compaction(session)
    full = path_to(session, report.target_id)
    index = index_path(full[:-1])
    first_kept = index.index_of(report.first_kept_entry_id or "")
    ranges = rule_reproducing_ranges(index, CompactionSettings(), "pi", first_kept)
    assert ranges == report.why.reproducing_ranges and len(ranges) == 1
    lo, hi = ranges[0]

    def cut(keep: int) -> int | None:
        return plan(index, CompactionSettings(keepRecentTokens=keep), rules="pi").firstKeptPathIndex

    assert cut(lo) == cut(hi) == first_kept and cut(lo - 1) != first_kept
    assert hi == OPEN_END or cut(hi + 1) != first_kept


def test_the_replay_plans_every_compaction_with_the_writers_rules() -> None:
    assert replay(read_session(PI_073)).rules == "pi-0.73"
    new = replay(read_session(PI_087), CompactionSettings(contextWindow=1500, reserveTokens=200, keepRecentTokens=100))
    assert new.rules == "pi" and new.compactions
    assert replay(read_session(PI_087), rules="pi-0.73").rules == "pi-0.73"


def test_audit_timeline_and_compact_take_rules(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    code, out, err = run(capsys, "audit", str(PI_087), "--json", "--db", db)
    assert code == 0, err
    assert json.loads(out)["rules"] == "pi"
    code, out, err = run(capsys, "audit", str(PI_087), "--rules", "pi-0.73", "--json", "--db", db)
    data = json.loads(out)
    assert code == 0 and data["rules"] == "pi-0.73" and data["rulesReason"] == "given explicitly"
    code, out, err = run(capsys, "audit", str(PI_073), "--db", db)
    assert code == 0 and "  rules pi-0.73: no system entry, which pi 0.87 and later write" in out
    code, out, err = run(capsys, "timeline", str(PI_087), "--replay", "--rules", "pi-0.73", "--json", "--db", db)
    assert code == 0 and json.loads(out)["replay"]["rules"] == "pi-0.73"
    code, out, err = run(capsys, "timeline", str(PI_073), "--replay", "--db", db)
    assert code == 0 and "replayed with the rules of pi-0.73 (no system entry" in out
    source = SESSIONS_RULES / "pi-current-features.jsonl"
    code, out, err = run(capsys, "compact", str(source), "--keep-recent-tokens", "100", "--db", db)
    assert code == 0 and "  rules pi  " in out, err
    code, out, err = run(
        capsys, "compact", str(source), "--keep-recent-tokens", "100", "--rules", "pi-0.73", "--json", "--db", db
    )
    assert code == 0 and json.loads(out)["rules"] == "pi-0.73", err
