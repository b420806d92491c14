"""A fact kept by its function, not by its words (core/audit, issue 23, implicit round 3).

A restatement that carries what a fact does (the choice an answer made, a rule that something stays as it is, the
outcome of an attempt, what failed before an error's message) is kept; a copy that does not (a failed command
without what it taught) is not. Each rule with its near miss. Sentences written for these tests, not taken from the
truth set.
"""

from __future__ import annotations

from typing import Any

from cutline.core.audit.compare import FactView, judge, passages
from cutline.core.audit.verdicts import _output_numbers, _printed
from tests.support.audit_builders import turns_report


def _audit(turns: list[tuple[Any, ...]], summary: str) -> dict[str, Any]:
    """Audit a compaction of `turns` whose summary is `summary` (text -> fact). A turn: ("user", text),
    ("assistant", text), or ("bash", command, output, failed) for a command the assistant ran."""
    return {f.text: f for f in turns_report(turns, summary).facts}


WHICH = "Would you switch the league to Glicko-2, or just lower the K-factor?"


def test_a_polite_question_offering_two_ways_asks_which_one() -> None:
    turns = [("user", WHICH), ("assistant", "Glicko-2. It tracks how sure each rating is, so newcomers move faster.")]
    facts = _audit(turns, "- Ratings: Glicko-2 instead of a smaller K, since it models each rating's uncertainty.")
    # asked, it is answered (and kept with its answer), not a task the summary must restate
    assert facts[WHICH].retained and facts[WHICH].rule == "answered", facts[WHICH]
    # near miss: a polite request naming two things without offering a choice is still work asked for, lost
    ask = "Could you keep the crosstable and the pairing sheet in the printout?"
    facts = _audit([("user", ask), ("assistant", "Sure.")], "- Ratings: Glicko-2.")
    assert facts[ask].verdict == "lost" and facts[ask].weight == 2.0
    # near miss: "would you mind …, or …?" asks for work too
    mind = "Would you mind printing the crosstable, or at least the pairings?"
    facts = _audit([("user", mind), ("assistant", "Sure.")], "- Ratings: Glicko-2.")
    assert facts[mind].verdict == "lost"


def test_an_answer_naming_one_thing_is_kept_where_the_summary_states_it_as_chosen() -> None:
    answer = "Glicko-2. It tracks how sure each rating is, so newcomers move faster and regulars settle."
    turns = [("user", "Glicko or a lower K?"), ("assistant", answer)]
    facts = _audit(turns, "- Move to Glicko-2, which models each rating's uncertainty, instead of a smaller K.")
    assert facts[answer].verdict == "reworded" and facts[answer].rule == "chosen", facts[answer]
    # near miss: the options copied name it without choosing it
    facts = _audit(turns, "- Would you switch the league to Glicko-2, or just lower the K-factor?")
    assert facts[answer].verdict == "lost"
    # near miss: named, but no choice stated
    facts = _audit(turns, "- Glicko-2 is used by several chess federations.")
    assert facts[answer].verdict == "lost"


def test_a_remark_on_a_one_line_output_points_at_its_two_digit_number() -> None:
    assert _output_numbers("71") == ("71",)
    assert _output_numbers("median games per member: 23") == ("23",)
    # near miss: in a long output, two digits say too little to find it by
    assert _output_numbers("\n".join(f"row {i}: 42 items" for i in range(5))) == ()
    # Codex's shell result is JSON: what the command printed is its "output"
    assert _printed('{"output":"71","metadata":{"exit_code":0,"duration_seconds":2.7}}') == "71"
    assert _printed("71\n") == "71\n"
    turns = [
        ("user", "How many readings are missing on a bad day?"),
        ("bash", "sqlite3 solar.db 'select 288 - count(*) from readings'", "71", False),
        ("assistant", "That's the worst day of the month."),
    ]
    facts = _audit(turns, "- 71 of 288 readings are missing.")
    remark = facts["That's the worst day of the month."]
    assert remark.verdict == "reworded" and remark.rule == "pointed", remark
    # near miss: the number not in the summary
    facts = _audit(turns, "- Some readings are missing on bad days.")
    assert facts["That's the worst day of the month."].verdict == "lost"


def test_announcing_a_look_after_first_is_no_decision() -> None:
    turns = [("user", "The ratings jump around."), ("assistant", "First I'll read how the ratings are updated.")]
    assert "First I'll read how the ratings are updated." not in _audit(turns, "- The ratings jump around.")
    # near miss: what it will use, after "first", is a decision
    turns[1] = ("assistant", "First I'll use a smaller K for the regulars.")
    assert _audit(turns, "- The ratings jump around.")["First I'll use a smaller K for the regulars."].verdict == "lost"


def _sentence(fact: str, summary: str, **view: Any) -> tuple[str, str]:
    found = judge(FactView(fact, view.pop("kind", "request"), **view), passages([summary]))
    return found.verdict, found.rule


def test_a_rule_that_something_stays_as_it_is_is_kept_however_it_is_put() -> None:
    rule = "Would you mind keeping the printed crosstable as it is?"
    assert _sentence(rule, "Leave the printed crosstable untouched (members pin it up).") == ("reworded", "preserved")
    colours = "Could the route colours stay exactly as they are?"
    assert _sentence(colours, "Route colours come from the authority: leave them unchanged.")[0] == "reworded"
    assert _sentence(colours, "Don't modify the route colours.")[0] == "reworded"
    # near miss: the same thing named, but not kept as it is
    assert _sentence(rule, "Redesign the printed crosstable.")[0] == "lost"
    # near miss: something else kept as it is
    assert _sentence(rule, "Leave the printed pairing sheet untouched.")[0] == "lost"
    assert _sentence(colours, "Leave the route numbers unchanged.")[0] == "lost"


def test_an_attempt_that_failed_is_not_stated_done() -> None:
    ask = "Push a test build to one display."
    assert _sentence(ask, "[x] scp of a test build to one display was refused.", open_task=True)[0] != "contradicted"
    # near miss: stated as done, it contradicts the open task
    assert _sentence(ask, "[x] A test build to one display was pushed.", open_task=True)[0] == "contradicted"


def test_what_failed_in_place_of_an_errors_name_is_no_other_error() -> None:
    error = "sqlite3.OperationalError: database is locked"
    said = "Recompute of 2025 failed: database is locked."
    assert _sentence(error, said, kind="error", error_state="open")[0] != "contradicted"
    # near miss: another exception's name before the same message is another error
    other = "ValueError: database is locked"
    assert _sentence(error, other, kind="error", error_state="open")[0] == "contradicted"


def test_a_failed_command_copied_without_what_it_taught_is_not_kept() -> None:
    error = "Error: SMS_API_KEY is not set"
    lesson = "The SMS key lives in the team vault under 'clinic sms'; export it as SMS_API_KEY before a test send."
    turns = [("user", "Send me a test reminder."), ("bash", "npm run remind -- --test", error, True)]
    turns.append(("assistant", lesson))
    facts = _audit(turns, "- `npm run remind -- --test` failed: Error: SMS_API_KEY is not set")
    assert facts[error].verdict == "lost" and facts[error].rule == "without-answer", facts[error]
    # near miss: copied with its lesson, it is kept
    facts = _audit(turns, "- Error: SMS_API_KEY is not set\n- " + lesson)
    assert facts[error].verdict == "kept"
