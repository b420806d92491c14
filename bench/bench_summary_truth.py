"""The offline summarizer judged by the truth set: planted facts present, In Progress right, no noise, length.

    python bench/bench_summary_truth.py [--split tune|heldout|all] [--show SESSION]

For every session of `tests/fixtures/truth/` (bench/truth/README.md) the extractive
summarizer gets the span the compaction under test summarized and the previous summary
(`bench/truth/slot.py`'s `span`), with the prompt of the session's own agent (pi's
checkpoint, OpenClaw's safeguard sections, Claude Code's nine sections, Codex's handoff).
Its summary is then judged by the answer key's truth-side judges (`bench/truth/judge.py`:
hand-written regexes per planted fact), never by the audit's or the summarizer's own
extraction rules. Printed per split — the held-out themes are reported apart and were
never tuned on:

- per kind, planted facts present (verbatim or reworded, not contradicted) / total; the
  target kinds are constraints, preferences, decisions, TODOs, unresolved errors and the
  latest request (>= 90 %);
- In Progress: the latest request judged present within the section that says what is under
  way (pi's In Progress, Claude Code's Current Work, Codex's latest request, OpenClaw's
  Pending user asks), in every session;
- noise: none of the key's noise anchors (an acknowledgement, a shell command, a template
  string, a slash-list, git file modes, a source-line ref) in the goal or the rules;
- length: the summary's characters against the model-shaped summary the truth set holds for
  the same span (median ratio, target <= 1.5), and against what it replaces (never longer).

Then the split-turn sessions (`tests/fixtures/truth/split/`, bench/truth/split_turns.py),
summarized as the engine does (pi and OpenClaw: the history before the turn and the turn
prefix apart, joined as pi joins them; Claude Code and Codex: the whole span, cut mid-turn):
the latest request must be in what says what is under way (the sections above; on a split turn
the history part's own section, not the turn prefix's `## Original Request`, which names the
turn's ask whatever the history says), and the earlier ask, finished, must not be there.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.truth.judge import KEY, judge, judge_fact, load_key, score_summaries  # noqa: E402
from bench.truth.slot import span  # noqa: E402
from cutline.core.releases.pi_0_87.summary import TURN_CONTEXT_SEPARATOR  # noqa: E402
from cutline.core.summarizers.base import SummaryRequest  # noqa: E402
from cutline.core.summarizers.extractive import name_turn_under_way, summarize_extractive  # noqa: E402
from cutline.core.summarizers.session_state import read_span  # noqa: E402

PROMPT_FOR_FORMAT = {
    "pi": "pi-checkpoint",
    "openclaw": "openclaw-safeguard",
    "claude_code": "claude-code",
    "codex": "codex",
}
TARGET_KINDS = ("constraint", "preference", "decision", "todo", "error/unfixed", "request")
TARGET = 0.90
MAX_LENGTH_RATIO = 1.5
# the section that says what is under way, and the sections a goal and the rules are in, per prompt
UNDER_WAY = {
    "pi-checkpoint": ("### In Progress",),
    "openclaw-safeguard": ("## Pending user asks",),
    "claude-code": ("8. Current Work:",),
    "codex": ("## Latest request (verbatim)", "## In progress"),
}
GOAL_AND_RULES = {
    "pi-checkpoint": ("## Goal", "## Constraints & Preferences"),
    "openclaw-safeguard": ("## Constraints/Rules",),
    "claude-code": ("1. Primary Request and Intent:",),
    "codex": ("## Task", "## Constraints & preferences"),
}
PREFIX_PROMPT = {"pi": "pi-current-turn-prefix", "openclaw": "pi-turn-prefix"}
SPLIT_KEY = KEY.parent / "split" / "key.json"
OPENINGS_KEY = KEY.parent / "openings" / "key.json"
IMPLICIT_KEY = KEY.parent / "implicit" / "key.json"
IMPLICIT2_KEY = KEY.parent / "implicit2" / "key.json"
IMPLICIT3_KEY = KEY.parent / "implicit3" / "key.json"
IMPLICIT4_KEY = KEY.parent / "implicit4" / "key.json"
IMPLICIT5_KEY = KEY.parent / "implicit5" / "key.json"
FUNCTIONS_KEY = KEY.parent / "functions" / "key.json"
# sentence functions (bench/truth/functions.py): the section groups its judges read, per prompt
FUNCTION_SECTIONS = {
    "pi-checkpoint": {
        "goal": ("## Goal",),
        "rules": ("## Constraints & Preferences",),
        "done": ("### Done",),
        "context": ("## Critical Context",),
        "under_way": ("### In Progress",),
    },
    "claude-code": {
        "goal": ("1. Primary Request and Intent:",),
        "rules": ("1. Primary Request and Intent:",),
        "done": ("5. Problem Solving:",),
        "context": ("5. Problem Solving:",),
        "under_way": ("8. Current Work:",),
    },
    "codex": {
        "goal": ("## Task",),
        "rules": ("## Constraints & preferences",),
        "done": ("## Progress",),
        "context": ("## References",),
        "under_way": ("## Latest request (verbatim)", "## In progress"),
    },
}
# the opening-remark sets in the order they were made (bench/truth/openings.py)
OPENING_SETS = ["tune", "heldout", "tune-new", "heldout-new", "tune-shape", "heldout-shape"]
OPENING_LABELS = {
    "tune": "tune",
    "heldout": "held out (never tuned on)",
    "tune-new": "new tune set",
    "heldout-new": "new held-out set (written first, never tuned on)",
    "tune-shape": "third tune set (shapes, negatives)",
    "heldout-shape": "third held-out set (shapes, negatives; written first, never tuned on)",
}
_HEADING = re.compile(r"^(#{1,6} .+|\d+\. [A-Z][\w ]+:)$")


def section_text(summary: str, headings: tuple[str, ...]) -> str:
    """The text under any of `headings` (up to the next heading)."""
    out: list[str] = []
    taking = False
    for line in summary.splitlines():
        if _HEADING.match(line.strip()):
            taking = line.strip() in headings
            continue
        if taking:
            out.append(line)
    return "\n".join(out)


def summarize_session(session: dict[str, Any]) -> tuple[str, str, int]:
    """The summary of one truth session, its prompt name and the characters of what it replaces."""
    s = span(KEY.parent / session["file"])
    prompt = PROMPT_FOR_FORMAT[session["format"]]
    request = SummaryRequest(
        kind="update" if s.previous_summary else "history",
        prompt_name=prompt,
        messages=s.messages,
        previous_summary=s.previous_summary,
    )
    replaced = read_span(s.messages).replaced_chars + len(s.previous_summary or "")
    return summarize_extractive(request), prompt, replaced


def kind_of(fact: dict[str, Any]) -> str:
    return f"error/{fact.get('variant') or 'unfixed'}" if fact["kind"] == "error" else fact["kind"]


def run(split: str) -> dict[str, Any]:
    key = load_key()
    sessions = [s for s in key["sessions"] if split == "all" or s["split"] == split]
    summaries: dict[str, str] = {}
    rows: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    under_way: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    noise: dict[str, list[str]] = defaultdict(list)
    ratios: dict[str, list[float]] = defaultdict(list)
    longer_than_span: dict[str, list[str]] = defaultdict(list)
    facts_by_session: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for fact in key["facts"]:
        facts_by_session[fact["session"]].append(fact)
    for session in sessions:
        sid, part = session["id"], session["split"]
        summary, prompt, replaced = summarize_session(session)
        summaries[sid] = summary
        for fact in facts_by_session[sid]:
            verdict = judge_fact(fact, summary)
            row = rows[(part, kind_of(fact))]
            row[0] += verdict == "kept"
            row[1] += verdict == "contradicted"
            row[2] += 1
            if fact["kind"] == "request":
                current = section_text(summary, UNDER_WAY[prompt])
                under_way[part][0] += (
                    judge(fact["judge"]["present"], fact["judge"].get("contra", []), current) == "kept"
                )
                under_way[part][1] += 1
        goal_and_rules = section_text(summary, GOAL_AND_RULES[prompt]).lower()
        noise[part].extend(f"{sid}: {a}" for a in key["noise_anchors"] if a in goal_and_rules)
        model = (KEY.parent / "summaries" / f"{sid}.txt").read_text(encoding="utf-8")
        ratios[part].append(len(summary) / max(len(model), 1))
        if len(summary) >= replaced:
            longer_than_span[part].append(f"{sid}: {len(summary)} >= {replaced}")
    return {
        "summaries": summaries,
        "rows": dict(rows),
        "under_way": dict(under_way),
        "noise": dict(noise),
        "ratios": dict(ratios),
        "longer": dict(longer_than_span),
    }


def summarize_split(session: dict[str, Any]) -> tuple[str, str, int, str]:
    """A split-turn session summarized as the engine does: history and turn prefix apart, or the whole span.

    Returns the summary, its prompt, the characters replaced and the text that must say what is under way: the
    section that says so (UNDER_WAY) of the history part itself on a split turn (not the turn prefix's "Original
    Request", which names it whatever the history says), of the whole summary otherwise."""
    s = span(SPLIT_KEY.parent / session["file"])
    prompt = PROMPT_FOR_FORMAT[session["format"]]
    kind = "update" if s.previous_summary else "history"
    replaced = read_span(s.messages).replaced_chars + len(s.previous_summary or "")
    if not session["turn_prefix"]:
        request = SummaryRequest(
            kind=kind, prompt_name=prompt, messages=s.messages, previous_summary=s.previous_summary
        )
        summary = summarize_extractive(request)
        return summary, prompt, replaced, section_text(summary, UNDER_WAY[prompt])
    # pi and OpenClaw: the turn starts at the last user message; what comes before it is the history
    start = max(i for i, m in enumerate(s.messages) if m.role == "user")
    history = SummaryRequest(
        kind=kind, prompt_name=prompt, messages=s.messages[:start], previous_summary=s.previous_summary
    )
    prefix = SummaryRequest(
        kind="turn_prefix", prompt_name=PREFIX_PROMPT[session["format"]], messages=s.messages[start:]
    )
    # as the engine joins them offline: the history's empty "under way" section names the turn's ask
    history_text = name_turn_under_way(summarize_extractive(history), prompt, s.messages[start:])
    summary = history_text + TURN_CONTEXT_SEPARATOR + summarize_extractive(prefix)
    return summary, prompt, replaced, section_text(history_text, UNDER_WAY[prompt])


def run_split(split: str) -> dict[str, Any]:
    """Split turns: the latest request in what says what is under way, the finished ask not there."""
    key = json.loads(SPLIT_KEY.read_text(encoding="utf-8"))
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    misses: dict[str, list[str]] = defaultdict(list)
    summaries: dict[str, str] = {}
    for session in key["sessions"]:
        if split != "all" and session["split"] != split:
            continue
        summary, _prompt, replaced, under_way = summarize_split(session)
        summaries[session["id"]] = summary
        request = session["request"]
        named = judge(request["present"], request["contra"], under_way) == "kept"
        finished_there = all(re.search(p, under_way.lower()) for p in session["finished"]["present"])
        row = rows[session["split"]]
        row[0] += named
        row[1] += not finished_there
        row[2] += 1
        if not named:
            misses[session["split"]].append(f"{session['id']}: latest request not under way")
        if finished_there:
            misses[session["split"]].append(f"{session['id']}: the finished ask shown as under way")
        if len(summary) >= replaced:
            misses[session["split"]].append(f"{session['id']}: {len(summary)} >= {replaced} chars replaced")
    return {"rows": dict(rows), "misses": dict(misses), "summaries": summaries}


def report_split(result: dict[str, Any]) -> bool:
    ok = True
    for part in sorted(result["rows"], key=lambda p: p != "tune"):
        named, not_finished, total = result["rows"][part]
        label = "held out (never tuned on)" if part == "heldout" else part
        print(f"\n== split turns, {label}")
        print(f"In Progress names the task under way: {named}/{total}")
        print(f"the finished earlier ask not shown as under way: {not_finished}/{total}")
        misses = result["misses"].get(part, [])
        for miss in misses:
            print(f"  {miss}")
        ok &= not misses
    return ok


def run_openings(split: str) -> dict[str, Any]:
    """Sessions opening with a remark ("hi", "I have a question"): the task in the goal, the remark not."""
    from cutline.core.agents import read_session

    key = json.loads(OPENINGS_KEY.read_text(encoding="utf-8"))
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses: dict[str, list[str]] = defaultdict(list)
    summaries: dict[str, str] = {}
    for session in key["sessions"]:
        if split != "all" and session["split"].split("-")[0] != split:
            continue
        path = OPENINGS_KEY.parent / session["file"]
        messages = [e.message for e in read_session(path).active_path() if e.message is not None]
        prompt = PROMPT_FOR_FORMAT[session["format"]]
        summary = summarize_extractive(SummaryRequest(prompt_name=prompt, messages=messages))
        summaries[session["id"]] = summary
        goal = section_text(summary, GOAL_AND_RULES[prompt][:1]).lower()
        task_in_goal = all(re.search(p, goal) for p in session["task"]["present"])
        # a negative (the short first message is the task) must be in the goal; an opening must not be
        opening = session["opening"].lower().strip(" .!:)?")
        opening_in_goal = not session.get("opening_is_task") and bool(
            re.search(r"(?<!\w)" + re.escape(opening) + r"(?!\w)", goal)
        )
        row = rows[session["split"]]
        row[0] += task_in_goal and not opening_in_goal
        row[1] += 1
        if not task_in_goal or opening_in_goal:
            misses[session["split"]].append(f"{session['id']}: goal {goal.strip()!r}")
    return {"rows": dict(rows), "misses": dict(misses), "summaries": summaries}


def report_openings(result: dict[str, Any]) -> bool:
    ok = True
    for part in sorted(result["rows"], key=OPENING_SETS.index):
        right, total = result["rows"][part]
        print(f"\n== an opening remark before the task, {OPENING_LABELS[part]}")
        print(f"the goal is the task, not the opening: {right}/{total}")
        for miss in result["misses"].get(part, []):
            print(f"  {miss}")
        ok &= right == total
    return ok


def run_functions(split: str) -> dict[str, Any]:
    """Sentence functions (bench/truth/functions.py): each judge's text in (or not in) its section group."""
    from cutline.core.agents import read_session

    key = json.loads(FUNCTIONS_KEY.read_text(encoding="utf-8"))
    rows: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    misses: dict[str, list[str]] = defaultdict(list)
    summaries: dict[str, str] = {}
    for session in key["sessions"]:
        if split not in ("all", session["split"]):
            continue
        path = FUNCTIONS_KEY.parent / session["file"]
        messages = [e.message for e in read_session(path).active_path() if e.message is not None]
        prompt = PROMPT_FOR_FORMAT[session["format"]]
        summary = summarize_extractive(SummaryRequest(prompt_name=prompt, messages=messages))
        summaries[session["id"]] = summary
        for j in session["judges"]:
            where = j["where"]
            text = summary if where == "anywhere" else section_text(summary, FUNCTION_SECTIONS[prompt][where])
            found = all(re.search(p, text.lower()) for p in j["present"])
            right = found == (j["expect"] == "in")
            cell = rows[session["split"]][j["what"]]
            cell[0] += right
            cell[1] += 1
            if not right:
                misses[session["split"]].append(f"{session['id']}: {j['what']} ({where}, {j['expect']})")
    return {"rows": {k: dict(v) for k, v in rows.items()}, "misses": dict(misses), "summaries": summaries}


def report_functions(result: dict[str, Any]) -> bool:
    """Print per shape; the tune part must be all right (the held-out part is reported, never tuned on)."""
    ok = True
    for part in sorted(result["rows"], key=lambda p: p != "tune"):
        label = "held out (written first, never tuned on)" if part == "heldout" else part
        print(f"\n== sentence functions, {label}")
        right = total = 0
        for what, (r, t) in sorted(result["rows"][part].items()):
            print(f"{what:40} {r}/{t}")
            right += r
            total += t
        print(f"judges right: {right}/{total}")
        for miss in result["misses"].get(part, []):
            print(f"  {miss}")
        if part == "tune":
            ok &= right == total
    return ok


def report(result: dict[str, Any]) -> bool:
    """Print the figures; whether every target is met."""
    ok = True
    parts = sorted({part for part, _ in result["rows"]}, key=lambda p: p != "tune")
    for part in parts:
        label = "held out (never tuned on)" if part == "heldout" else part
        print(f"\n== {label}")
        print(f"{'kind':15} {'present':>9} {'contradicted':>13}")
        target_kept = target_total = 0
        for (p, kind), (kept, contra, total) in sorted(result["rows"].items()):
            if p != part:
                continue
            mark = " *" if kind in TARGET_KINDS else ""
            print(f"{kind + mark:15} {kept:>4}/{total:<4} {contra:>13}")
            if kind in TARGET_KINDS:
                target_kept += kept
                target_total += total
        share = target_kept / max(target_total, 1)
        ok &= share >= TARGET
        print(f"target kinds (*): {target_kept}/{target_total} = {share:.0%} present (target >= {TARGET:.0%})")
        done, total = result["under_way"].get(part, [0, 0])
        ok &= done == total
        print(f"In Progress names the latest request: {done}/{total}")
        noise = result["noise"].get(part, [])
        ok &= not noise
        print(f"noise in goal or rules: {len(noise)}" + (f" ({'; '.join(noise)})" if noise else ""))
        ratios = result["ratios"].get(part, [])
        median = statistics.median(ratios) if ratios else 0.0
        ok &= median <= MAX_LENGTH_RATIO
        print(
            f"length vs the truth set's model-shaped summary: median {median:.2f}x "
            f"(min {min(ratios):.2f}, max {max(ratios):.2f}; target <= {MAX_LENGTH_RATIO}x)"
        )
        longer = result["longer"].get(part, [])
        ok &= not longer
        print(f"longer than what it replaces: {len(longer)}" + (f" ({'; '.join(longer)})" if longer else ""))
    return ok


def run_implicit(split: str, key_file: Path = IMPLICIT_KEY, name: str = "implicit facts") -> bool:
    """Implicit facts (bench/truth/implicit.py; rounds 2-5: implicit2.py-implicit5.py): the offline summary's facts kept, and the
    truth's order of the session's good, offline and bad summaries (weighted retention, contradicted -0.5); whether
    good >= offline > bad (an offline summary that keeps every fact is level with the good one, as in the main set's
    pairs). The offline summary is written with the prompt of the session's agent."""
    key = json.loads(key_file.read_text(encoding="utf-8"))
    credit = {"kept": 1.0, "lost": 0.0, "contradicted": -0.5}
    by_split: dict[str, list[str]] = defaultdict(list)
    kept_by_kind: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    ordered: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for session in key["sessions"]:
        part = session["split"]
        if split not in ("all", part):
            continue
        s = span(key_file.parent / session["file"])
        prompt = PROMPT_FOR_FORMAT[session.get("format", "pi")]
        offline = summarize_extractive(
            SummaryRequest(prompt_name=prompt, messages=s.messages, previous_summary=s.previous_summary)
        )
        scores = {}
        for role, text in (("good", session["good"]), ("offline", offline), ("bad", session["bad"])):
            verdicts = [judge(f["judge"]["present"], f["judge"]["contra"], text) for f in session["facts"]]
            total = sum(f["weight"] for f in session["facts"])
            got = sum(f["weight"] * credit[v] for f, v in zip(session["facts"], verdicts, strict=True))
            scores[role] = max(0.0, got / total)
            if role == "offline":
                for fact, verdict in zip(session["facts"], verdicts, strict=True):
                    cell = kept_by_kind[(part, fact["kind"])]
                    cell[0] += verdict == "kept"
                    cell[1] += 1
        right = scores["good"] >= scores["offline"] > scores["bad"]
        ordered[part][0] += right
        ordered[part][1] += 1
        by_split[part].append(
            f"  {session['id']}: good {scores['good']:.2f} offline {scores['offline']:.2f} bad {scores['bad']:.2f}"
        )
    for part in sorted(by_split, key=lambda p: p != "tune"):
        label = "held out (never tuned on)" if part == "heldout" else part
        print(f"\n== {name}, {label}")
        kinds = sorted({k for p, k in kept_by_kind if p == part})
        print(
            "offline summary keeps: "
            + "  ".join(f"{k} {kept_by_kind[(part, k)][0]}/{kept_by_kind[(part, k)][1]}" for k in kinds)
        )
        right, total = ordered[part]
        print(f"the truth orders good >= offline > bad: {right}/{total} (weighted retention by the judges)")
        for line in by_split[part]:
            print(line)
    return True


def against_hand(summaries: dict[str, str]) -> None:
    """The truth's weighted retention of this summary next to the hand-written model-like ones of the same sessions."""
    hand = json.loads((KEY.parent / "hand.json").read_text(encoding="utf-8"))
    print("\n== next to the hand-written model-like summaries (truth-weighted retention, contradicted, chars)")
    for entry in hand:
        sid = entry["session"]
        if sid not in summaries:
            continue
        theirs = score_summaries({sid: entry["summary"]})
        ours = score_summaries({sid: summaries[sid]})
        print(
            f"{sid:32} {entry['label'][:34]:34} {theirs['weighted_retention']:.0%} ({theirs['contradicted']}) "
            f"{len(entry['summary']):5} | extractive {ours['weighted_retention']:.0%} ({ours['contradicted']}) "
            f"{len(summaries[sid]):5}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="all", choices=("tune", "heldout", "all"))
    parser.add_argument("--show", help="print the summary of this session id")
    args = parser.parse_args()
    result = run(args.split)
    ok = report(result)
    split_result = run_split(args.split)
    ok &= report_split(split_result)
    openings = run_openings(args.split)
    ok &= report_openings(openings)
    functions = run_functions(args.split)
    ok &= report_functions(functions)
    run_implicit(args.split)
    run_implicit(args.split, IMPLICIT2_KEY, "implicit facts, round 2")
    run_implicit(args.split, IMPLICIT3_KEY, "implicit facts, round 3")
    run_implicit(args.split, IMPLICIT4_KEY, "implicit facts, round 4")
    run_implicit(args.split, IMPLICIT5_KEY, "implicit facts, round 5")
    against_hand(result["summaries"])
    if args.show:
        shown = (
            result["summaries"].get(args.show)
            or split_result["summaries"].get(args.show)
            or openings["summaries"].get(args.show)
            or functions["summaries"].get(args.show, "no such session")
        )
        print(f"\n--- {args.show}\n{shown}")
    print("\nall targets met" if ok else "\nsome target missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
