"""The implicit facts' second round, in pi, Claude Code and Codex format: good model summary > offline > bad one.

    python bench/truth/implicit2.py            # writes tests/fixtures/truth/implicit2/ (deterministic)
    python bench/truth/implicit2.py --check    # fails if the committed files differ from a fresh run

One session per case of implicit2_cases.py (six tune, six held out, the held-out ones
written and committed first, before the audit was run on them, and never tuned on), in
the case's own agent format: the conversation, the latest request, one assistant message,
then the compaction under test, whose summary is the case's good one shaped as that
agent's prompt asks (pi's checkpoint sections, Claude Code's nine sections with its
wrapper, Codex's handoff). The key (`implicit2/key.json`) has the shape of round 1's
(`implicit/key.json`, bench/truth/implicit.py), plus each session's `format`; the build
fails when a judge does not give the good summary every fact, or gives the bad one any
fact but the latest request.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.truth.generate import claude_compact  # noqa: E402
from bench.truth.implicit import problems_of  # noqa: E402
from bench.truth.implicit2_cases import HELD_OUT, TUNE, Case  # noqa: E402
from bench.truth.implicit_cases import KINDS, WEIGHTS  # noqa: E402
from bench.truth.regen import run, write_key  # noqa: E402
from sample_sessions._gen import claude_code as cc  # noqa: E402
from sample_sessions._gen import codex as cx  # noqa: E402
from sample_sessions._gen.pi import PiSession  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "truth" / "implicit2"
KEPT_SAY = "On it."
START = "2026-12-03T08:00:00.000Z"


def bullets(items: list[str], prefix: str = "- ") -> str:
    return "\n".join(f"{prefix}{x}" for x in items) if items else f"{prefix}(none)"


def shaped(fmt: str, s: dict[str, Any]) -> str:
    """A summary's parts (goal, rules, done, now, decisions, next, context) in the shape the agent's prompt asks."""
    g = s.get
    if fmt == "pi":
        return "\n".join(
            [
                "## Goal",
                g("goal", ""),
                "",
                "## Constraints & Preferences",
                bullets(g("rules", [])),
                "",
                "## Progress",
                "### Done",
                bullets(g("done", []) + g("errors", []), "- [x] "),
                "",
                "### In Progress",
                bullets([g("now", "")] if g("now") else [], "- [ ] "),
                "",
                "### Blocked",
                "- (none)",
                "",
                "## Key Decisions",
                bullets(g("decisions", [])),
                "",
                "## Next Steps",
                bullets(g("next", []), "1. "),
                "",
                "## Critical Context",
                bullets(g("files", []) + g("context", [])),
            ]
        )
    if fmt == "claude_code":
        body = "\n".join(
            [
                "1. Primary Request and Intent:",
                f"   {g('goal', '')}",
                "2. Key Technical Concepts:",
                bullets(g("decisions", []) + g("context", []), "   - "),
                "3. Files and Code Sections:",
                bullets(g("files", []), "   - "),
                "4. Errors and fixes:",
                bullets(g("errors", []), "   - "),
                "5. Problem Solving:",
                bullets(g("done", []), "   - "),
                "6. All user messages:",
                bullets(g("rules", []) + g("asks", []), "   - "),
                "7. Pending Tasks:",
                bullets(g("next", []), "   - "),
                "8. Current Work:",
                f"   {g('now', '')}",
                "9. Optional Next Step:",
                f"   {(g('next') or ['Continue with the most recent request.'])[0]}",
            ]
        )
        return (
            "This session is being continued from a previous conversation that ran out of context. "
            "The summary below covers the earlier portion of the conversation.\n\nSummary:\n"
            + body
            + "\n\nPlease continue the conversation from where we left it off without asking the user any further "
            "questions. Continue with the last task that you were asked to work on."
        )
    return "\n".join(
        [
            f"Handoff summary: {g('goal', '')}",
            "",
            "Progress and key decisions:",
            bullets(g("done", []) + g("decisions", []) + g("errors", [])),
            "",
            "Constraints and user preferences:",
            bullets(g("rules", [])),
            "",
            "Next steps:",
            bullets(([g("now")] if g("now") else []) + g("next", [])),
            "",
            "References:",
            bullets(g("files", []) + g("context", [])),
        ]
    )


def write(path: Path, case: Case, seed: int, summary: str) -> None:
    fmt, cwd, events = case["format"], case["cwd"], case["events"]
    if fmt == "pi":
        s = PiSession(seed=seed, start=START, cwd=cwd)
        for event in events:
            if event[0] == "user":
                s.user(event[1])
            elif event[0] == "say":
                s.say(event[1])
            else:
                _, tool, arg, result, error = event
                s.step(tool, {"path": arg} if tool == "read" else {"command": arg}, result, error=error)
        kept = s.say(KEPT_SAY)
        details = {"readFiles": [], "modifiedFiles": []}
        s.append(
            "compaction", {"summary": summary, "firstKeptEntryId": kept["id"], "tokensBefore": 6400, "details": details}
        )
        s.write(str(path))
    elif fmt == "claude_code":
        cc.CWD = cwd
        c = cc.ClaudeCodeSession(seed=seed, start=START)
        for event in events:
            if event[0] == "user":
                c.user(event[1])
            elif event[0] == "say":
                c.assistant([{"type": "text", "text": event[1]}])
            else:
                _, tool, arg, result, error = event
                if tool == "read":
                    c.tool("Read", {"file_path": f"{cwd}/{arg}"}, result, error=error)
                else:
                    c.tool("Bash", {"command": arg, "description": "run it"}, result, error=error)
        c.assistant([{"type": "text", "text": KEPT_SAY}])
        claude_compact(c, summary, trigger="auto")
        c.write(str(path))
    else:
        cx.CWD = cwd
        r = cx.Rollout(seed=seed, start=START)
        meta = {"id": f"0199dd00-0000-4000-9000-{seed:012d}", "timestamp": START, "cwd": cwd}
        meta |= {"originator": "codex_cli_rs", "cli_version": "0.58.0", "instructions": None}
        r.emit("session_meta", meta | {"source": "cli", "model_provider": "openai"}, pause=(0, 0))
        for event in events:
            if event[0] == "user":
                r.user(event[1])
            elif event[0] == "say":
                r.say(event[1])
            else:
                _, tool, arg, result, error = event
                r.shell(f"cat {arg}" if tool == "read" else arg, result, code=1 if error else 0)
        r.say(KEPT_SAY)
        item = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": cx.SUMMARY_PREFIX + "\n" + summary}],
        }
        r.emit("compacted", {"message": summary, "replacement_history": [item]})
        r.emit("event_msg", {"type": "context_compacted"})
        r.history = [item]
        r.write(str(path))


def sessions() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    n = 0
    for split, cases in (("heldout", HELD_OUT), ("tune", TUNE)):
        for case in cases:
            fmt = case["format"]
            sid = f"implicit2-{split}-{n:02d}-{fmt}-{case['name']}"
            out.append(
                {
                    "id": sid,
                    "split": split,
                    "format": fmt,
                    "seed": 7000 + n,
                    "file": f"sessions/{sid}.jsonl",
                    "facts": [
                        {
                            "kind": kind,
                            "weight": WEIGHTS[kind],
                            "judge": {"present": case["facts"][kind][0], "contra": case["facts"][kind][1]},
                        }
                        for kind in KINDS
                    ],
                    "good": shaped(fmt, case["good"]),
                    "bad": shaped(fmt, case["bad"]),
                }
            )
            n += 1
    return out


def build(out: Path) -> list[str]:
    (out / "sessions").mkdir(parents=True, exist_ok=True)
    specs = sessions()
    cases = {case["name"]: case for case in TUNE + HELD_OUT}
    problems: list[str] = []
    for spec in specs:
        write(out / spec["file"], cases[spec["id"].rsplit("-", 1)[1]], spec["seed"], spec["good"])
        problems.extend(problems_of(spec))
    description = "Round 2 of the implicit facts (pi, Claude Code, Codex); see bench/truth/implicit2.py."
    write_key(out, description, specs)
    return problems


def main() -> int:
    return run(__doc__ or "", OUT, build)


if __name__ == "__main__":
    sys.exit(main())
