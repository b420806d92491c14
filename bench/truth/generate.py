"""Generate the truth set: sessions in every agent format with planted facts, their summaries and the answer key.

    python bench/truth/generate.py            # writes tests/fixtures/truth/ (deterministic)
    python bench/truth/generate.py --check    # fails if the committed files differ from a fresh run

Each session is one theme of catalogue.py written in one agent format (pi, OpenClaw
JSONL, Claude Code, Codex) with the project's own sample writers
(sample_sessions/_gen): an opening exchange, a first compaction whose summary carries
the theme's "previous" fact, then the conversation planting every other fact with
noise between them (acknowledgements, template strings, shell commands, slash-lists,
file modes, source-line refs), the latest request, and the compaction under test whose
summary is shaped as the agent's own prompt asks and states each fact verbatim,
reworded, not at all (dropped) or otherwise (contradicted). Where a dropped path is
read again after the compaction, the key marks it `recovered`. The implicit facts' rounds 4 and 5
(bench/truth/implicit4.py, implicit5.py, all held out) are written to implicit4/ and implicit5/ and checked with it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.truth.catalogue import (  # noqa: E402
    HELD_OUT_THEMES,
    KINDS,
    NOISE,
    NOISE_ANCHORS,
    THEMES,
    TREATMENTS,
    TUNE_THEMES,
    WEIGHTS,
    Event,
    Fact,
    Theme,
)
from bench.truth.hand import HAND  # noqa: E402
from bench.truth.judge import judge  # noqa: E402
from bench.truth.regen import run  # noqa: E402
from sample_sessions._gen import claude_code as cc  # noqa: E402
from sample_sessions._gen import codex as cx  # noqa: E402
from sample_sessions._gen.pi import PiSession  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "truth"
FORMATS = ("pi", "openclaw", "claude_code", "codex")
EXTENSION = {"pi": "jsonl", "openclaw": "jsonl", "claude_code": "jsonl", "codex": "jsonl"}
VERDICT = {"verbatim": "kept", "reworded": "reworded", "dropped": "lost", "contradicted": "contradicted"}


# ---------------------------------------------------------------------------
# The script of one session
# ---------------------------------------------------------------------------


def filler(theme: Theme) -> list[Event]:
    """Long tool outputs that establish no fact (a summarizer with a budget has to leave them out)."""
    listing = "\n".join(
        f"-rw-r--r-- 1 dev dev {1000 + 37 * i:>6} Nov 20 09:{i:02d} module_{i:02d}.txt" for i in range(60)
    )
    tests = "\n".join(f"tests/test_part_{i:02d}.py::test_case_{j} PASSED" for i in range(12) for j in range(6))
    log = "\n".join(
        f"{'0123456789abcdef'[i % 16] * 7} chore: routine change number {i} in {theme.name}" for i in range(40)
    )
    return [
        ("tool", "bash", "ls -la", listing, False),
        ("tool", "bash", "pytest -q -rA", tests + "\n72 passed in 3.10s", False),
        ("tool", "bash", "git log --oneline -n 40", log, False),
    ]


def script(theme: Theme) -> list[Event]:
    """The conversation between the two compactions: every fact's source, noise between, the latest request last."""
    f = theme.facts
    noise = list(NOISE)
    padding = filler(theme)
    order: list[Event] = []
    order.append(padding[0])
    order += f["constraint"].source
    order += f["path"].source
    order.append(noise[0])
    order += f["name"].source
    order += f["number"].source
    order += f["preference"].source
    order.append(noise[1])
    order += f["decision"].source
    order += f["error"].source
    order.append(noise[2])
    order += f["error"].later
    order.append(padding[1])
    order += f["todo"].source
    order.append(noise[3])
    order.append(padding[2])
    order += f["preference"].later
    order.append(noise[4])
    order += f["request"].source
    return order


def line(fact: Fact, treatment: str) -> str | None:
    if treatment == "dropped":
        return None
    return {"verbatim": fact.verbatim, "reworded": fact.reworded, "contradicted": fact.contradicted}[treatment]


def bullets(*lines: str | None, prefix: str = "- ") -> str:
    kept = [f"{prefix}{x}" for x in lines if x]
    return "\n".join(kept) if kept else f"{prefix}(none)"


def summary_text(fmt: str, theme: Theme, lines: dict[str, str | None]) -> str:
    """The summary under test, shaped as the agent's own compaction prompt asks."""
    g = lines.get
    fixed = theme.facts["error"].variant == "fixed"
    if fmt == "pi":
        return "\n".join(
            [
                "## Goal",
                g("request") or f"Continue work on {theme.project}.",
                "",
                "## Constraints & Preferences",
                bullets(g("constraint"), g("preference")),
                "",
                "## Progress",
                "### Done",
                bullets(g("error") if fixed else None, prefix="- [x] "),
                "",
                "### In Progress",
                f"- [ ] Work on {theme.project}",
                "",
                "### Blocked",
                bullets(None if fixed else g("error")),
                "",
                "## Key Decisions",
                bullets(g("decision")),
                "",
                "## Next Steps",
                bullets(g("todo"), prefix="1. "),
                "",
                "## Critical Context",
                bullets(g("path"), g("name"), g("number"), g("previous")),
            ]
        )
    if fmt == "claude_code":
        body = "\n".join(
            [
                "1. Primary Request and Intent:",
                f"   - {g('request') or f'Work on {theme.project}.'}",
                "2. Key Technical Concepts:",
                bullets(g("decision"), g("number"), prefix="   - "),
                "3. Files and Code Sections:",
                bullets(g("path"), g("name"), prefix="   - "),
                "4. Errors and fixes:",
                bullets(g("error"), prefix="   - "),
                "5. Problem Solving:",
                f"   Work on {theme.project} went on step by step.",
                "6. All user messages:",
                bullets(g("constraint"), g("preference"), prefix="   - "),
                "7. Pending Tasks:",
                bullets(g("todo"), prefix="   - "),
                "8. Current Work:",
                f"   {g('previous') or 'Continuing the task.'}",
                "9. Optional Next Step:",
                "   Continue with the most recent request.",
            ]
        )
        return (
            "This session is being continued from a previous conversation that ran out of context. "
            "The summary below covers the earlier portion of the conversation.\n\nSummary:\n"
            + body
            + "\n\nPlease continue the conversation from where we left it off without asking the user any further "
            "questions. Continue with the last task that you were asked to work on."
        )
    if fmt == "codex":
        return "\n".join(
            [
                f"Handoff summary for {theme.project}.",
                "",
                "Progress and key decisions:",
                bullets(g("decision"), g("error")),
                "",
                "Constraints and user preferences:",
                bullets(g("constraint"), g("preference"), g("previous")),
                "",
                "Next steps:",
                bullets(g("request"), g("todo")),
                "",
                "References:",
                bullets(g("path"), g("name"), g("number")),
            ]
        )
    # OpenClaw 2026.9's sections
    return "\n".join(
        [
            "## Decisions",
            bullets(g("decision")),
            "",
            "## Open TODOs",
            bullets(g("todo")),
            "",
            "## Constraints/Rules",
            bullets(g("constraint"), g("preference"), g("previous")),
            "",
            "## Pending user asks",
            bullets(g("request")),
            "",
            "## Exact identifiers",
            bullets(g("path"), g("name"), g("number")),
            "",
            "## Tool Failures",
            bullets(g("error")),
        ]
    )


def previous_summary(fmt: str, theme: Theme) -> str:
    line_ = theme.facts["previous"].verbatim
    if fmt == "claude_code":
        return (
            "This session is being continued from a previous conversation that ran out of context. "
            f"The summary below covers the earlier portion of the conversation.\n\nSummary:\n1. Primary Request and "
            f"Intent:\n   - Work on {theme.project}.\n8. Current Work:\n   {line_}"
        )
    return f"## Goal\nWork on {theme.project}.\n\n## Critical Context\n- {line_}"


# ---------------------------------------------------------------------------
# Writers, one per format, on the project's sample writers
# ---------------------------------------------------------------------------

OPENING_USER = "We're picking {project} up again today."
OPENING_SAY = "Sure, ready to continue."
KEPT_SAY = "On it."


def write_pi(path: Path, fmt: str, theme: Theme, seed: int, summary: str, reread: str | None) -> None:
    s = PiSession(seed=seed, start="2026-11-20T09:00:00.000Z", cwd=theme.cwd, version=4 if fmt == "openclaw" else 3)
    shell = "exec" if fmt == "openclaw" else "bash"
    s.user(OPENING_USER.format(project=theme.project))
    first_kept = s.say(OPENING_SAY)
    s.append(
        "compaction",
        {"summary": previous_summary(fmt, theme), "firstKeptEntryId": first_kept["id"], "tokensBefore": 5200},
    )
    for event in script(theme):
        _pi_event(s, event, shell)
    kept = s.say(KEPT_SAY)
    s.append(
        "compaction",
        {
            "summary": summary,
            "firstKeptEntryId": kept["id"],
            "tokensBefore": 9100,
            "details": {"readFiles": [], "modifiedFiles": []},
            **({"fromHook": True} if fmt == "openclaw" else {}),
        },
    )
    if reread:
        _pi_event(s, ("tool", "read", reread, "(file contents)", False), shell)
        s.say("Re-read it.")
    s.write(str(path))


def _pi_event(s: PiSession, event: Event, shell: str) -> None:
    if event[0] == "user":
        s.user(event[1])
    elif event[0] == "say":
        s.say(event[1])
    else:
        _, tool, arg, result, error = event
        if tool == "read":
            s.step("read", {"path": arg}, result, error=error)
        else:
            s.step(shell, {"command": arg}, result, error=error)


def write_claude(path: Path, theme: Theme, seed: int, summary: str, reread: str | None) -> None:
    cc.CWD = theme.cwd
    s = cc.ClaudeCodeSession(seed=seed, start="2026-11-20T09:00:00.000Z")
    s.user(OPENING_USER.format(project=theme.project))
    s.assistant([{"type": "text", "text": OPENING_SAY}])
    claude_compact(s, previous_summary("claude_code", theme))
    for event in script(theme):
        _claude_event(s, event, theme)
    s.assistant([{"type": "text", "text": KEPT_SAY}])
    claude_compact(s, summary)
    if reread:
        _claude_event(s, ("tool", "read", reread, "(file contents)", False), theme)
        s.assistant([{"type": "text", "text": "Re-read it."}])
    s.write(str(path))


def claude_compact(s: cc.ClaudeCodeSession, summary: str, trigger: str = "manual") -> None:
    """Claude Code's compaction records: the boundary (a new root naming the leaf before it) and the summary turn."""
    before = s.leaf
    s.add(
        "system",
        {
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "isMeta": False,
            "level": "info",
            "compactMetadata": {"trigger": trigger, "preTokens": 9100},
        },
        parent=None,
        extra_front={"logicalParentUuid": before},
    )
    s.add(
        "user",
        {"message": {"role": "user", "content": summary}, "isVisibleInTranscriptOnly": True, "isCompactSummary": True},
    )


def _claude_event(s: cc.ClaudeCodeSession, event: Event, theme: Theme) -> None:
    if event[0] == "user":
        s.user(event[1])
    elif event[0] == "say":
        s.assistant([{"type": "text", "text": event[1]}])
    else:
        _, tool, arg, result, error = event
        if tool == "read":
            s.tool("Read", {"file_path": f"{theme.cwd}/{arg}"}, result, error=error)
        else:
            s.tool("Bash", {"command": arg, "description": "run it"}, result, error=error)


def write_codex(path: Path, theme: Theme, seed: int, summary: str, reread: str | None) -> None:
    cx.CWD = theme.cwd
    r = cx.Rollout(seed=seed, start="2026-11-20T09:00:00.000Z")
    r.emit(
        "session_meta",
        {
            "id": f"0199aa00-0000-4000-8000-{seed:012d}",
            "timestamp": "2026-11-20T09:00:00.000Z",
            "cwd": theme.cwd,
            "originator": "codex_cli_rs",
            "cli_version": "0.58.0",
            "instructions": None,
            "source": "cli",
            "model_provider": "openai",
        },
        pause=(0, 0),
    )
    r.user(OPENING_USER.format(project=theme.project))
    r.say(OPENING_SAY)
    _codex_compact(r, previous_summary("codex", theme))
    for event in script(theme):
        _codex_event(r, event)
    r.say(KEPT_SAY)
    _codex_compact(r, summary, keep_last=True)
    if reread:
        _codex_event(r, ("tool", "read", reread, "(file contents)", False))
        r.say("Re-read it.")
    r.write(str(path))


def _codex_compact(r: cx.Rollout, summary: str, keep_last: bool = False) -> None:
    item = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": cx.SUMMARY_PREFIX + "\n" + summary}],
    }
    replacement = [item] + ([r.history[-1]] if keep_last else [])
    r.emit("compacted", {"message": summary, "replacement_history": replacement})
    r.emit("event_msg", {"type": "context_compacted"})
    r.history = list(replacement)


def _codex_event(r: cx.Rollout, event: Event) -> None:
    if event[0] == "user":
        r.user(event[1])
    elif event[0] == "say":
        r.say(event[1])
    else:
        _, tool, arg, result, error = event
        command = f"cat {arg}" if tool == "read" else arg
        r.shell(command, result, code=1 if error else 0)


# ---------------------------------------------------------------------------
# The set
# ---------------------------------------------------------------------------


def sessions() -> list[dict[str, Any]]:
    """Every session of the set: id, split, format, theme and each kind's treatment."""
    out: list[dict[str, Any]] = []
    plan = [("tune", TUNE_THEMES), ("heldout", HELD_OUT_THEMES)]
    n = 0
    for split, themes in plan:
        for round_, theme_index in enumerate(themes):
            for f_index, fmt in enumerate(FORMATS):
                treatments = {kind: TREATMENTS[(f_index + round_ + k) % 4] for k, kind in enumerate(KINDS)}
                theme = THEMES[theme_index]
                out.append(
                    {
                        "id": f"{split}-{n:02d}-{fmt}-{theme.name}",
                        "split": split,
                        "format": fmt,
                        "theme": theme_index,
                        "seed": 1000 + n,
                        "treatments": treatments,
                        # a dropped path read again after the compaction, in every other session that drops it
                        "reread": treatments["path"] == "dropped" and n % 2 == 0,
                    }
                )
                n += 1
    return out


def reread_path(theme: Theme) -> str:
    return next(e[2] for e in theme.facts["path"].source if e[0] == "tool")


def build(out: Path) -> list[str]:
    """Write every session and the key; returns the problems of the self-check (judge vs treatment)."""
    problems: list[str] = []
    (out / "sessions").mkdir(parents=True, exist_ok=True)
    (out / "summaries").mkdir(parents=True, exist_ok=True)
    facts: list[dict[str, Any]] = []
    for spec in sessions():
        theme = THEMES[spec["theme"]]
        fmt = spec["format"]
        lines = {kind: line(theme.facts[kind], spec["treatments"][kind]) for kind in KINDS}
        summary = summary_text(fmt, theme, lines)
        file = out / "sessions" / f"{spec['id']}.{EXTENSION[fmt]}"
        reread = reread_path(theme) if spec["reread"] else None
        if fmt in ("pi", "openclaw"):
            write_pi(file, fmt, theme, spec["seed"], summary, reread)
        elif fmt == "claude_code":
            write_claude(file, theme, spec["seed"], summary, reread)
        else:
            write_codex(file, theme, spec["seed"], summary, reread)
        (out / "summaries" / f"{spec['id']}.txt").write_text(summary + "\n", encoding="utf-8")
        for kind in KINDS:
            fact = theme.facts[kind]
            treatment = spec["treatments"][kind]
            verdict = judge(fact.present, fact.contra, summary, fact.variant == "revoked")
            expected = {"verbatim": "kept", "reworded": "kept", "dropped": "lost", "contradicted": "contradicted"}
            if verdict != expected[treatment]:
                problems.append(f"{spec['id']} {kind} {treatment}: the judge says {verdict}")
            source = [e[1] if e[0] in ("user", "say") else f"{e[1]} {e[2]}" for e in fact.source + fact.later]
            facts.append(
                {
                    "id": f"{spec['id']}/{kind}",
                    "session": spec["id"],
                    "file": f"sessions/{file.name}",
                    "format": fmt,
                    "split": spec["split"],
                    "theme": theme.name,
                    "kind": kind,
                    "variant": fact.variant,
                    "treatment": treatment,
                    "truth": VERDICT[treatment],
                    "recovered": kind == "path" and bool(reread),
                    "weight": WEIGHTS[kind],
                    "anchors": list(fact.anchors),
                    "source": source or [f"previous summary: {fact.verbatim}"],
                    "summary_line": line(fact, treatment),
                    "judge": {
                        "present": list(fact.present),
                        "contra": list(fact.contra),
                        **({"revoked": True} if fact.variant == "revoked" else {}),
                    },
                }
            )
    key = {
        "description": "Answer key of the truth set; see bench/truth/README.md.",
        "truth_values": ["kept", "reworded", "lost", "contradicted"],
        "noise_anchors": list(NOISE_ANCHORS),
        "sessions": [
            {k: v for k, v in spec.items() if k != "seed"} | {"file": f"sessions/{spec['id']}.jsonl"}
            for spec in sessions()
        ],
        "facts": facts,
    }
    (out / "key.json").write_text(json.dumps(key, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "hand.json").write_text(json.dumps(HAND, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    # the implicit facts' held-out rounds 4 and 5 (bench/truth/implicit4.py, implicit5.py) are built and checked with
    # the main set
    from bench.truth import implicit4, implicit5

    return problems + implicit4.build(out / "implicit4") + implicit5.build(out / "implicit5")


def main() -> int:
    return run(__doc__ or "", OUT, build)


if __name__ == "__main__":
    sys.exit(main())
