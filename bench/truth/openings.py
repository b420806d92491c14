"""Sessions that open with a remark, not the task, for the truth set: the goal must be the task.

    python bench/truth/openings.py            # writes tests/fixtures/truth/openings/ (deterministic)
    python bench/truth/openings.py --check    # fails if the committed files differ from a fresh run

People often start with "hi", "hello, can you help me" or "I have a question" and set the
task in the next turn. One pi session per theme of catalogue.py and opening (tune themes 0-3
with the tune openings, held-out themes 4-5 with openings of their own, never tuned on): the
opening, the assistant's offer to help, the theme's request as the task, the work on it, then
a follow-up ask, so the goal is neither the first nor the latest message. The key
(`openings/key.json`) names per session the task's judge (the theme's `request` fact: it must
be in the goal) and the opening (it must not be).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.truth.catalogue import HELD_OUT_THEMES, THEMES, TUNE_THEMES, Theme  # noqa: E402
from bench.truth.generate import filler  # noqa: E402
from bench.truth.regen import run, write_key  # noqa: E402
from bench.truth.split_turns import latest_request, work_path  # noqa: E402
from sample_sessions._gen import claude_code as cc  # noqa: E402
from sample_sessions._gen import codex as cx  # noqa: E402
from sample_sessions._gen.pi import PiSession  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "truth" / "openings"
TUNE_OPENINGS = ("hi", "hello, can you help me", "I have a question", "hey there! are you around?")
HELD_OUT_OPENINGS = ("Good morning :)", "quick question for you", "Hiya, I need some help with something.")
NEW_TUNE_OPENINGS = (
    "got a sec?",
    "can I ask you something",
    "hey, one thing",
    "morning! so",
    "you there?",
    "hey, are you busy?",
    "need a hand with something",
    "hi, quick one",
)
# a second round of other shapes (issue 23): the held-out ones written first, before the rule was generalized
NEW_HELD_OUT_OPENINGS = (
    "Afternoon! You free for a bit?",
    "hey there, got a minute?",
    "Hi again. Mind helping me with something?",
    "ok so here's the thing",
)
FOLLOW_UP = "Also add a short note about it to the changelog."

# A third round (issue 23, `tune-shape` / `heldout-shape`): openings of shapes no vocabulary of the summarizer
# holds (a greeting of another kind, a personal remark, "so I've been meaning to ask"), each answered in words
# of its own (some echo the remark, as people and models do), some in Claude Code's and Codex's formats; and
# negatives, where the short first message IS the task and must stay the goal: the assistant either sets to
# work at once or first asks which one is meant (no tool call), and the user's answer sets no new task.
# The held-out round was written and committed, and measured once with main's summarizer, before any rule.
# (theme, format, opening, the assistant's reply) for an opening; for a negative, the reply is None when the
# assistant works at once, and `clarify` holds the user's answer and the files the work touches.
SHAPE_TUNE: tuple[dict[str, Any], ...] = (
    {"theme": 0, "format": "pi", "opening": "Sup", "reply": "Hey! What can I do for you?"},
    {"theme": 0, "format": "claude_code", "opening": "Back again, round two :)", "reply": "Welcome back! What's next?"},
    {
        "theme": 1,
        "format": "pi",
        "opening": "Rough week, honestly.",
        "reply": "Sorry to hear that. What can I take off your plate?",
    },
    {
        "theme": 1,
        "format": "pi",
        "opening": "speed up the tile cache",
        "reply": "Which part: the disk cache or the in-memory LRU?",
        "task": {"present": [r"speed up the tile cache"]},
        "clarify": "The in-memory one; evictions dominate the profile, hot tiles should stay longer.",
        "work": ("tiler/cache/lru.py", "max_entries = 512", "max_entries = 4096"),
        "done": "Done: the tile cache keeps 4096 entries now, so hot tiles stay; the suite passes.",
    },
    {
        "theme": 2,
        "format": "pi",
        "opening": "What's the weather like on your side? :D",
        "reply": "No weather in here, just code. What are we building?",
    },
    {"theme": 2, "format": "codex", "opening": "Anyone home?", "reply": "Yes, I'm here. What do you need?"},
    {
        "theme": 3,
        "format": "pi",
        "opening": "Coffee first, then code.",
        "reply": "Sounds like a plan. What's on the list?",
    },
    {
        "theme": 3,
        "format": "pi",
        "opening": "rename the staging workspace to stage",
        "reply": None,
        "task": {"present": [r"rename the staging workspace"]},
        "work": ("terraform/envs/staging/backend.tf", 'workspace = "staging"', 'workspace = "stage"'),
        "done": "Renamed the staging workspace to stage; terraform validate passes.",
    },
)
SHAPE_HELD_OUT: tuple[dict[str, Any], ...] = (
    {"theme": 4, "format": "pi", "opening": "Yo.", "reply": "Hey! What's up?"},
    {
        "theme": 4,
        "format": "claude_code",
        "opening": "Long time no see!",
        "reply": "Long time no see! What are we working on today?",
    },
    {"theme": 4, "format": "pi", "opening": "so I've been meaning to ask", "reply": "Sure, go ahead: what is it?"},
    {
        "theme": 4,
        "format": "pi",
        "opening": "fix the flaky cart test",
        "reply": "Which one: the totals snapshot test or the coupon test?",
        "task": {"present": [r"flaky cart test"]},
        "clarify": "The totals snapshot one; it fails about one run in five on CI.",
        "work": ("web/src/cart/CartTotals.test.tsx", "new Date()", "new Date('2026-01-01T00:00:00Z')"),
        "done": "Fixed the flaky cart test: the totals snapshot no longer depends on the clock.",
    },
    {"theme": 5, "format": "pi", "opening": "Are you around?", "reply": "Yes, I'm here. What do you need?"},
    {
        "theme": 5,
        "format": "codex",
        "opening": "Just back from two weeks off, my inbox is a disaster.",
        "reply": "Welcome back! Where would you like to start?",
    },
    {"theme": 5, "format": "pi", "opening": "Happy Friday!", "reply": "Happy Friday to you too! What's on the list?"},
    {
        "theme": 5,
        "format": "pi",
        "opening": "bump the version to 2.1",
        "reply": "Only Cargo.toml, or the changelog heading as well?",
        "task": {"present": [r"bump the version to 2\.1"]},
        "clarify": "Both, and keep the lockfile in sync.",
        "work": ("Cargo.toml", 'version = "2.0.3"', 'version = "2.1.0"'),
        "done": "Bumped the version to 2.1.0 in Cargo.toml, Cargo.lock and the changelog.",
    },
    # added after main's first measurement, before any rule: "Yo." and "Are you around?" turned out to be in
    # the summarizer's opening vocabulary already, so two more shapes outside it
    {"theme": 4, "format": "pi", "opening": "Ugh, Mondays.", "reply": "Mondays indeed. What can I help with?"},
    {
        "theme": 5,
        "format": "pi",
        "opening": "My cat just walked across the keyboard, sorry about that.",
        "reply": "No harm done! What would you like to work on?",
    },
)


def write(path: Path, theme: Theme, opening: str, seed: int) -> None:
    s = PiSession(seed=seed, start="2026-11-22T09:00:00.000Z", cwd=theme.cwd)
    listing, tests, _log = (event[3] for event in filler(theme))
    s.user(opening)
    s.say("Sure, what do you need?")
    s.user(latest_request(theme))
    s.step("read", {"path": work_path(theme)}, listing)
    s.step("bash", {"command": "pytest -q"}, tests + "\n72 passed in 3.10s")
    s.say(f"Changed {work_path(theme)}; the suite passes.")
    s.user(FOLLOW_UP)
    s.step("read", {"path": "CHANGELOG.md"}, "# Changelog\n\n## Unreleased\n")
    s.write(str(path))


def write_shape(path: Path, theme: Theme, spec: dict[str, Any], seed: int) -> None:
    """A third-round session: the opening (or the short task and its work), then the theme's request, a follow-up."""
    listing, tests, _log = (event[3] for event in filler(theme))
    fmt = spec["format"]
    if fmt == "claude_code":
        cc.CWD = theme.cwd
        c = cc.ClaudeCodeSession(seed=seed, start="2026-11-23T09:00:00.000Z")
        c.user(spec["opening"])
        c.assistant([{"type": "text", "text": spec["reply"]}])
        c.user(latest_request(theme))
        c.tool("Read", {"file_path": f"{theme.cwd}/{work_path(theme)}"}, listing)
        c.tool("Bash", {"command": "pytest -q", "description": "run the tests"}, tests + "\n72 passed in 3.10s")
        c.assistant([{"type": "text", "text": f"Changed {work_path(theme)}; the suite passes."}])
        c.user(FOLLOW_UP)
        c.tool("Read", {"file_path": f"{theme.cwd}/CHANGELOG.md"}, "# Changelog\n\n## Unreleased\n")
        c.write(str(path))
        return
    if fmt == "codex":
        cx.CWD = theme.cwd
        r = cx.Rollout(seed=seed, start="2026-11-23T09:00:00.000Z")
        meta = {"id": f"0199bb00-0000-4000-9000-{seed:012d}", "timestamp": "2026-11-23T09:00:00.000Z"}
        meta |= {"cwd": theme.cwd, "originator": "codex_cli_rs", "cli_version": "0.58.0", "instructions": None}
        r.emit("session_meta", meta | {"source": "cli", "model_provider": "openai"}, pause=(0, 0))
        r.user(spec["opening"])
        r.say(spec["reply"])
        r.user(latest_request(theme))
        r.shell(f"cat {work_path(theme)}", listing)
        r.shell("pytest -q", tests + "\n72 passed in 3.10s")
        r.say(f"Changed {work_path(theme)}; the suite passes.")
        r.user(FOLLOW_UP)
        r.shell("cat CHANGELOG.md", "# Changelog\n\n## Unreleased\n")
        r.write(str(path))
        return
    s = PiSession(seed=seed, start="2026-11-23T09:00:00.000Z", cwd=theme.cwd)
    s.user(spec["opening"])
    if "work" in spec:  # a negative: the short first message is the task
        if spec["reply"] is not None:
            s.say(spec["reply"])
            s.user(spec["clarify"])
        file, old, new = spec["work"]
        s.step("read", {"path": file}, f"{old}\n")
        s.step("edit", {"path": file, "oldText": old, "newText": new}, f"Successfully replaced text in {file}.")
        s.step("bash", {"command": "pytest -q"}, tests + "\n72 passed in 3.10s")
        s.say(spec["done"])
    else:
        s.say(spec["reply"])
    s.user(latest_request(theme))
    s.step("read", {"path": work_path(theme)}, listing)
    s.step("bash", {"command": "pytest -q"}, tests + "\n72 passed in 3.10s")
    s.say(f"Changed {work_path(theme)}; the suite passes.")
    s.user(FOLLOW_UP)
    s.step("read", {"path": "CHANGELOG.md"}, "# Changelog\n\n## Unreleased\n")
    s.write(str(path))


def sessions() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    n = 0
    for split, themes, openings, spread in (
        ("tune", TUNE_THEMES, TUNE_OPENINGS, False),
        ("heldout", HELD_OUT_THEMES, HELD_OUT_OPENINGS, False),
        ("tune-new", TUNE_THEMES, NEW_TUNE_OPENINGS, True),
        ("heldout-new", HELD_OUT_THEMES, NEW_HELD_OUT_OPENINGS, True),
    ):
        for place, theme_index in enumerate(themes):
            for pick in range(2):
                theme = THEMES[theme_index]
                # the new sets: every opening once (two per theme)
                opening = openings[(2 * place + pick if spread else theme_index + pick) % len(openings)]
                out.append(
                    {
                        "id": f"opening-{split}-{n:02d}-pi-{theme.name}",
                        "split": split,
                        "format": "pi",
                        "theme": theme_index,
                        "seed": 3000 + n,
                        "file": f"sessions/opening-{split}-{n:02d}-pi-{theme.name}.jsonl",
                        "opening": opening,
                        "task": {
                            "text": latest_request(theme),
                            "present": list(theme.facts["request"].present),
                        },
                    }
                )
                n += 1
    for split, specs in (("tune-shape", SHAPE_TUNE), ("heldout-shape", SHAPE_HELD_OUT)):
        for shape in specs:
            theme = THEMES[shape["theme"]]
            negative = "work" in shape
            name = f"opening-{split}-{n:02d}-{shape['format']}-{theme.name}"
            task = shape["task"] if negative else {"present": list(theme.facts["request"].present)}
            out.append(
                {
                    "id": name,
                    "split": split,
                    "format": shape["format"],
                    "theme": shape["theme"],
                    "seed": 3000 + n,
                    "file": f"sessions/{name}.jsonl",
                    "opening": shape["opening"],
                    # a negative: the short first message is the task, it must be in the goal
                    "opening_is_task": negative,
                    "task": {"text": shape["opening"] if negative else latest_request(theme), **task},
                    "shape": shape,
                }
            )
            n += 1
    return out


def build(out: Path) -> None:
    (out / "sessions").mkdir(parents=True, exist_ok=True)
    specs = sessions()
    for spec in specs:
        if "shape" in spec:
            write_shape(out / spec["file"], THEMES[spec["theme"]], spec.pop("shape"), spec["seed"])
        else:
            write(out / spec["file"], THEMES[spec["theme"]], spec["opening"], spec["seed"])
    write_key(out, "Sessions opening with a remark before the task; see bench/truth/openings.py.", specs)


def main() -> int:
    return run(__doc__ or "", OUT, build)


if __name__ == "__main__":
    sys.exit(main())
