"""An opening remark is not the goal: "hi", "hello, can you help me", "I have a question" (issue 23).

The tune part of the truth set's openings (tests/fixtures/truth/openings/, bench/truth/openings.py):
the goal of each session's offline summary holds the task set after the opening, never the opening.
The held-out parts (the first and the new one) are measured by bench/bench_summary_truth.py only.
"""

from __future__ import annotations

import json
import re

import pytest

from cutline.core.agents import read_session
from cutline.core.summarizers.base import SummaryRequest
from cutline.core.summarizers.extractive import parse_summary, summarize_extractive
from cutline.core.summarizers.user_text import read_user_text
from tests.support.paths import ROOT

OPENINGS = ROOT / "tests" / "fixtures" / "truth" / "openings"
TUNE = [
    s
    for s in json.loads((OPENINGS / "key.json").read_text(encoding="utf-8"))["sessions"]
    if s["split"] in ("tune", "tune-new")
]


@pytest.mark.parametrize("session", TUNE, ids=[s["id"] for s in TUNE])
def test_the_goal_is_the_task_set_after_an_opening_remark(session: dict[str, object]) -> None:
    path = OPENINGS / str(session["file"])
    messages = [e.message for e in read_session(path).active_path() if e.message is not None]
    summary = summarize_extractive(SummaryRequest(messages=messages))
    goal = " ".join(text for key, text in parse_summary(summary) if key == "goal").lower()
    task = session["task"]
    assert isinstance(task, dict)
    assert all(re.search(p, goal) for p in task["present"]), summary
    assert str(session["opening"]).lower() not in goal, summary


@pytest.mark.parametrize(
    ("typed", "kind"),
    [
        ("hi", "opening"),
        ("Hello, can you help me?", "opening"),
        ("I have a question", "opening"),
        ("hello, can you help me fix the parser?", "ask"),
        ("I have a question about the retry budget: is 5 too many?", "ask"),
        ("Can you add retry with jitter to the client?", "ask"),
        ("got a sec?", "opening"),
        ("hey, are you busy?", "opening"),
        ("need a hand with something", "opening"),
        ("need a hand with the migration script", "ask"),
        ("got a sec to review the rounding fix?", "ask"),
    ],
)
def test_an_opening_is_told_from_a_task_that_starts_like_one(typed: str, kind: str) -> None:
    assert read_user_text(typed).kind == kind
