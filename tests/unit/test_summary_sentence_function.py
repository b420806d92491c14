"""What a user sentence does decides where the offline summary puts it (issue 23, bench/truth/functions.py).

A question is no rule unless it asks to keep or not do something; rule words in a purpose clause set no rule; asks
listed after a colon are a request; "no X yet" is a rule; a reply, an apology or a go-ahead is no task and no
progress; small talk is no context; a task stated without a request form after an opening remark is the goal; a
split turn's history names the turn under way.
"""

from __future__ import annotations

import importlib.util
import re

from cutline.core.models import Message
from cutline.core.summarizers.base import SummaryRequest
from cutline.core.summarizers.extractive import summarize_extractive
from tests.support.paths import ROOT
from tests.support.summary_messages import assistant, call, filler, result, user

RULES = "## Constraints & Preferences"
DONE = "### Done"
CONTEXT = "## Critical Context"
GOAL = "## Goal"


def section(summary: str, heading: str) -> str:
    """The text under one heading, up to the next heading ("" when the heading is not there)."""
    lines = summary.splitlines()
    if heading not in lines:
        return ""
    body: list[str] = []
    for line in lines[lines.index(heading) + 1 :]:
        if line.startswith("#") or re.match(r"^\d+\. [A-Z][\w ]+:$", line):
            break
        body.append(line)
    return "\n".join(body)


def summary_of(messages: list[Message]) -> str:
    return summarize_extractive(SummaryRequest(prompt_name="pi-checkpoint", messages=messages))


def turn(n: int, text: str, answer: str = "Done; the suite passes.") -> list[Message]:
    """A user turn with some work on it and a final answer."""
    return [
        user(text),
        assistant("", call(f"c{n}", "edit", path=f"src/mod_{n}.py", oldText="a", newText="b")),
        result(f"c{n}", "Successfully replaced text.", name="edit"),
        *filler(n),
        assistant(answer),
    ]


START = turn(0, "Add a CSV export to the reports page.")
LAST = turn(9, "Now update the changelog.")


def test_a_question_of_fact_is_no_rule_whatever_its_reason_says() -> None:
    text = "Does the S3 path actually work? moto skips multipart unless the bucket is versioned, so I doubt the suite."
    summary = summary_of([*START, *turn(1, text)])
    assert "S3 path actually work" not in section(summary, RULES)
    assert "S3 path actually work" in section(summary, DONE)  # it asked for a check, which was done


def test_a_question_that_asks_to_keep_something_is_a_rule() -> None:
    summary = summary_of([*START, *turn(1, "Please add a header row too. Can we keep the public API unchanged?")])
    assert "keep the public API unchanged" in section(summary, RULES)


def test_rule_words_in_a_purpose_clause_and_listed_asks_are_no_rule() -> None:
    text = (
        "Great. Two more things: (1) a stats endpoint so users can see their usage without logging in, and "
        "(2) a line in the docs. Then commit on a branch, don't push."
    )
    summary = summary_of([*START, *turn(1, text)])
    rules = section(summary, RULES)
    assert "Two more things" not in rules
    assert "don't push" in rules
    assert "Two more things" in section(summary, DONE)


def test_a_verbless_no_clause_is_a_rule() -> None:
    summary = summary_of([*START, *turn(1, "Push it to a branch `csv-export`, no PR yet.")])
    assert "no PR yet" in section(summary, RULES)


def test_a_reply_with_an_apology_and_a_go_ahead_is_no_progress() -> None:
    messages = [
        *START,
        user("Now run the migrations."),
        assistant("", call("m", "bash", command="make migrate")),
        result("m", "database is locked", error=True),
        assistant("Something else holds the database lock; was that you?"),
        user("Yes, that was me in the other shell, sorry. Go ahead."),
        assistant("", call("m2", "bash", command="make migrate")),
        result("m2", "migrated 3"),
        assistant("Migrated."),
        *turn(2, "Also add an index on created_at. (And yes, the stale lockfile was mine, I removed it.)"),
        *LAST,  # the latest ask is kept verbatim: these are earlier ones
    ]
    summary = summary_of(messages)
    assert "that was me" not in summary
    assert "Go ahead" not in summary
    assert "stale lockfile" not in section(summary, DONE)
    assert "add an index on created_at" in section(summary, DONE)


def test_a_reply_that_asks_for_something_still_asks() -> None:
    summary = summary_of([*START, *turn(1, "Yes, add it as a third commit.")])
    assert "add it as a third commit" in summary


def test_small_talk_is_no_context_but_a_statement_with_a_value_is() -> None:
    text = "Can you also cap the queue? Priya asked for it. She's on holiday today."
    summary = summary_of([*START, *turn(1, text), *LAST])
    assert "holiday" not in summary
    summary = summary_of([*START, *turn(1, "Can you also cap the queue? Debian stable ships Python 3.11."), *LAST])
    assert "Debian stable ships Python 3.11." in section(summary, CONTEXT)


def test_a_task_stated_without_a_request_form_after_an_opening_remark_is_the_goal() -> None:
    messages = [
        user("Back at it after lunch."),
        assistant("Welcome back. What should we look at?"),
        *turn(1, "The importer drops rows with an empty memo."),
        *turn(2, "Also add a changelog line."),
    ]
    goal = section(summary_of(messages), GOAL)
    assert "importer drops rows" in goal
    assert "after lunch" not in goal


def test_an_answer_to_a_which_one_question_is_no_new_task() -> None:
    messages = [
        user("speed up the tile cache"),
        assistant("Which part: the disk cache or the in-memory LRU?"),
        *turn(1, "The in-memory one; evictions dominate the profile."),
        *turn(2, "Also add a changelog line."),
    ]
    assert "speed up the tile cache" in section(summary_of(messages), GOAL)


def test_an_assistant_that_looks_around_before_answering_a_remark_leaves_the_task_the_goal() -> None:
    messages = [
        user("Rough week, honestly."),
        assistant("", call("g", "bash", command="git status --short")),
        result("g", ""),
        assistant("Sorry to hear that. What can I take off your plate?"),
        *turn(1, "Please make the invoice export keep lines with a blank tax code."),
        *turn(2, "Also add a changelog line."),
    ]
    goal = section(summary_of(messages), GOAL)
    assert "invoice export keep lines" in goal
    assert "Rough week" not in goal


def test_a_split_turns_history_names_the_turn_under_way() -> None:
    from cutline.core.summarizers.extractive import name_turn_under_way

    history = summary_of(turn(1, "Run the full test suite."))
    assert "### In Progress\n- (none)" in history
    prefix = [user("Review the whole branch diff like a grumpy reviewer."), *filler(5)]
    named = name_turn_under_way(history, "pi-checkpoint", prefix)
    assert "- [ ] Review the whole branch diff like a grumpy reviewer." in section(named, "### In Progress")
    assert name_turn_under_way(history, "pi-checkpoint", filler(5)) == history  # no ask in the prefix: as it was


def test_the_tune_sessions_of_the_sentence_function_round_are_judged_right() -> None:
    """bench/truth/functions.py's tune part, by its judges (the held-out part: bench_summary_truth.py only)."""
    spec = importlib.util.spec_from_file_location("bench_summary_truth", ROOT / "bench" / "bench_summary_truth.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    found = bench.run_functions("tune")
    assert sum(total for _, total in found["rows"]["tune"].values()) == 92
    assert not found["misses"].get("tune"), found["misses"]
