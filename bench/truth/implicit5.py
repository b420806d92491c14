"""The implicit facts' fifth round, all held out, in pi, Claude Code and Codex format: good > offline > bad.

    python bench/truth/implicit5.py            # writes tests/fixtures/truth/implicit5/ (deterministic)
    python bench/truth/implicit5.py --check    # fails if the committed files differ from a fresh run
                                               # (generate.py --check also builds and checks it)

One session per case of implicit5_cases.py (eight, every one held out: written and committed blind,
no audit code read and the audit not run on them, and never tuned on), built as rounds 2-4
(bench/truth/implicit2.py's writers and summary shapes, imported): the conversation, the latest
request, one assistant message, then the compaction under test, whose summary is the case's good
one. Each session plants the six implicit kinds and four ordinary ones (`stated`, `todo`, `detail`
and `replaced`, a rule the user later replaced). The key (`implicit5/key.json`) has round 4's shape.
The build runs round 4's checks (imported: the good summary keeps every fact, the bad one none but
the latest request and contradicts one; the user's own sentences, copied, keep the rule asked, the
request and the ordinary facts and not the conclusion, lesson, role or number; the assistant's keep
its conclusion, lesson and role and not the number), and two more: the user's own sentences keep
the later rule (the earlier one is in them too, so a copy of both is not a contradiction), and the
commands and tool outputs, copied, keep neither the conclusion, the lesson nor the file's role.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.truth.implicit4 import build_round, held_out_sessions, more_problems  # noqa: E402
from bench.truth.implicit5_cases import HELD_OUT, KINDS5, WEIGHTS5  # noqa: E402
from bench.truth.implicit_cases import Case  # noqa: E402
from bench.truth.judge import judge  # noqa: E402
from bench.truth.regen import run  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "truth" / "implicit5"


def sessions() -> list[dict[str, Any]]:
    return held_out_sessions("implicit5", HELD_OUT, KINDS5, WEIGHTS5, 13000)


def own_problems(spec: dict[str, Any], case: Case) -> list[str]:
    """The user's own sentences, copied (the earlier rule and the later one), keep the later rule; the commands and
    tool outputs, copied, keep neither the conclusion, the lesson nor the file's role (the error is not the remedy)."""
    out: list[str] = []
    user = "\n".join(event[1] for event in case["events"] if event[0] == "user")
    tools = "\n".join(f"{event[2]}\n{event[3]}" for event in case["events"] if event[0] == "tool")
    for fact in spec["facts"]:
        present, contra, kind = fact["judge"]["present"], fact["judge"]["contra"], fact["kind"]
        if kind == "replaced" and (verdict := judge(present, contra, user)) != "kept":
            out.append(f"{spec['id']} replaced: the user's own sentences are {verdict}")
        if kind in ("concluded", "learnt", "role") and judge(present, contra, tools) == "kept":
            out.append(f"{spec['id']} {kind}: the commands and tool outputs keep it")
    return out


def build(out: Path) -> list[str]:
    return build_round(
        out,
        HELD_OUT,
        sessions(),
        (more_problems, own_problems),
        "Round 5 of the implicit facts, all held out (pi, Claude Code, Codex); see bench/truth/implicit5.py.",
    )


def main() -> int:
    return run(__doc__ or "", OUT, build)


if __name__ == "__main__":
    sys.exit(main())
