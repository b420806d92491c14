"""How far the loss audit's verdicts agree with the truth set (bench/truth), before and after, in one run.

    python bench/bench_audit_truth.py [--baseline REV] [--json]

"Before" is the audit of git revision REV (default: the merge base with main), unpacked
to a temporary folder and run in a child process; "after" is the working tree. Both
audit the same 24 sessions of tests/fixtures/truth. A reported fact is matched to a
planted one by the planted fact's anchors; a planted fact's audit verdict is the worst of
its matched reports (contradicted > lost > reworded > kept), "kept" when nothing matched.

Printed: precision and recall of "lost or contradicted" per kind and per treatment,
tune and held-out apart; correct rewordings reported lost; contradictions caught;
noise reported; the share of reported losses truly lost on the hand-judged summaries;
and whether the audit's score ranks summaries as the truth does (pairs of summaries of
one session: the planted one, the offline extractive one, the hand-written ones).

Last, the implicit-facts part (tests/fixtures/truth/implicit/, bench/truth/implicit.py; its
second to fifth rounds, in pi, Claude Code and Codex format, tests/fixtures/truth/implicit2/ to
implicit5/, bench/truth/implicit2.py to implicit5.py; rounds 4 and 5 are all held out, written blind, and round 4
is spent since audit5 read it): per session its good, offline (extractive, with the prompt of the
session's agent) and bad summaries, the truth's scores (the regex judges) and the audit's, and
how often the audit orders them as the truth does, per round, tune and held out apart
(`--implicit tune` audits the tune sessions only, `--implicit-rounds 2` the second round only).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from io import BytesIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TRUTH = ROOT / "tests" / "fixtures" / "truth"
IMPLICIT = TRUTH / "implicit"
# the implicit-facts rounds: the folder of each, and the prefix of its keys in the table
IMPLICIT_ROUNDS = {
    1: (IMPLICIT, "implicit"),
    2: (TRUTH / "implicit2", "implicit2"),
    3: (TRUTH / "implicit3", "implicit3"),
    4: (TRUTH / "implicit4", "implicit4"),
    5: (TRUTH / "implicit5", "implicit5"),
}
# rounds whose held-out sessions were read and diagnosed after their measurements (rounds 1-3 by helper `audit4`,
# round 4 by helper `audit5`, 2026-12-03): no longer held out (bench/truth/README.md)
SPENT = frozenset({"implicit", "implicit2", "implicit3", "implicit4"})
PROMPT_FOR_FORMAT = {"pi": "pi-checkpoint", "claude_code": "claude-code", "codex": "codex"}
ROLES = ("good", "offline", "bad")
RANK = {"kept": 0, "reworded": 1, "lost": 2, "contradicted": 3}
POSITIVE = ("lost", "contradicted")


# ---------------------------------------------------------------------------
# Measuring (runs in the child process for the baseline: only cutline's public names)
# ---------------------------------------------------------------------------


def _substitute(session: Any, summary: str) -> None:
    """Put `summary` in place of the last compaction's summary (and in a Codex replacement history)."""
    entry = [e for e in session.entries if e.type == "compaction"][-1]
    old = entry.compaction.summary
    entry.compaction.summary = summary
    details = entry.compaction.details
    if isinstance(details, dict) and isinstance(details.get("replacement_history"), list):
        for item in details["replacement_history"]:
            for block in item.get("content", []) if isinstance(item, dict) else []:
                if isinstance(block, dict) and isinstance(block.get("text"), str) and old in block["text"]:
                    block["text"] = block["text"].replace(old, summary)


def _verdict(fact: Any) -> str:
    if getattr(fact, "superseded", False):
        return "kept"  # revoked later: losing it loses nothing, and the audit does not report it
    verdict = getattr(fact, "verdict", None)
    if isinstance(verdict, str):
        return verdict
    return "kept" if fact.retained else "lost"


def measure(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Audit each job (a session file, optionally with a summary put in place) and return the reported facts."""
    from cutline.core.agents import read_session
    from cutline.core.audit.report import audit_compaction

    out: list[dict[str, Any]] = []
    for job in jobs:
        session = read_session(job["file"])
        if job.get("summary") is not None:
            _substitute(session, job["summary"])
        report = audit_compaction(session)
        facts = [
            {
                "kind": f.kind,
                "text": f.text,
                "key": f.key,
                "origin": f.origin,
                "verdict": _verdict(f),
                "recovered": bool(getattr(f, "recovered", False)),
            }
            for f in report.facts
        ]
        score = getattr(report, "weighted_retention", None)
        if score is None:
            kept = sum(r.kept for r in report.retention)
            total = sum(r.total for r in report.retention)
            score = kept / total if total else 1.0
        warnings = [w.code for w in report.warnings]
        out.append({"job": job["name"], "facts": facts, "score": score, "warnings": warnings})
    return out


# ---------------------------------------------------------------------------
# Jobs
# ---------------------------------------------------------------------------


def _extractive(file: Path, prompt_name: str = "pi-checkpoint") -> str:
    sys.path.insert(0, str(ROOT))
    from bench.truth.slot import request
    from cutline.core.summarizers import get_summarizer

    summary_request = request(file).model_copy(update={"prompt_name": prompt_name})
    return asyncio.run(get_summarizer("extractive").summarize(summary_request))


def load_implicit(splits: tuple[str, ...] = ("tune", "heldout"), round_: int = 1) -> list[dict[str, Any]]:
    """The implicit-facts part's sessions of the splits given: round 1 (bench/truth/implicit.py), 2-5 (implicitN.py)."""
    folder = IMPLICIT_ROUNDS[round_][0]
    key = json.loads((folder / "key.json").read_text(encoding="utf-8"))
    return [s | {"folder": str(folder)} for s in key["sessions"] if s["split"] in splits]


def implicit_jobs(sessions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per implicit-facts session: its good, offline (extractive, its agent's prompt) and bad summaries put in place."""
    out: list[dict[str, Any]] = []
    for session in sessions:
        file = Path(session.get("folder", IMPLICIT)) / session["file"]
        offline = _extractive(file, PROMPT_FOR_FORMAT[session.get("format", "pi")])
        texts = {"good": session["good"], "offline": offline, "bad": session["bad"]}
        out.extend(
            {"name": f"implicit-{role}:{session['id']}", "file": str(file), "summary": texts[role]} for role in ROLES
        )
    return out


def jobs(key: dict[str, Any], hand: list[dict[str, Any]], with_extractive: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for session in key["sessions"]:
        file = str(TRUTH / session["file"])
        out.append({"name": f"planted:{session['id']}", "file": file, "summary": None})
        if with_extractive:
            out.append({"name": f"extractive:{session['id']}", "file": file, "summary": _extractive(Path(file))})
    for n, item in enumerate(hand):
        file = str(TRUTH / "sessions" / f"{item['session']}.jsonl")
        out.append({"name": f"hand{n}:{item['session']}", "file": file, "summary": item["summary"]})
    return out


def run_baseline(rev: str, job_list: list[dict[str, Any]]) -> list[dict[str, Any]] | str:
    """`measure` with the code of git revision `rev`, in a child process; a string says why it could not run."""
    try:
        data = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "cutline", "core", "app"], capture_output=True, check=True
        ).stdout
    except subprocess.CalledProcessError as exc:
        return f"git archive {rev} failed: {exc.stderr.decode(errors='replace').strip()}"
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=BytesIO(data)) as tar:
            tar.extractall(tmp, filter="tar")
        code = (
            "import json, sys\n"
            f"sys.path.insert(0, {tmp!r})\n"
            f"sys.path.insert(1, {str(ROOT / 'bench')!r})\n"
            "import cutline\n"
            f"assert cutline.__file__.startswith({tmp!r}), cutline.__file__\n"
            "from bench_audit_truth import measure\n"
            "print(json.dumps(measure(json.load(sys.stdin))))\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], input=json.dumps(job_list), capture_output=True, text=True, check=False
        )
    if done.returncode != 0:
        return f"baseline failed: {done.stderr.strip().splitlines()[-1:]}"
    result: list[dict[str, Any]] = json.loads(done.stdout)
    return result


# ---------------------------------------------------------------------------
# Scoring against the key
# ---------------------------------------------------------------------------


def _matches(report: dict[str, Any], anchors: Iterable[str]) -> bool:
    text = (report["text"] + " " + report["key"]).lower()
    return any(a in text for a in anchors)


def planted_verdicts(key: dict[str, Any], result: dict[str, Any], session: str) -> dict[str, str]:
    """The audit's verdict per planted fact of one session (fact id -> verdict)."""
    verdicts: dict[str, str] = {}
    for fact in key["facts"]:
        if fact["session"] != session:
            continue
        matched = [r for r in result["facts"] if _matches(r, fact["anchors"])]
        if fact["kind"] == "previous":
            matched = [r for r in matched if r["origin"] == "previous_summary"] or matched
        verdicts[fact["id"]] = max((r["verdict"] for r in matched), key=RANK.__getitem__, default="kept")
    return verdicts


def noise_reports(key: dict[str, Any], result: dict[str, Any]) -> tuple[int, int]:
    """(reported lost that are noise, reported lost that match no planted fact nor noise)."""
    anchors = [a for f in key["facts"] if f["session"] == result["job"].split(":", 1)[1] for a in f["anchors"]]
    noise = unplanted = 0
    for r in result["facts"]:
        if r["verdict"] not in POSITIVE:
            continue
        if _matches(r, key["noise_anchors"]):
            noise += 1
        elif not _matches(r, anchors):
            unplanted += 1
    return noise, unplanted


def _pr(pairs: list[tuple[bool, bool]]) -> tuple[float | None, float | None, int]:
    tp = sum(1 for truth, said in pairs if truth and said)
    predicted = sum(1 for _, said in pairs if said)
    actual = sum(1 for truth, _ in pairs if truth)
    return (tp / predicted if predicted else None, tp / actual if actual else None, len(pairs))


def _fmt(x: float | None) -> str:
    return "  -  " if x is None else f"{x:5.2f}"


def score(
    key: dict[str, Any],
    hand: list[dict[str, Any]],
    results: list[dict[str, Any]],
    rounds: Iterable[int] = IMPLICIT_ROUNDS,
) -> dict[str, Any]:
    """The tables printed (`print_table`); the implicit facts' `rounds` only (a round left out is not even read)."""
    by_job = {r["job"]: r for r in results}
    rows: list[dict[str, Any]] = []
    noise = unplanted = 0
    for session in key["sessions"]:
        result = by_job[f"planted:{session['id']}"]
        verdicts = planted_verdicts(key, result, session["id"])
        n, u = noise_reports(key, result)
        noise, unplanted = noise + n, unplanted + u
        for fact in key["facts"]:
            if fact["session"] == session["id"]:
                rows.append({**fact, "audit": verdicts[fact["id"]]})
    table: dict[str, Any] = {}
    for split in ("tune", "heldout"):
        mine = [r for r in rows if r["split"] == split]
        for group, field in (("kind", "kind"), ("treatment", "treatment")):
            cells: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
            for r in mine:
                cells[r[field]].append((r["truth"] in POSITIVE, r["audit"] in POSITIVE))
            table[f"{split}/{group}"] = {k: _pr(v) for k, v in sorted(cells.items())}
        table[f"{split}/all"] = _pr([(r["truth"] in POSITIVE, r["audit"] in POSITIVE) for r in mine])
        reworded = [r for r in mine if r["treatment"] == "reworded"]
        contradicted = [r for r in mine if r["treatment"] == "contradicted"]
        table[f"{split}/reworded_reported_lost"] = (
            sum(r["audit"] in POSITIVE for r in reworded) / len(reworded) if reworded else None
        )
        table[f"{split}/contradictions_caught"] = (
            sum(r["audit"] == "contradicted" for r in contradicted) / len(contradicted) if contradicted else None
        )
        recovered = [r for r in mine if r["recovered"]]
        table[f"{split}/recovered"] = (len(recovered), sum(1 for r in recovered if r["audit"] in POSITIVE))
    # hand-judged summaries: of the losses reported, how many are truly lost
    for split in ("tune", "heldout"):
        table[f"hand/{split}"] = hand_reports(key, [(n, h) for n, h in enumerate(hand) if h["split"] == split], by_job)
    # the latest-request warning: right when it fires exactly for a dropped or contradicted latest request
    right = total = 0
    for session in key["sessions"]:
        fired = "latest-request-not-visible" in by_job[f"planted:{session['id']}"].get("warnings", [])
        right += fired == (session["treatments"]["request"] in ("dropped", "contradicted"))
        total += 1
    table["latest_request_warning"] = (right, total)
    table["noise_reported"] = noise
    table["unplanted_reported"] = unplanted
    table["ranking"] = ranking(key, hand, by_job)
    for split in ("tune", "heldout"):
        table[f"between/{split}"] = between(key, hand, by_job, split)
        for round_ in rounds:
            table[f"{IMPLICIT_ROUNDS[round_][1]}/{split}"] = implicit_order(by_job, split, round_)
    return table


def implicit_order(by_job: dict[str, Any], split: str, round_: int = 1) -> list[dict[str, Any]]:
    """Per implicit-facts session: the truth's and the audit's scores of the good, offline and bad summaries, and
    whether the audit orders each pair as the truth does (`_agrees`: a pair the truth puts level must stay level)."""
    sys.path.insert(0, str(ROOT))
    from bench.truth.judge import judge

    credit = {"kept": 1.0, "lost": 0.0, "contradicted": -0.5}
    rows: list[dict[str, Any]] = []
    for session in load_implicit((split,), round_):
        jobs_of = {role: by_job.get(f"implicit-{role}:{session['id']}") for role in ROLES}
        if any(j is None for j in jobs_of.values()):
            continue
        row: dict[str, Any] = {"session": session["id"]}
        total = sum(f["weight"] for f in session["facts"])
        for role, result in jobs_of.items():
            assert result is not None
            verdicts = [judge(f["judge"]["present"], f["judge"]["contra"], result["summary"]) for f in session["facts"]]
            got = sum(f["weight"] * credit[v] for f, v in zip(session["facts"], verdicts, strict=True))
            row[role] = {"truth": max(0.0, got / total), "audit": result["score"]}
        row["truth_ordered"] = row["good"]["truth"] >= row["offline"]["truth"] > row["bad"]["truth"]
        row["ordered"] = all(
            _agrees(row[a]["truth"] - row[b]["truth"], row[a]["audit"] - row[b]["audit"])
            for a, b in (("good", "offline"), ("offline", "bad"), ("good", "bad"))
        )
        rows.append(row)
    return rows


def truth_score(key: dict[str, Any], session: str, summary: str, by_hand: dict[str, str] | None = None) -> float:
    """The truth's weighted retention of a summary: kept 1, lost 0, contradicted -0.5 (floored at 0).

    The verdicts are the hand-written judges', or my own reading (`by_hand`, per kind) for a hand-judged summary.
    """
    sys.path.insert(0, str(ROOT))
    from bench.truth.judge import judge_fact

    credit = {"kept": 1.0, "lost": 0.0, "contradicted": -0.5}
    facts = [f for f in key["facts"] if f["session"] == session]
    total = sum(f["weight"] for f in facts)
    got = sum(f["weight"] * credit[by_hand[f["kind"]] if by_hand else judge_fact(f, summary)] for f in facts)
    return max(0.0, got / total)


def _agrees(truth: float, audit: float) -> bool:
    """Whether the audit orders a pair as the truth does (`truth`, `audit`: the first's score less the second's).

    A pair the truth puts level (within 0.05) may not be put the other way round by more than that; the audit
    putting it the same way round as the truth, by any margin, agrees."""
    if abs(truth) < 0.05:
        return audit > -0.05 if truth >= 0 else audit < 0.05
    return audit > 0 if truth > 0 else audit < 0


def between(
    key: dict[str, Any], hand: list[dict[str, Any]], by_job: dict[str, Any], split: str
) -> list[dict[str, Any]]:
    """Per session with a good and a bad hand-judged model summary: the truth's and the audit's scores of the good
    one, the offline (extractive) one and the bad one; `ordered` when the audit puts them in the truth's order."""
    rows: list[dict[str, Any]] = []
    for session in sorted({h["session"] for h in hand if h["split"] == split and h.get("role")}):
        extractive = by_job.get(f"extractive:{session}")
        roles = {h["role"]: (n, h) for n, h in enumerate(hand) if h["session"] == session and h.get("role")}
        if extractive is None or not {"good", "bad"} <= roles.keys():
            continue
        row: dict[str, Any] = {"session": session}
        for role, job, summary, by_hand in (
            ("good", f"hand{roles['good'][0]}:{session}", roles["good"][1]["summary"], roles["good"][1]["verdicts"]),
            ("offline", f"extractive:{session}", extractive.get("summary", ""), None),
            ("bad", f"hand{roles['bad'][0]}:{session}", roles["bad"][1]["summary"], roles["bad"][1]["verdicts"]),
        ):
            row[role] = {"truth": truth_score(key, session, summary, by_hand), "audit": by_job[job]["score"]}
        row["truth_ordered"] = row["good"]["truth"] >= row["offline"]["truth"] > row["bad"]["truth"]
        # the audit orders each pair as the truth does; a pair the truth puts level (within 0.05) may not be put
        # the other way round by more than that
        row["ordered"] = all(
            _agrees(row[a]["truth"] - row[b]["truth"], row[a]["audit"] - row[b]["audit"])
            for a, b in (("good", "offline"), ("offline", "bad"), ("good", "bad"))
        )
        rows.append(row)
    return rows


def hand_reports(
    key: dict[str, Any], hand: list[tuple[int, dict[str, Any]]], by_job: dict[str, Any]
) -> tuple[int, int, int, int]:
    """(reported losses truly lost, losses reported, true losses caught, true losses) on hand-judged summaries."""
    true_reports = all_reports = caught = truly = 0
    for n, item in hand:
        result = by_job[f"hand{n}:{item['session']}"]
        verdicts = planted_verdicts(key, result, item["session"])
        for fact in key["facts"]:
            if fact["session"] != item["session"]:
                continue
            real = item["verdicts"][fact["kind"]] in POSITIVE
            said = verdicts[fact["id"]] in POSITIVE
            all_reports += said
            true_reports += said and real
            truly += real
            caught += said and real
        n_noise, n_unplanted = noise_reports(key, result)
        all_reports += n_noise + n_unplanted
    return true_reports, all_reports, caught, truly


def ranking(key: dict[str, Any], hand: list[dict[str, Any]], by_job: dict[str, Any]) -> tuple[int, int, int]:
    """(pairs ordered as the truth orders them, pairs the truth orders, pairs the audit ties) over summaries of one session.

    The truth's score of a summary: its facts' weights times 1 kept, 0 lost, -0.5 contradicted (floored at 0), the
    verdicts from the hand-written judges, or from my own reading for the hand-judged summaries.
    """
    sys.path.insert(0, str(ROOT))
    from bench.truth.judge import judge_fact

    credit = {"kept": 1.0, "lost": 0.0, "contradicted": -0.5}  # the same scale as the audit's weighted retention
    verdicts_by_hand = {f"hand{n}:{item['session']}": item["verdicts"] for n, item in enumerate(hand)}
    summaries: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for session in key["sessions"]:
        summaries[session["id"]].append(
            (f"planted:{session['id']}", (TRUTH / "summaries" / f"{session['id']}.txt").read_text())
        )
        job = f"extractive:{session['id']}"
        if job in by_job:
            summaries[session["id"]].append((job, by_job[job].get("summary", "")))
    for n, item in enumerate(hand):
        summaries[item["session"]].append((f"hand{n}:{item['session']}", item["summary"]))
    agree = ordered = ties = 0
    for session, items in summaries.items():
        facts = [f for f in key["facts"] if f["session"] == session]
        truth = {}
        for job, text in items:
            total = sum(f["weight"] for f in facts)
            by_hand = verdicts_by_hand.get(job)
            verdicts = {f["id"]: by_hand[f["kind"]] if by_hand else judge_fact(f, text) for f in facts}
            truth[job] = max(0.0, sum(f["weight"] * credit[verdicts[f["id"]]] for f in facts) / total)
        for i, (a, _) in enumerate(items):
            for b, _ in items[i + 1 :]:
                if a not in by_job or b not in by_job or abs(truth[a] - truth[b]) < 0.05:
                    continue
                ordered += 1
                sa, sb = by_job[a]["score"], by_job[b]["score"]
                if abs(sa - sb) < 1e-9:
                    ties += 1
                elif (sa > sb) == (truth[a] > truth[b]):
                    agree += 1
    return agree, ordered, ties


def print_table(name: str, table: dict[str, Any]) -> None:
    print(f"\n== {name} ==")
    for split in ("tune", "heldout"):
        p, r, n = table[f"{split}/all"]
        print(f"{split}: precision {_fmt(p)} recall {_fmt(r)} (n={n})")
        for group in ("kind", "treatment"):
            cells = table[f"{split}/{group}"]
            print("  " + group + ": " + "  ".join(f"{k} {_fmt(c[0])}/{_fmt(c[1])}" for k, c in cells.items()))
        rl, cc = table[f"{split}/reworded_reported_lost"], table[f"{split}/contradictions_caught"]
        rec = table[f"{split}/recovered"]
        print(
            f"  rewordings reported lost {_fmt(rl)}  contradictions caught {_fmt(cc)}  "
            f"recovered paths {rec[0]} (reported lost {rec[1]})"
        )
    for split in ("tune", "heldout"):
        t, a, c, real = table[f"hand/{split}"]
        share = f"{t / a:.0%}" if a else "-"
        print(f"hand-judged ({split}): {t}/{a} reported losses truly lost ({share}); {c}/{real} true losses reported")
    print(f"noise reported lost: {table['noise_reported']}; unplanted reported lost: {table['unplanted_reported']}")
    right, total = table["latest_request_warning"]
    print(f"latest-request warning right in {right}/{total} sessions")
    agree, ordered, ties = table["ranking"]
    print(f"ranking: {agree}/{ordered} pairs of summaries ordered as the truth orders them ({ties} tied)")
    for split in ("tune", "heldout"):
        for row in table.get(f"between/{split}", []):
            cells = "  ".join(f"{r} {row[r]['truth']:.2f}/{row[r]['audit']:.2f}" for r in ("good", "offline", "bad"))
            verdict = "ordered" if row["ordered"] else "NOT ordered"
            print(f"good >= offline > bad ({split}) {row['session']}: truth/audit {cells}: {verdict}")
    for split, (_, prefix) in ((s, r) for r in IMPLICIT_ROUNDS.values() for s in ("tune", "heldout")):
        rows = table.get(f"{prefix}/{split}", [])
        if not rows:
            continue
        label = split
        if split == "heldout":
            label = (
                "held out, spent: read and tuned on since 2026-12-03" if prefix in SPENT else "held out, never tuned on"
            )
        truth = sum(r["truth_ordered"] for r in rows)
        ordered = sum(r["ordered"] for r in rows)
        name = "implicit facts" if prefix == "implicit" else f"implicit facts, round {prefix[-1]}"
        print(
            f"{name} ({label}): the truth orders good >= offline > bad in {truth}/{len(rows)} sessions; "
            f"the audit orders them as the truth does in {ordered}/{len(rows)}"
        )
        for row in rows:
            cells = "  ".join(f"{r} {row[r]['truth']:.2f}/{row[r]['audit']:.2f}" for r in ROLES)
            print(f"  {row['session']}: truth/audit {cells}: {'ordered' if row['ordered'] else 'NOT ordered'}")


def merge_base() -> str:
    done = subprocess.run(
        ["git", "-C", str(ROOT), "merge-base", "HEAD", "main"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or "main"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=None, help="git revision of the 'before' code (default: merge base)")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--no-extractive", action="store_true", help="skip the offline summaries in the ranking")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--implicit",
        default="tune,heldout",
        help="splits of the implicit-facts part to audit (comma-separated; 'none' for none)",
    )
    parser.add_argument(
        "--implicit-rounds", default="1,2,3,4,5", help="rounds of the implicit-facts part (comma-separated)"
    )
    args = parser.parse_args()
    key = json.loads((TRUTH / "key.json").read_text(encoding="utf-8"))
    hand = json.loads((TRUTH / "hand.json").read_text(encoding="utf-8"))
    job_list = jobs(key, hand, not args.no_extractive)
    rounds = [int(r) for r in args.implicit_rounds.split(",")]
    for round_ in rounds:
        job_list += implicit_jobs(load_implicit(tuple(args.implicit.split(",")), round_))
    summaries = {j["name"]: j["summary"] for j in job_list}
    outputs: dict[str, Any] = {}
    if not args.no_baseline:
        rev = args.baseline or merge_base()
        before = run_baseline(rev, job_list)
        if isinstance(before, str):
            print(before)
        else:
            for r in before:
                r["summary"] = summaries[r["job"]]
            outputs[f"before ({rev[:10]})"] = score(key, hand, before, rounds)
    after = measure(job_list)
    for r in after:
        r["summary"] = summaries[r["job"]]
    outputs["after (working tree)"] = score(key, hand, after, rounds)
    if args.json:
        print(json.dumps(outputs, indent=1))
    else:
        for name, table in outputs.items():
            print_table(name, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
