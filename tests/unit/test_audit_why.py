"""The why: when no reasonable keepRecentTokens reproduces a past cut under the assumed rules, the rule set that does is named."""

from __future__ import annotations

from pathlib import Path

from cutline.core.agents import read_session
from cutline.core.audit.report import audit_compaction

ROOT = Path(__file__).resolve().parents[2]
PI_087 = ROOT / "tests" / "fixtures" / "corpus" / "pi-0.87" / "main" / "session.jsonl"


def test_a_cut_pi_087_made_is_traced_back_to_its_rules_when_pi_073s_are_assumed() -> None:
    # written by pi 0.87.1 itself (keepRecentTokens 60): under pi 0.73's walk only 8-13 reproduces the cut
    session = read_session(PI_087)
    why = audit_compaction(session, "844b772a", rules="pi-0.73").why
    assert why.rules == "pi-0.73" and why.reproducing_ranges == [(8, 13)]
    assert why.other_rules == "pi" and why.other_rules_ranges == [(8, 1213)]
    assert any("that rule set probably wrote it (audit with --rules pi)" in step for step in why.steps)
    # with the rules the file shows, the cut is reproduced and nothing more is said
    own = audit_compaction(session, "844b772a").why
    assert own.rules == "pi" and own.other_rules is None
    assert not any("no reasonable keepRecentTokens" in step for step in own.steps)


def test_a_cut_no_rule_set_reproduces_reasonably_is_said_so() -> None:
    why = audit_compaction(read_session(ROOT / "sample_sessions" / "pi-v1-legacy.jsonl")).why
    assert why.reproducing_ranges == [(94, 104)] and why.other_rules is None
    assert any("none of the other rule sets does either" in step for step in why.steps)
