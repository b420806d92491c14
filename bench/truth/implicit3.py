"""The implicit facts' third round, in pi, Claude Code and Codex format: good model summary > offline > bad one.

    python bench/truth/implicit3.py            # writes tests/fixtures/truth/implicit3/ (deterministic)
    python bench/truth/implicit3.py --check    # fails if the committed files differ from a fresh run

One session per case of implicit3_cases.py (tune and held out, the held-out ones written and
committed first, before any audit change of this round and before the audit was run on them,
and never tuned on), built as round 2's (bench/truth/implicit2.py: the same writers and
summary shapes, imported): the conversation, the latest request, one assistant message, then
the compaction under test, whose summary is the case's good one. The key
(`implicit3/key.json`) has round 2's shape; the build fails when a judge does not give the
good summary every fact, or gives the bad one any fact but the latest request.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.truth.implicit import problems_of  # noqa: E402
from bench.truth.implicit2 import shaped, write  # noqa: E402
from bench.truth.implicit3_cases import HELD_OUT, TUNE  # noqa: E402
from bench.truth.implicit_cases import KINDS, WEIGHTS, Case  # noqa: E402
from bench.truth.judge import judge  # noqa: E402
from bench.truth.regen import run, write_key  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "truth" / "implicit3"


def sessions() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for n, (split, case) in enumerate([("heldout", c) for c in HELD_OUT] + [("tune", c) for c in TUNE]):
        fmt = case["format"]
        sid = f"implicit3-{split}-{n:02d}-{fmt}-{case['name']}"
        facts = [
            {
                "kind": kind,
                "weight": WEIGHTS[kind],
                "judge": {"present": case["facts"][kind][0], "contra": case["facts"][kind][1]},
            }
            for kind in KINDS
        ]
        spec = {"id": sid, "split": split, "format": fmt, "seed": 9000 + n, "file": f"sessions/{sid}.jsonl"}
        out.append(spec | {"facts": facts, "good": shaped(fmt, case["good"]), "bad": shaped(fmt, case["bad"])})
    return out


def copy_problems(spec: dict[str, Any], case: Case) -> list[str]:
    """The user's own sentences, copied, keep the rule asked as a question and the latest request; the assistant's
    keep its conclusion, the lesson of the failure and the file's role; neither contradicts a fact (a which-way
    question copied is not the decision taken the other way)."""
    out: list[str] = []
    for who, own, kinds in (
        ("user", "user", ("asked", "request")),
        ("assistant", "say", ("concluded", "learnt", "role")),
    ):
        copied = "\n".join(event[1] for event in case["events"] if event[0] == own)
        for fact in spec["facts"]:
            verdict = judge(fact["judge"]["present"], fact["judge"]["contra"], copied)
            if verdict == "contradicted" or (fact["kind"] in kinds and verdict != "kept"):
                out.append(f"{spec['id']} {fact['kind']}: the {who}'s own sentences are {verdict}")
    return out


def build(out: Path) -> list[str]:
    (out / "sessions").mkdir(parents=True, exist_ok=True)
    cases = {case["name"]: case for case in TUNE + HELD_OUT}
    problems: list[str] = []
    specs = sessions()
    for spec in specs:
        write(out / spec["file"], cases[spec["id"].rsplit("-", 1)[1]], spec["seed"], spec["good"])
        problems.extend(problems_of(spec) + copy_problems(spec, cases[spec["id"].rsplit("-", 1)[1]]))
    write_key(out, "Round 3 of the implicit facts (pi, Claude Code, Codex); see bench/truth/implicit3.py.", specs)
    return problems


def main() -> int:
    return run(__doc__ or "", OUT, build)


if __name__ == "__main__":
    sys.exit(main())
