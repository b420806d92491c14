"""Facts the offline summary keeps though nobody states them as a rule, a decision or a fact (issue 23).

A number only in a tool's output, a constraint the assistant reads from a failing tool
result, a decision stated only as the assistant's answer to "which one?", and a file's
role explained by the assistant (`core/summarizers/implicit_facts.py`). Each test fails
on the summarizer before these were gathered; each negative one guards against noise.
"""

from __future__ import annotations

from cutline.core.models import Message
from cutline.core.summarizers.base import SummaryRequest
from cutline.core.summarizers.extractive import summarize_extractive
from cutline.core.summarizers.implicit_facts import asks_to_choose, conclusion, file_role, limitation, measure_lines
from cutline.core.summarizers.session_state import said
from tests.support.summary_messages import assistant, call, filler, result, user


def section(summary: str, heading: str) -> list[str]:
    """The lines under one heading of a pi checkpoint, up to the next heading."""
    lines = summary.splitlines()
    body: list[str] = []
    for line in lines[lines.index(heading) + 1 :]:
        if line.startswith("#"):
            break
        if line:
            body.append(line)
    return body


def _summary(*messages: Message) -> str:
    return summarize_extractive(SummaryRequest(prompt_name="pi-checkpoint", messages=[*messages, *filler(9)]))


def _run(n: int, command: str, output: str, *, error: bool = False) -> list[Message]:
    return [assistant("", call(f"m{n}", "bash", command=command)), result(f"m{n}", output, error=error)]


def test_a_number_only_in_a_tool_output_is_kept_when_the_assistant_points_back_at_it() -> None:
    summary = _summary(
        user("How big is the orders table now?"),
        *_run(1, "psql -c 'select count(*) from orders'", " count \n-------\n 7730291\n(1 row)"),
        assistant("That is today's figure."),
        user("Archive the rows older than two years."),
    )
    done = "\n".join(section(summary, "### Done"))
    assert "7730291" in done, summary


def test_a_number_with_its_unit_is_kept_without_the_assistant_pointing_at_it() -> None:
    summary = _summary(
        user("Profile the image resizer."),
        *_run(1, "hyperfine ./resize", "Time (mean ± σ):     318.4 ms ±   2.1 ms"),
        assistant("Recorded."),
        user("Now make it use the SIMD path."),
    )
    assert "318.4 ms" in summary, summary


def test_a_short_output_nobody_points_at_and_a_test_verdict_are_no_measurements() -> None:
    summary = _summary(
        user("Tidy the imports in the worker."),
        *_run(1, "wc -l worker.py", "412 worker.py"),
        assistant("Now the imports."),
        *_run(2, "pytest -q", "12 passed in 0.51s"),
        assistant("That looks fine."),
        user("Also sort the constants."),
    )
    assert "412" not in summary and "0.51s" not in summary, summary


def test_a_constraint_read_from_a_failing_tool_result_is_a_constraint() -> None:
    summary = _summary(
        user("Add the retry decorator to the fetcher."),
        *_run(1, "sudo apt-get install libretry", "sudo: a password is required", error=True),
        assistant("We have no root on this machine, so nothing can be installed system-wide: the retry must be ours."),
        user("Write the decorator then."),
    )
    rules = "\n".join(section(summary, "## Constraints & Preferences"))
    assert "no root on this machine" in rules, summary


def test_what_the_assistant_read_from_a_failure_fixed_later_is_no_constraint() -> None:
    summary = _summary(
        user("Run the linter."),
        *_run(1, "make lint", "error: config file must be named .lintrc", error=True),
        assistant("The linter requires its config under a different name, so the file has to be renamed."),
        *_run(2, "make lint", "0 problems"),
        user("Good, commit it."),
    )
    assert "requires its config" not in summary, summary


def test_the_assistant_s_direct_answer_to_which_way_is_a_decision() -> None:
    summary = _summary(
        user("Cache the price lookups in Redis or in process memory?"),
        assistant("Let me look at how the service is deployed first.", call("d1", "read", path="deploy/app.yaml")),
        result("d1", "replicas: 1", name="read"),
        user("so which one?"),
        assistant(
            "Process memory with a five-minute expiry: there is a single replica, so Redis would only add a hop."
        ),
        user("Do it."),
    )
    decisions = "\n".join(section(summary, "## Key Decisions"))
    assert "Process memory with a five-minute expiry" in decisions, summary
    assert "Let me look" not in decisions


def test_a_file_s_role_explained_by_the_assistant_goes_with_the_file() -> None:
    summary = _summary(
        user("Why do some pages 404 after the upgrade?"),
        assistant("", call("r1", "read", path="web/routes.py")),
        result("r1", "urlpatterns = [...]", name="read"),
        assistant("web/routes.py is the URL table every view registers in, matched top to bottom."),
        user("Add the missing route for the invoices page."),
    )
    line = next(line for line in summary.splitlines() if "`web/routes.py`" in line)
    assert "URL table every view registers in" in line, summary


def test_the_pieces_read_what_they_should() -> None:
    assert measure_lines("a\nb\nc\nd\ne\nf\ng 1") == ""  # a long output is no measurement
    assert measure_lines("total: 91\nok") == "total: 91"
    assert measure_lines("Chunk ID: 4f1a\nWall time: 0.0002 seconds\nProcess exited with code 0\nOutput:\nthree") == ""
    assert limitation(said("Done. Tests pass. The key must be set in production.")) == ""  # a report, not a reading
    assert limitation(said("Let me try without the flag. The runner cannot reach the network.")) == (
        "The runner cannot reach the network."
    )
    assert asks_to_choose("default or flag?") and asks_to_choose("ok what do you recommend then")
    assert not asks_to_choose("how many rows are there?") and not asks_to_choose("Could you check if a or b fails?")
    assert not asks_to_choose("Fix the parser, which crashes on empty files.")
    assert conclusion(said("First the logs.")) == "" and conclusion(said("Both work. Let me check.")) == ""
    assert conclusion(said("Sure.")) == "" and conclusion(said("Use the queue: it retries.")) != ""
    assert file_role("`a/b.py` is the entry point of the CLI.", "a/b.py") == "the entry point of the CLI."
    assert file_role("a/b.pyc is compiled.", "a/b.py") == ""
