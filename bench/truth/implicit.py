"""Sessions whose facts are implicit, for the truth set: good model summary > offline summary > bad one.

    python bench/truth/implicit.py            # writes tests/fixtures/truth/implicit/ (deterministic)
    python bench/truth/implicit.py --check    # fails if the committed files differ from a fresh run

One pi session per case of implicit_cases.py (six tune, four held out, the held-out ones
written first and never tuned on): the conversation, the latest request, one kept
assistant message, then the compaction under test, whose summary is the case's good
one. The key (`implicit/key.json`) gives per session its facts (kind, weight, the
truth-side judge) and the good and bad summaries; `bench/bench_summary_truth.py` and
`bench/bench_audit_truth.py` put the offline (extractive) summary between them.
The build fails when a judge does not give the good summary every fact, or gives the
bad one any fact but the latest request.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.truth.implicit_cases import HELD_OUT, KINDS, TUNE, WEIGHTS, Case  # noqa: E402
from bench.truth.judge import judge  # noqa: E402
from bench.truth.regen import run, write_key  # noqa: E402
from sample_sessions._gen.pi import PiSession  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "truth" / "implicit"
KEPT_SAY = "On it."


def write(path: Path, case: Case, seed: int) -> None:
    s = PiSession(seed=seed, start="2026-11-24T10:00:00.000Z", cwd=case["cwd"])
    for event in case["events"]:
        if event[0] == "user":
            s.user(event[1])
        elif event[0] == "say":
            s.say(event[1])
        else:
            _, tool, arg, result, error = event
            s.step(tool, {"path": arg} if tool == "read" else {"command": arg}, result, error=error)
    kept = s.say(KEPT_SAY)
    s.append(
        "compaction",
        {
            "summary": case["good"],
            "firstKeptEntryId": kept["id"],
            "tokensBefore": 6400,
            "details": {"readFiles": [], "modifiedFiles": []},
        },
    )
    s.write(str(path))


def sessions() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    n = 0
    for split, cases in (("tune", TUNE), ("heldout", HELD_OUT)):
        for case in cases:
            sid = f"implicit-{split}-{n:02d}-pi-{case['name']}"
            out.append(
                {
                    "id": sid,
                    "split": split,
                    "format": "pi",
                    "seed": 5000 + n,
                    "file": f"sessions/{sid}.jsonl",
                    "facts": [
                        {
                            "kind": kind,
                            "weight": WEIGHTS[kind],
                            "judge": {"present": case["facts"][kind][0], "contra": case["facts"][kind][1]},
                        }
                        for kind in KINDS
                    ],
                    "good": case["good"],
                    "bad": case["bad"],
                }
            )
            n += 1
    return out


def problems_of(spec: dict[str, Any]) -> list[str]:
    """The judges must give the good summary every fact and the bad one none but the latest request."""
    out: list[str] = []
    for fact in spec["facts"]:
        present, contra = fact["judge"]["present"], fact["judge"]["contra"]
        if (verdict := judge(present, contra, spec["good"])) != "kept":
            out.append(f"{spec['id']} {fact['kind']}: the good summary is {verdict}")
        if fact["kind"] != "request" and judge(present, contra, spec["bad"]) == "kept":
            out.append(f"{spec['id']} {fact['kind']}: the bad summary keeps it")
    return out


def build(out: Path) -> list[str]:
    (out / "sessions").mkdir(parents=True, exist_ok=True)
    specs = sessions()
    cases = {case["name"]: case for case in TUNE + HELD_OUT}
    problems: list[str] = []
    for spec in specs:
        write(out / spec["file"], cases[spec["id"].rsplit("-pi-", 1)[1]], spec["seed"])
        problems.extend(problems_of(spec))
    write_key(out, "Sessions with implicit facts, a good and a bad summary each; see bench/truth/implicit.py.", specs)
    return problems


def main() -> int:
    return run(__doc__ or "", OUT, build)


if __name__ == "__main__":
    sys.exit(main())
