"""Split-turn sessions for the truth set: the cut falls inside the turn of the latest request.

    python bench/truth/split_turns.py            # writes tests/fixtures/truth/split/ (deterministic)
    python bench/truth/split_turns.py --check    # fails if the committed files differ from a fresh run

One session per theme of catalogue.py (tune themes 0-3, held-out themes 4-5, never tuned
on) in each agent format. Each has an earlier ask that was finished (a test run reported
green, in words that do not start with "Done"), then the theme's latest request, whose turn
the compaction under test cuts:

- pi and OpenClaw: a real split turn. The compaction keeps from an assistant message in
  the middle of the turn (`firstKeptEntryId`), so the history part ends with the finished
  ask's answer and the turn prefix holds the latest request and the work begun on it.
- Claude Code and Codex: the whole conversation is summarized mid-turn (as an automatic
  compaction does); the turn's work goes on after it. An intermediate text of the turn
  starts with "Done …" ("Done reading the handler; now the change itself.") while the
  work goes on.

The key (`split/key.json`) names per session the latest request's judge (the theme's
`request` fact: it must be in the section that says what is under way) and the finished
ask's (it must not be there).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.truth.catalogue import HELD_OUT_THEMES, THEMES, TUNE_THEMES, Theme  # noqa: E402
from bench.truth.generate import FORMATS, claude_compact, filler  # noqa: E402
from bench.truth.regen import run, write_key  # noqa: E402
from sample_sessions._gen import claude_code as cc  # noqa: E402
from sample_sessions._gen import codex as cx  # noqa: E402
from sample_sessions._gen.pi import PiSession  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "truth" / "split"
FINISHED_JUDGE = r"full test suite"
MIDWAY_SAY = "Done reading the handler; now the change itself."


def finished_ask(theme: Theme) -> str:
    return f"Run the full test suite for {theme.project} and tell me whether anything fails."


def finished_answer(theme: Theme) -> str:
    return f"Suite result for {theme.project}: 72 passed, nothing fails."


def latest_request(theme: Theme) -> str:
    return str(next(e[1] for e in theme.facts["request"].source if e[0] == "user"))


def work_path(theme: Theme) -> str:
    return str(next(e[2] for e in theme.facts["path"].source if e[0] == "tool"))


def recorded_summary(theme: Theme) -> str:
    """The summary the session holds (model-shaped, for reading; the judges never read it)."""
    return (
        f"## Goal\n{latest_request(theme)}\n\n## Progress\n### Done\n- [x] {finished_ask(theme)}\n\n"
        f"### In Progress\n- [ ] {latest_request(theme)}"
    )


def write_pi(path: Path, fmt: str, theme: Theme, seed: int) -> None:
    s = PiSession(seed=seed, start="2026-11-21T09:00:00.000Z", cwd=theme.cwd, version=4 if fmt == "openclaw" else 3)
    shell = "exec" if fmt == "openclaw" else "bash"
    listing, tests, log = (event[3] for event in filler(theme))
    s.user(f"We're picking {theme.project} up again today.")
    s.say("Sure, ready to continue.")
    s.user(finished_ask(theme))
    s.step(shell, {"command": "pytest -q -rA"}, tests + "\n72 passed in 3.10s")
    s.say(finished_answer(theme))
    s.user(latest_request(theme))
    s.step("read", {"path": work_path(theme)}, listing)
    s.step(shell, {"command": "git log --oneline -n 40"}, log)
    kept, ids = s.assistant(calls=[(shell, {"command": "ls -la"})])
    s.tool_result(ids[0], listing)
    s.append(
        "compaction",
        {
            "summary": recorded_summary(theme),
            "firstKeptEntryId": kept["id"],
            "tokensBefore": 9100,
            "details": {"readFiles": [work_path(theme)], "modifiedFiles": []},
            **({"fromHook": True} if fmt == "openclaw" else {}),
        },
    )
    s.say("Done.")
    s.write(str(path))


def write_claude(path: Path, theme: Theme, seed: int) -> None:
    cc.CWD = theme.cwd
    s = cc.ClaudeCodeSession(seed=seed, start="2026-11-21T09:00:00.000Z")
    listing, tests, log = (event[3] for event in filler(theme))
    s.user(f"We're picking {theme.project} up again today.")
    s.assistant([{"type": "text", "text": "Sure, ready to continue."}])
    s.user(finished_ask(theme))
    s.tool("Bash", {"command": "pytest -q -rA", "description": "run it"}, tests + "\n72 passed in 3.10s")
    s.assistant([{"type": "text", "text": finished_answer(theme)}])
    s.user(latest_request(theme))
    s.tool("Read", {"file_path": f"{theme.cwd}/{work_path(theme)}"}, listing)
    s.assistant([{"type": "text", "text": MIDWAY_SAY}])
    s.tool("Bash", {"command": "git log --oneline -n 40", "description": "run it"}, log)
    claude_compact(s, recorded_summary(theme), trigger="auto")
    s.tool("Bash", {"command": "ls -la", "description": "run it"}, listing)
    s.assistant([{"type": "text", "text": "Done."}])
    s.write(str(path))


def write_codex(path: Path, theme: Theme, seed: int) -> None:
    cx.CWD = theme.cwd
    r = cx.Rollout(seed=seed, start="2026-11-21T09:00:00.000Z")
    listing, tests, log = (event[3] for event in filler(theme))
    r.emit(
        "session_meta",
        {
            "id": f"0199aa00-0000-4000-9000-{seed:012d}",
            "timestamp": "2026-11-21T09:00:00.000Z",
            "cwd": theme.cwd,
            "originator": "codex_cli_rs",
            "cli_version": "0.58.0",
            "instructions": None,
            "source": "cli",
            "model_provider": "openai",
        },
        pause=(0, 0),
    )
    r.user(f"We're picking {theme.project} up again today.")
    r.say("Sure, ready to continue.")
    r.user(finished_ask(theme))
    r.shell("pytest -q -rA", tests + "\n72 passed in 3.10s")
    r.say(finished_answer(theme))
    r.user(latest_request(theme))
    r.shell(f"cat {work_path(theme)}", listing)
    r.say(MIDWAY_SAY)
    r.shell("git log --oneline -n 40", log)
    summary = recorded_summary(theme)
    item = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": cx.SUMMARY_PREFIX + "\n" + summary}],
    }
    r.emit("compacted", {"message": summary, "replacement_history": [item]})
    r.emit("event_msg", {"type": "context_compacted"})
    r.history = [item]
    r.shell("ls -la", listing)
    r.say("Done.")
    r.write(str(path))


def sessions() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    n = 0
    for split, themes in (("tune", TUNE_THEMES), ("heldout", HELD_OUT_THEMES)):
        for theme_index in themes:
            for fmt in FORMATS:
                theme = THEMES[theme_index]
                out.append(
                    {
                        "id": f"split-{split}-{n:02d}-{fmt}-{theme.name}",
                        "split": split,
                        "format": fmt,
                        "theme": theme_index,
                        "seed": 2000 + n,
                        "file": f"sessions/split-{split}-{n:02d}-{fmt}-{theme.name}.jsonl",
                        # pi and OpenClaw cut inside the turn and summarize its prefix apart
                        "turn_prefix": fmt in ("pi", "openclaw"),
                        "request": {
                            "text": latest_request(theme),
                            "present": list(theme.facts["request"].present),
                            "contra": list(theme.facts["request"].contra),
                        },
                        "finished": {"text": finished_ask(theme), "present": [FINISHED_JUDGE]},
                    }
                )
                n += 1
    return out


def build(out: Path) -> None:
    (out / "sessions").mkdir(parents=True, exist_ok=True)
    specs = sessions()
    for spec in specs:
        theme = THEMES[spec["theme"]]
        file = out / spec["file"]
        if spec["format"] in ("pi", "openclaw"):
            write_pi(file, spec["format"], theme, spec["seed"])
        elif spec["format"] == "claude_code":
            write_claude(file, theme, spec["seed"])
        else:
            write_codex(file, theme, spec["seed"])
    write_key(out, "Split-turn sessions of the truth set; see bench/truth/split_turns.py.", specs)


def main() -> int:
    return run(__doc__ or "", OUT, build)


if __name__ == "__main__":
    sys.exit(main())
