"""The implicit facts' fourth round, all held out, in pi, Claude Code and Codex format: good > offline > bad.

    python bench/truth/implicit4.py            # writes tests/fixtures/truth/implicit4/ (deterministic)
    python bench/truth/implicit4.py --check    # fails if the committed files differ from a fresh run

One session per case of implicit4_cases.py (eight, every one held out: written and committed blind,
no audit code read and the audit not run on them, and never tuned on), built as rounds 2 and 3
(bench/truth/implicit2.py's writers and summary shapes, imported): the conversation, the latest
request, one assistant message, then the compaction under test, whose summary is the case's good
one. Each session plants the six implicit kinds and three ordinary ones (`stated`, `todo`,
`detail`). The key (`implicit4/key.json`) has round 3's shape. The build fails when a judge does
not give the good summary every fact, gives the bad one any fact but the latest request, or finds
no contradiction in the bad one; when the user's own sentences, copied, do not keep the rule asked,
the latest request and the ordinary facts, or keep the conclusion, the lesson or the file's role;
when the assistant's own sentences do not keep its conclusion, lesson and file role (round 3's
check, imported); when either keeps the number only a tool printed; or when either contradicts a
fact.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.truth.implicit import problems_of  # noqa: E402
from bench.truth.implicit2 import shaped, write  # noqa: E402
from bench.truth.implicit3 import copy_problems  # noqa: E402
from bench.truth.implicit4_cases import HELD_OUT, KINDS4, WEIGHTS4  # noqa: E402
from bench.truth.implicit_cases import Case  # noqa: E402
from bench.truth.judge import judge  # noqa: E402
from bench.truth.regen import run, write_key  # noqa: E402

# a build check of a round: the problems it finds in a session spec and its case
Check = Callable[[dict[str, Any], Case], list[str]]
OUT = ROOT / "tests" / "fixtures" / "truth" / "implicit4"
ORDINARY = ("stated", "todo", "detail")


def held_out_sessions(
    name: str, cases: list[Case], kinds: tuple[str, ...], weights: dict[str, float], seed: int
) -> list[dict[str, Any]]:
    """A blind round's session specs, all held out: one per case, its facts in `kinds` order (rounds 4 and 5)."""
    out: list[dict[str, Any]] = []
    for n, case in enumerate(cases):
        fmt = case["format"]
        sid = f"{name}-heldout-{n:02d}-{fmt}-{case['name']}"
        facts = [
            {
                "kind": kind,
                "weight": weights[kind],
                "judge": {"present": case["facts"][kind][0], "contra": case["facts"][kind][1]},
            }
            for kind in kinds
        ]
        spec = {"id": sid, "split": "heldout", "format": fmt, "seed": seed + n, "file": f"sessions/{sid}.jsonl"}
        out.append(spec | {"facts": facts, "good": shaped(fmt, case["good"]), "bad": shaped(fmt, case["bad"])})
    return out


def sessions() -> list[dict[str, Any]]:
    return held_out_sessions("implicit4", HELD_OUT, KINDS4, WEIGHTS4, 11000)


def more_problems(spec: dict[str, Any], case: Case) -> list[str]:
    """Beyond round 3's checks: the user's sentences keep the ordinary facts and not the assistant's conclusion,
    lesson or file role; neither side keeps the number only a tool printed; the bad summary contradicts a fact."""
    out: list[str] = []
    user = "\n".join(event[1] for event in case["events"] if event[0] == "user")
    say = "\n".join(event[1] for event in case["events"] if event[0] == "say")
    for fact in spec["facts"]:
        present, contra, kind = fact["judge"]["present"], fact["judge"]["contra"], fact["kind"]
        verdict = judge(present, contra, user)
        if kind in ORDINARY and verdict != "kept":
            out.append(f"{spec['id']} {kind}: the user's own sentences are {verdict}")
        if kind in ("concluded", "learnt", "role", "measured") and verdict == "kept":
            out.append(f"{spec['id']} {kind}: the user's own sentences keep it")
        if kind == "measured" and judge(present, contra, say) == "kept":
            out.append(f"{spec['id']} measured: the assistant's own sentences keep it")
    if not any(
        judge(f["judge"]["present"], f["judge"]["contra"], spec["bad"]) == "contradicted" for f in spec["facts"]
    ):
        out.append(f"{spec['id']}: the bad summary contradicts nothing")
    return out


def build_round(
    out: Path, cases: list[Case], specs: list[dict[str, Any]], checks: tuple[Check, ...], description: str
) -> list[str]:
    """Write a blind round's sessions and key under `out`; the problems rounds 1-3's checks and `checks` find."""
    (out / "sessions").mkdir(parents=True, exist_ok=True)
    by_name = {case["name"]: case for case in cases}
    problems: list[str] = []
    for spec in specs:
        case = by_name[spec["id"].rsplit("-", 1)[1]]
        write(out / spec["file"], case, spec["seed"], spec["good"])
        problems.extend(problems_of(spec) + copy_problems(spec, case))
        for check in checks:
            problems.extend(check(spec, case))
    write_key(out, description, specs)
    return problems


def build(out: Path) -> list[str]:
    return build_round(
        out,
        HELD_OUT,
        sessions(),
        (more_problems,),
        "Round 4 of the implicit facts, all held out (pi, Claude Code, Codex); see bench/truth/implicit4.py.",
    )


def main() -> int:
    return run(__doc__ or "", OUT, build)


if __name__ == "__main__":
    sys.exit(main())
