"""Restatements a good summary makes and the audit must read (core/audit, issue 23, rounds 1-3 diagnosed whole).

Each rule is a mechanism (what a fact led to, how a statement is built), with its near miss: a bad summary that omits
stays lost, one that states the other way is contradicted. Sentences written for these tests, not taken from the
truth set.
"""

from __future__ import annotations

from typing import Any

from cutline.core.audit import verdicts
from cutline.core.audit.compare import FactView, judge, passages
from cutline.core.audit.verdicts import _output_numbers, weighted_retention
from tests.support.audit_builders import turns_report


def _audit(turns: list[tuple[Any, ...]], summary: str) -> dict[str, Any]:
    return {f.text: f for f in turns_report(turns, summary).facts}


# ---------------------------------------------------------------------------
# statements that decide nothing
# ---------------------------------------------------------------------------


def test_both_ways_weighed_without_a_pick_is_no_decision_and_no_answer() -> None:
    assert verdicts._hedges("Both can work: zone batches need each reader's zone, one send is simpler.")
    assert verdicts._hedges("It could be either. I'll check the driver.")
    assert verdicts._hedges("There's a case for both; backdating is precise, a grace day simpler.")
    assert verdicts._hedges("I'll profile both.")
    # near misses: both things of its own ("accents and word order both have to match"), both chosen
    assert not verdicts._hedges("search.ex runs one ILIKE on the title, so accents and word order both have to match.")
    assert not verdicts._hedges("We'll support both formats.")
    hedge = "Both can work: per-zone batches need each reader's zone, one send at midnight is simpler."
    answer = "Per-zone batches. The scheduler already wakes every 15 minutes."
    turns = [
        ("user", "Should we batch the digest by timezone, or keep one send at midnight?"),
        ("assistant", hedge),
        ("user", "ok, so which way for the digest?"),
        ("assistant", answer),
    ]
    facts = _audit(turns, "- Digest: per-zone batches at 08:00 local; one midnight send was rejected.")
    assert hedge not in facts  # weighed, not decided: nothing to keep
    assert facts[answer].retained
    # near miss: a statement that decides for both is a decision, lost when the summary drops it
    both = "We'll support both formats in the importer from now on."
    facts = _audit([("user", "CSV or JSON for the import?"), ("assistant", both)], "- Looked at the importer.")
    assert facts[both].verdict == "lost"


def test_a_look_announced_after_a_leading_clause_is_no_fact() -> None:
    look = "Before choosing I want to see what the importer expects."
    facts = _audit([("user", "PDF or the GTFS export?"), ("assistant", look)], "- Timetable source: GTFS.")
    assert look not in facts
    # near miss: a decision with a leading clause is one
    decided = "Before the release we'll move the importer to GTFS."
    facts = _audit([("user", "PDF or the GTFS export?"), ("assistant", decided)], "- Looked at the importer.")
    assert facts[decided].verdict == "lost"


# ---------------------------------------------------------------------------
# a remark on an output, a question and what it led to
# ---------------------------------------------------------------------------


def test_a_short_remark_pointing_at_an_output_in_another_form_is_kept_where_its_number_is() -> None:
    assert _output_numbers("6.4G\t/mnt/old/images") == ("6.4",)  # a unit's letter stuck to the number
    question = "How many payments failed last week?"
    for remark in ("That count covers every meter in the city.", "There you go.", "It is set in the config header."):
        turns = [("user", question), ("bash", "count_failed --week", "2318", False), ("assistant", remark)]
        facts = _audit(turns, "- Payment timeouts last week, all meters: 2,318.")
        assert facts[remark].rule == "pointed" and facts[question].retained, (remark, facts[remark])
    # near miss: a statement of its own that opens the same way, after a failed command, is no pointer: the summary
    # keeping the output's number does not keep it
    lesson = "There is no debug probe attached to this machine, so the hardware tests cannot run here; use test-host."
    turns = [("user", "Run the hardware tests."), ("bash", "make test-hw", "error 4471: no probe", True)]
    facts = _audit([*turns, ("assistant", lesson)], "- make test-hw failed with error 4471.")
    assert facts[lesson].verdict == "lost"


def test_a_question_asked_again_goes_with_the_answer_to_either() -> None:
    first = "Is it the I2C bus or the sensor itself?"
    turns = [
        ("user", first),
        ("assistant", "It could be either. I'll check the driver."),
        ("user", "so which is it, bus or sensor?"),
        ("assistant", "The bus. The flash logger holds it during page writes."),
    ]
    facts = _audit(turns, "- Cause: the flash logger holds the bus during page writes.")
    assert facts[first].retained and facts[first].rule == "answered", facts[first]
    # near miss: a later which-way question about something else is another question
    turns[2:] = [("user", "Tabs or spaces?"), ("assistant", "Tabs. The repo already uses them.")]
    facts = _audit(turns, "- Indentation: tabs, as the repo already uses.")
    assert facts[first].verdict == "lost"


def test_a_question_copied_without_what_it_led_to_is_lost() -> None:
    question = "How often does it refresh today?"
    turns = [
        ("user", question),
        ("bash", "grep -rn Duration lib/", "lib/stations/timer.dart:7: Duration(seconds: 90)", False),
        ("assistant", "That is the only timer in the stations code, every 90 seconds."),
    ]
    facts = _audit(turns, f"- {question}")
    assert facts[question].verdict == "lost" and facts[question].rule == "without-answer", facts[question]
    # near miss: copied with its answer, it is kept
    facts = _audit(turns, f"- {question}\n- The stations code has one timer, every 90 seconds.")
    assert facts[question].verdict == "kept"


def test_the_answer_is_contradicted_where_the_summary_states_the_other_way_as_chosen() -> None:
    answer = "The push feed. Polling faster costs battery and the operator caps requests."
    turns = [("user", "Poll the stations more often, or subscribe to the push feed?"), ("assistant", answer)]
    facts = _audit(turns, "- Go with polling the stations more often.")
    assert facts[answer].verdict == "contradicted" and facts[answer].rule == "other-way", facts[answer]
    # near misses: the way taken against the other, the question copied, the other way put aside
    for kept in (
        "- Subscribe to the push feed instead of polling faster (battery, operator cap).",
        "- Poll the stations more often, or subscribe to the push feed?",
        "- Polling the stations more often was rejected.",
    ):
        assert _audit(turns, kept)[answer].verdict != "contradicted", kept


def test_a_request_is_kept_where_the_answer_its_turn_ended_with_is_kept() -> None:
    ask = "Run the inventory tests so we know where we stand."
    lesson = "The default settings point at the shared Postgres, which this sandbox cannot reach; the tests must run with settings_test.py."
    turns = [
        ("user", ask),
        ("bash", "python manage.py test inventory", "OperationalError: could not connect to server", True),
        ("assistant", lesson),
    ]
    kept = "- The default settings point at the shared Postgres, which this sandbox cannot reach: run tests with settings_test.py."
    facts = _audit(turns, kept)
    assert facts[ask].retained and facts[ask].rule == "outcome", facts[ask]
    # near miss: the summary keeps nothing of what it led to
    facts = _audit(turns, "- Looked at the returns flow.")
    assert facts[ask].verdict == "lost"
    # near miss: the answer speaks of something else than what was asked
    other = "Deploy the branch to staging."
    turns[0] = ("user", other)
    facts = _audit(turns, kept)
    assert facts[other].verdict == "lost"


def test_a_reason_after_a_rule_goes_with_the_rule() -> None:
    rule, why = "Can we not change the colours of the dock pins?", "People know them by now."
    turns = [("user", f"{rule} {why}")]
    facts = _audit(turns, "- Leave the dock pins' colours alone (users know them).")
    assert facts[rule].retained and facts[rule].verdict != "contradicted", facts[rule]
    assert facts[why].rule == "reason", facts[why]
    # near miss: the rule dropped, its reason is lost with it
    facts = _audit(turns, "- Looked at the map.")
    assert facts[why].verdict == "lost"


# ---------------------------------------------------------------------------
# polarity and state: no false contradiction, no false keep
# ---------------------------------------------------------------------------


def _judge(text: str, summary: str, kind: str = "instruction", **view: Any) -> Any:
    return judge(FactView(text, kind, **view), passages([summary]))


def test_a_rule_that_something_stays_as_it_is_is_no_flip_of_a_rule_not_to_change_it() -> None:
    rule = "Can we not change the colours of the dock pins?"
    assert _judge(rule, "Leave the dock pins' colours alone.").verdict != "contradicted"
    # near miss: a passage saying to change them still contradicts
    assert _judge(rule, "Change the colours of the dock pins.").verdict == "contradicted"


def test_a_rule_not_to_do_something_is_not_kept_by_a_passage_that_only_names_the_same_things() -> None:
    rule = "Could you not add new columns to fct_revenue?"
    assert _judge(rule, "Fix fct_revenue so the numbers match.", "request", open_task=True).verdict == "lost"
    # near miss: said not to as well, in other words
    assert _judge(rule, "No new columns on fct_revenue.", "request", open_task=True).verdict in ("kept", "reworded")


def test_an_error_message_saying_what_could_not_be_done_is_no_rule_to_flip() -> None:
    error = 'ERROR: could not create unique index "bookings_member_slot_idx"'
    said = _judge(error, "Run the cleanup on staging, then create the unique index.", "error", error_state="open")
    assert said.verdict != "contradicted", said
    # near miss: the open error stated as fixed is still a contradiction
    fixed = _judge(error, "The unique index bookings_member_slot_idx is fixed now.", "error", error_state="open")
    assert fixed.verdict == "contradicted"


def test_a_done_word_the_task_itself_says_states_nothing_of_it() -> None:
    task = "Now switch the GUIDs to the episode ids, keeping the old GUIDs for already published episodes."
    restated = "Switch the GUIDs to the episode ids, keeping the old GUIDs for already published episodes."
    assert _judge(task, restated, "request", open_task=True).verdict != "contradicted"
    # near miss: the task stated done in words of its own is a contradiction
    done = "The GUIDs were switched to the episode ids, keeping the old GUIDs for already published episodes."
    assert _judge(task, done, "request", open_task=True).verdict == "contradicted"


# ---------------------------------------------------------------------------
# identifiers restated
# ---------------------------------------------------------------------------


def test_a_command_is_kept_by_its_arguments_named_together() -> None:
    for command, summary in (
        ("cp ratings.db /tmp/r.db", "The app locks ratings.db: recompute on a copy (`--db /tmp/r.db`)."),
        ("apt install libpq-dev", "Installing gems needs libpq-dev before `bundle install`."),
    ):
        said = _judge(command, summary, "identifier")
        assert said.verdict == "reworded" and said.rule == "arguments", (command, said)
    # near misses: an argument missing; a single word of arguments says too little
    assert _judge("cp ratings.db /tmp/r.db", "Recompute on a copy in /tmp/r.db.", "identifier").verdict == "lost"
    assert _judge("make build", "The build is slow.", "identifier").verdict == "lost"


def test_a_url_of_which_only_the_host_is_visible_is_partly_kept() -> None:
    said = _judge("http://meter.local/api/v1/counter", "curl to meter.local:80 was refused.", "identifier")
    assert said.rule == "host" and said.verdict == "reworded", said
    url = "http://meter.local/api/v1/counter"
    turns = [("bash", f"curl -s {url}", "connection refused", True), ("assistant", "The meter's API is switched off.")]
    facts = {f.text: f for f in turns_report(turns, "- curl to meter.local:80 refused.").facts}
    assert weighted_retention([facts[url]]) == 0.5
    # near miss: another host
    assert _judge(url, "curl to meter.lan:80 was refused.", "identifier").verdict == "lost"


def test_linking_questions_requests_and_reasons_is_linear_in_the_facts(monkeypatch: Any) -> None:
    """What a fact led to is looked up per fact (a question's next asking, a request's turn, a rule's reasons), not
    per pair of facts: the words compared grow as the session, at n and 4n turns."""
    from cutline.core.audit import verdicts as v

    calls: list[int] = []
    share = v._share_a_word

    def counting(one: set[str], other: set[str]) -> bool:
        calls.append(1)
        return share(one, other)

    monkeypatch.setattr(v, "_share_a_word", counting)
    counts = []
    for n in (6, 24):
        turns: list[tuple[Any, ...]] = []
        for i in range(n):
            turns += [
                ("user", f"Can we not rename module{i}? Team {i} imports it."),
                ("user", f"Cache{i} or queue{i} for step {i}?"),
                ("assistant", f"Queue{i}. It keeps step {i} simple."),
                ("user", f"Run the step{i} tests."),
                ("bash", f"pytest tests/step{i}", f"FAILED step{i}: database locked", True),
                ("assistant", f"The step{i} tests need a copy of the database, so run them on /tmp/db{i}."),
            ]
        calls.clear()
        turns_report(turns, "- Looked around.")
        counts.append(len(calls))
    assert counts[0] > 0 and counts[1] <= 5 * counts[0], counts
