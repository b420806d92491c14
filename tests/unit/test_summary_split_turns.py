"""A turn split by the cut is recognised from the structure, not from the words "Done …" (issue 23 item 1).

Where the span ends in the last ask's turn decides: nothing after the ask yet, or tool
activity with no final answer after it, leaves the ask under way (an intermediate text
that starts with "Done" included); a final answer ends the turn (finished, unless it asks
the user, states a plan, only takes the ask on, or a failure of the turn is still open).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from cutline.core.summarizers.base import SummaryRequest
from cutline.core.summarizers.extractive import summarize_extractive
from tests.support.paths import ROOT
from tests.support.summary_messages import assistant, call, filler, result, user


def section(summary: str, heading: str) -> list[str]:
    """The lines under one heading, up to the next heading ([] when the heading is not there)."""
    lines = summary.splitlines()
    if heading not in lines:
        return []
    body: list[str] = []
    for line in lines[lines.index(heading) + 1 :]:
        if line.startswith("#") or re.match(r"^\d+\. [A-Z][\w ]+:$", line):
            break
        if line:
            body.append(line)
    return body


EARLIER = [
    user("Run the full test suite and tell me whether anything fails."),
    assistant("", call("t", "bash", command="pytest -q")),
    result("t", "\n".join(f"tests/test_{n}.py PASSED" for n in range(60)) + "\n60 passed"),
    *filler(1),
]
UNDER_WAY = "Now make the webhook handler idempotent using the Stripe event id."

# what says what is under way, per prompt
CURRENT = {
    "pi-checkpoint": "### In Progress",
    "claude-code": "8. Current Work:",
    "codex": "## In progress",
    "openclaw-safeguard": "## Pending user asks",
}


@pytest.mark.parametrize("prompt", sorted(CURRENT))
def test_a_history_part_ending_with_a_final_answer_lists_its_ask_done(prompt: str) -> None:
    """pi's split turn: the history before the turn ends with the earlier ask's answer (no "Done" in it)."""
    messages = [*EARLIER, assistant("The suite is green: 60 passed, nothing fails.")]
    summary = summarize_extractive(SummaryRequest(messages=messages, prompt_name=prompt))
    assert "full test suite" not in "\n".join(section(summary, CURRENT[prompt])), summary
    assert "Run the full test suite" in summary  # listed as done


@pytest.mark.parametrize("prompt", sorted(CURRENT))
def test_a_cut_inside_the_turn_leaves_the_ask_under_way_whatever_a_text_said(prompt: str) -> None:
    """Claude Code writes each content block as its own record: a text starting "Done" mid-turn ends nothing."""
    messages = [
        *EARLIER,
        assistant("The suite is green: 60 passed, nothing fails."),
        user(UNDER_WAY),
        assistant("", call("r", "read", path="billing/webhooks.py")),
        result("r", "def handle(event): ...", name="read"),
        assistant("Done reading the handler; now the change itself."),
        assistant("", call("e", "edit", path="billing/webhooks.py", oldText="a", newText="b")),
        result("e", "ok", name="edit"),
    ]
    summary = summarize_extractive(SummaryRequest(messages=messages, prompt_name=prompt))
    current = "\n".join(section(summary, "## Latest request (verbatim)" if prompt == "codex" else CURRENT[prompt]))
    assert UNDER_WAY in current, summary
    assert "full test suite" not in current


@pytest.mark.parametrize(
    "answer",
    [
        "Should the event id be stored in Postgres or in Redis?",
        "I read the handler. Next I'll add the idempotency key check.",
        "On it.",
    ],
)
def test_a_final_answer_that_asks_plans_or_only_takes_the_ask_on_finishes_nothing(answer: str) -> None:
    messages = [*EARLIER, user(UNDER_WAY), *filler(2), assistant(answer)]
    summary = summarize_extractive(SummaryRequest(messages=messages))
    assert f"- [ ] {UNDER_WAY}" in section(summary, "### In Progress"), summary


def test_a_final_answer_with_a_failure_of_its_turn_still_open_finishes_nothing() -> None:
    messages = [
        *EARLIER,
        user(UNDER_WAY),
        assistant("", call("t", "bash", command="pytest tests/test_webhooks.py")),
        result("t", "FAILED tests/test_webhooks.py::test_replay - AssertionError", error=True),
        assistant("The replay test still fails with an AssertionError."),
    ]
    summary = summarize_extractive(SummaryRequest(messages=messages))
    assert f"- [ ] {UNDER_WAY}" in section(summary, "### In Progress"), summary


def test_a_turn_prefix_names_its_request_as_the_original_request() -> None:
    messages = [user(UNDER_WAY), assistant("", call("r", "read", path="billing/webhooks.py")), *filler(3)]
    summary = summarize_extractive(
        SummaryRequest(kind="turn_prefix", prompt_name="pi-current-turn-prefix", messages=messages)
    )
    assert section(summary, "## Original Request") == [UNDER_WAY]


def test_the_split_turn_truth_sessions_are_the_generators_output() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "truth" / "split_turns.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    key = json.loads((ROOT / "tests" / "fixtures" / "truth" / "split" / "key.json").read_text(encoding="utf-8"))
    splits = [s["split"] for s in key["sessions"]]
    assert splits.count("tune") == 16 and splits.count("heldout") == 8


def _summary_bench():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_summary_truth", ROOT / "bench" / "bench_summary_truth.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_the_split_turn_bench_asks_the_history_part_itself_to_name_the_turn(monkeypatch) -> None:
    """bench_summary_truth.py's split-turn check reads the history part's own "under way" section: a history that
    does not name the turn (here `name_turn_under_way` left out) is a miss even though the turn prefix's
    "Original Request" names it; with it, the tune sessions all pass."""
    bench = _summary_bench()
    found = bench.run_split("tune")
    assert found["rows"]["tune"] == [16, 16, 16], found["misses"]
    monkeypatch.setattr(bench, "name_turn_under_way", lambda history, prompt, prefix: history)
    found = bench.run_split("tune")
    missed = sorted(
        m.split(":")[0] for m in found["misses"].get("tune", []) if m.endswith("latest request not under way")
    )
    assert missed == sorted(
        s["id"]
        for s in json.loads((ROOT / "tests/fixtures/truth/split/key.json").read_text())["sessions"]
        if s["split"] == "tune" and s["turn_prefix"]
    )
