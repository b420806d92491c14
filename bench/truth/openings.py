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
    return out


def build(out: Path) -> None:
    (out / "sessions").mkdir(parents=True, exist_ok=True)
    specs = sessions()
    for spec in specs:
        write(out / spec["file"], THEMES[spec["theme"]], spec["opening"], spec["seed"])
    write_key(out, "Sessions opening with a remark before the task; see bench/truth/openings.py.", specs)


def main() -> int:
    return run(__doc__ or "", OUT, build)


if __name__ == "__main__":
    sys.exit(main())
