"""An opening remark told from the task by the conversation's shape, not by a word list (issue 23).

The first user turn is short, the assistant answered it without a tool call, the next message asks for
something and shares none of its content words, and nothing later takes them up: an opening, and the
goal is the ask after it, whatever its words ("Long time no see!", "Rough week, honestly."). A short
first message that is the task stays the goal: the assistant set to work at once, or asked which one
was meant and the answer asks for nothing new, or the work or a later ask names what it said. The
truth set's tune sessions of this shape (tests/fixtures/truth/openings/, round `tune-shape`, in pi,
Claude Code and Codex format) are checked here; the held-out round only by bench/bench_summary_truth.py.
"""

from __future__ import annotations

import json
import re

import pytest

from cutline.core.agents import read_session
from cutline.core.models import Message, TextBlock, ToolCallBlock
from cutline.core.summarizers.base import SummaryRequest
from cutline.core.summarizers.extractive import parse_summary, summarize_extractive
from tests.support.paths import ROOT

OPENINGS = ROOT / "tests" / "fixtures" / "truth" / "openings"
PROMPT = {"pi": "pi-checkpoint", "claude_code": "claude-code", "codex": "codex"}
SHAPE_TUNE = [
    s for s in json.loads((OPENINGS / "key.json").read_text(encoding="utf-8"))["sessions"] if s["split"] == "tune-shape"
]
TASK = "Please add a --bbox flag to the build command, clipped to the bounding box."
FOLLOW_UP = "Also add a short note about it to the changelog."


def user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text=text)])


def say(text: str) -> Message:
    return Message(role="assistant", content=[TextBlock(text=text)], stopReason="stop")


def step(call_id: str, name: str, output: str, **arguments: object) -> list[Message]:
    return [
        Message(role="assistant", content=[ToolCallBlock(id=call_id, name=name, arguments=arguments)]),
        Message(role="toolResult", toolCallId=call_id, toolName=name, content=[TextBlock(text=output)]),
    ]


def goal(messages: list[Message]) -> str:
    summary = summarize_extractive(SummaryRequest(messages=messages))
    return " ".join(text for key, text in parse_summary(summary) if key == "goal").lower()


def task_work() -> list[Message]:
    return [
        user(TASK),
        *step("r1", "read", "def build(args): ...", path="tiler/cli/build.py"),
        *step("b1", "bash", "72 passed in 3.10s", command="pytest -q"),
        say("Added --bbox to tiler/cli/build.py; the suite passes."),
        user(FOLLOW_UP),
        *step("r2", "read", "# Changelog", path="CHANGELOG.md"),
    ]


@pytest.mark.parametrize(
    ("opening", "reply"),
    [
        ("Long time no see!", "Long time no see! What are we working on today?"),
        ("Rough week, honestly.", "Sorry to hear that. What can I take off your plate?"),
        ("so I've been meaning to ask", "Sure, go ahead: what is it?"),
        ("Happy Friday!", "Happy Friday to you too! What's on the list?"),
        ("Back again, round two :)", "Welcome back! What's next?"),
    ],
)
def test_a_short_first_turn_answered_without_work_before_a_task_is_an_opening(opening: str, reply: str) -> None:
    found = goal([user(opening), say(reply), *task_work()])
    assert "--bbox" in found
    assert opening.lower().strip("!.:) ") not in found


def test_a_short_task_the_assistant_works_on_at_once_stays_the_goal() -> None:
    messages = [
        user("rename the staging workspace to stage"),
        *step("r0", "read", 'workspace = "staging"', path="terraform/envs/prod/backend.tf"),
        say("Renamed it; terraform validate passes."),
        *task_work(),
    ]
    assert "rename the staging workspace to stage" in goal(messages)


def test_a_short_task_whose_clarification_asks_for_nothing_new_stays_the_goal() -> None:
    messages = [
        user("bump the version to 2.1"),
        say("Only Cargo.toml, or the changelog heading as well?"),
        user("Both, and keep the lockfile in sync."),
        *step("e0", "edit", "ok", path="Cargo.toml", oldText='version = "2.0.3"', newText='version = "2.1.0"'),
        say("Bumped the version to 2.1.0."),
        *task_work(),
    ]
    assert "bump the version to 2.1" in goal(messages)


def test_a_short_task_whose_words_name_a_file_the_work_touches_stays_the_goal() -> None:
    # the answer to "which one?" is a request of its own, but the work is on the cart test the first message named
    messages = [
        user("fix the flaky cart test"),
        say("Which one: the totals snapshot test or the coupon test?"),
        user("Can you make the snapshot one deterministic?"),
        *step("r0", "read", "new Date()", path="web/src/cart/CartTotals.test.tsx"),
        say("Pinned the clock in the snapshot."),
        *task_work(),
    ]
    assert "fix the flaky cart test" in goal(messages)


def test_a_short_task_a_later_ask_takes_up_stays_the_goal() -> None:
    messages = [
        user("tile cache speedup"),
        say("Sure, what did you have in mind?"),
        *task_work(),
        user("And then measure the tile cache hit rate again."),
    ]
    assert "tile cache speedup" in goal(messages)


def test_only_the_span_s_first_user_turn_may_be_an_opening() -> None:
    # a statement after a rule, answered without work: a fact the user gave, not a greeting
    messages = [
        user("Never log the Authorization header."),
        say("Noted."),
        user("The nightly export runs in batches of 500 rows."),
        say("Good to know."),
        *task_work(),
    ]
    assert "500 rows" in goal(messages)


def test_a_long_first_message_is_not_a_passing_remark() -> None:
    first = "The importer has been dropping rows with an empty memo since the upgrade last Tuesday, I think."
    assert "dropping rows" in goal([user(first), say("That sounds bad. What should I do first?"), *task_work()])


def test_content_words_leave_function_words_out_and_fold_plurals() -> None:
    from cutline.core.summarizers.opening_shape import content_words

    assert content_words("so I've been meaning to ask") == {"meaning", "ask"}
    assert content_words("fix the flaky cart tests") == {"fix", "flaky", "cart", "test"}
    assert content_words("Yo.") == frozenset()


@pytest.mark.parametrize("session", SHAPE_TUNE, ids=[s["id"] for s in SHAPE_TUNE])
def test_the_truth_set_s_tune_shape_sessions_keep_the_task_as_the_goal(session: dict[str, object]) -> None:
    path = OPENINGS / str(session["file"])
    messages = [e.message for e in read_session(path).active_path() if e.message is not None]
    prompt = PROMPT[str(session["format"])]
    summary = summarize_extractive(SummaryRequest(prompt_name=prompt, messages=messages))
    found = " ".join(text for key, text in parse_summary(summary) if key == "goal").lower()
    task = session["task"]
    assert isinstance(task, dict)
    assert all(re.search(p, found) for p in task["present"]), summary
    if not session["opening_is_task"]:
        opening = re.escape(str(session["opening"]).lower().strip(" .!:)?"))
        assert not re.search(rf"(?<!\w){opening}(?!\w)", found), summary
