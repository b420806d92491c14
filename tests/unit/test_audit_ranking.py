"""The audit's score ranks summaries as the truth does: a good model summary above the offline one, a bad one below.

On the truth set's tune sessions that have a thorough and a deliberately bad hand-judged
model summary (bench/truth/hand.py, judged by reading), next to the offline extractive
summary of the same span. The held-out sessions are reported by bench/bench_audit_truth.py,
not tested here (never tuned on).
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

from tests.support.bench_scripts import bench_script
from tests.support.paths import ROOT

TRUTH = ROOT / "tests" / "fixtures" / "truth"


def _bench() -> ModuleType:
    return bench_script("bench_audit_truth")


def _tune_rows(round_: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """An implicit-facts round's tune sessions and, per session, the truth's and the audit's scores of its good,
    offline and bad summaries (bench_audit_truth.py's `implicit_order`)."""
    bench = _bench()
    sessions = bench.load_implicit(("tune",), round_)
    wanted = bench.implicit_jobs(sessions)
    results = bench.measure(wanted)
    for result, job in zip(results, wanted, strict=True):
        result["summary"] = job["summary"]
    return sessions, bench.implicit_order({r["job"]: r for r in results}, "tune", round_)


def test_a_good_model_summary_outscores_the_offline_one_which_outscores_a_bad_one() -> None:
    bench = _bench()
    key = json.loads((TRUTH / "key.json").read_text(encoding="utf-8"))
    hand = json.loads((TRUTH / "hand.json").read_text(encoding="utf-8"))
    sessions = {h["session"] for h in hand if h["split"] == "tune" and h.get("role")}
    assert len(sessions) >= 2
    wanted = [
        j
        for j in bench.jobs({**key, "sessions": [s for s in key["sessions"] if s["id"] in sessions]}, hand, True)
        if j["name"].split(":", 1)[1] in sessions and not j["name"].startswith("planted:")
    ]
    results = bench.measure(wanted)
    for result, job in zip(results, wanted, strict=True):
        result["summary"] = job["summary"]
    rows = bench.between(key, hand, {r["job"]: r for r in results}, "tune")
    assert len(rows) == len(sessions)
    for row in rows:
        assert row["truth_ordered"], row  # the truth set holds a truly better and a truly worse summary
        scores = {role: round(row[role]["audit"], 3) for role in ("good", "offline", "bad")}
        assert row["ordered"], (
            f"{row['session']}: audit scores {scores}, truth {row['good']['truth']:.2f} > {row['offline']['truth']:.2f} > {row['bad']['truth']:.2f}"
        )


def test_on_implicit_facts_the_audit_puts_the_offline_summary_below_a_good_one_and_above_a_bad_one() -> None:
    """The implicit-facts part's tune sessions (bench/truth/implicit.py): the truth orders good >= offline > bad.

    Since the offline summary keeps the implicit facts (core/summarizers/implicit_facts.py) the truth puts it
    level with the good one in every tune session; the audit, which keeps a good summary's clear rewordings
    (core/audit/rewording.py), puts them level too (within 0.05) and the bad one below both: every pair is
    ordered as the truth orders it. (Before the rewordings were kept, the audit scored the good summaries
    0.85-0.91 and this test held a level pair only to not putting the offline summary below the good one.)"""
    sessions, rows = _tune_rows(1)
    assert len(sessions) == 6
    assert len(rows) == len(sessions)
    for row in rows:
        assert row["truth_ordered"], row
        scores = {role: round(row[role]["audit"], 3) for role in ("good", "offline", "bad")}
        assert row["ordered"], f"{row['session']}: audit scores {scores}"
        assert scores["offline"] >= scores["good"] - 0.05, f"{row['session']}: audit scores {scores}"
        assert scores["good"] > scores["bad"] and scores["offline"] > scores["bad"], f"{row['session']}: {scores}"


def test_on_the_second_round_of_implicit_facts_the_audit_orders_the_summaries_as_the_truth_does() -> None:
    """Round 2's tune sessions (bench/truth/implicit2.py: pi, Claude Code and Codex): every pair of the good, offline
    and bad summaries ordered as the truth orders it (level within 0.05 where the truth puts them level). With main's
    audit before issue 23's round 2 (questions read as open tasks and contradicted, "I'll read X first" taken as a
    decision, answers judged by their reasons), 0 of 6."""
    sessions, rows = _tune_rows(2)
    assert len(sessions) == 6 and {s["format"] for s in sessions} == {"pi", "claude_code", "codex"}
    assert len(rows) == len(sessions)
    for row in rows:
        scores = {role: round(row[role]["audit"], 3) for role in ("good", "offline", "bad")}
        assert row["truth_ordered"] and row["ordered"], f"{row['session']}: audit scores {scores}"


def test_on_the_third_round_of_implicit_facts_the_audit_orders_the_summaries_as_the_truth_does_but_one() -> None:
    """Round 3's tune sessions (bench/truth/implicit3.py): every pair ordered as the truth orders it but in chessclub.
    With main's audit before round 3, 4 of 6 (tramtimes: a rule asked as "could X stay as they are?" restated "leave
    them unchanged" reported lost, a failed attempt "was refused" read as a task stated done; chessclub). chessclub
    is the known miss: its good summary writes "last season" as "2025" and the copy command `cp ratings.db …` as
    "a copy in /tmp", the offline one drops the file's role (audit 0.91 against 0.93)."""
    sessions, rows = _tune_rows(3)
    assert len(sessions) == 6 and {s["format"] for s in sessions} == {"pi", "claude_code", "codex"}
    assert len(rows) == len(sessions) and all(row["truth_ordered"] for row in rows)
    missed = {row["session"].rsplit("-", 1)[1]: row for row in rows if not row["ordered"]}
    assert set(missed) <= {"chessclub"}, {
        name: {r: row[r] for r in ("good", "offline", "bad")} for name, row in missed.items()
    }


def test_a_pair_the_truth_puts_level_agrees_unless_the_audit_puts_it_the_other_way_round() -> None:
    agrees = _bench()._agrees
    # the truth puts the good summary 0.04 above the offline one (level); the audit puts it 0.08 above: the same way
    assert agrees(0.04, 0.08)
    assert agrees(0.04, 0.0) and agrees(0.0, -0.04) and agrees(-0.04, 0.04)
    # level for the truth, but the audit puts it the other way round by more than 0.05
    assert not agrees(0.04, -0.08)
    assert not agrees(-0.04, 0.08)
    # a pair the truth orders must be ordered the same way
    assert agrees(0.3, 0.01) and not agrees(0.3, -0.01) and not agrees(0.3, 0.0)


def test_the_tables_read_only_the_implicit_rounds_asked_for(monkeypatch: Any) -> None:
    # a held-out round left out of a run is not even opened: `score` asks `implicit_order` for the rounds given only
    bench = _bench()
    asked: list[int] = []

    def order(by_job: dict[str, Any], split: str, round_: int = 1) -> list[dict[str, Any]]:
        asked.append(round_)
        return []

    monkeypatch.setattr(bench, "implicit_order", order)
    for name in ("ranking", "between", "hand_reports"):
        monkeypatch.setattr(bench, name, lambda *a, **k: [])
    bench.score({"sessions": [], "facts": []}, [], [], [1, 3])
    assert sorted(set(asked)) == [1, 3]
