"""How the audit reads questions and the assistant's answers (core/audit/verdicts.py, issue 23, implicit round 2).

Each rule with its near miss. Sentences written for these tests, not taken from the truth set.
"""

from __future__ import annotations

from typing import Any

from cutline.core.audit.compare import FactView, judge, passages
from cutline.core.audit.report import audit_compaction
from cutline.core.audit.rewording import error_label
from tests.support.audit_builders import SessionBuilder


def _audit(turns: list[tuple[str, str]], summary: str) -> dict[str, Any]:
    """Audit a compaction of `turns` ("user" / "assistant", text) whose summary is `summary`: text -> fact."""
    b = SessionBuilder()
    for role, text in turns:
        if role == "user":
            b.user(text)
        else:
            b.assistant(text)
    b.user("Add the cache to the price lookup.")
    b.assistant("On it.", id="kept")
    b.compaction(summary + "\n- Add the cache to the price lookup.", "kept", id="c1")
    return {f.text: f for f in audit_compaction(b.session(), "c1").facts}


QUESTION = "Do we cache prices in Redis, or keep them in process memory?"
CHOICE = [("user", QUESTION), ("assistant", "In process memory. One instance serves all traffic.")]


def test_a_question_put_to_the_assistant_is_answered_not_done_and_states_nothing_to_contradict() -> None:
    # "was rejected" reads as done: a question has no open/done state
    facts = _audit(CHOICE, "- Price cache: in process memory (one instance); caching prices in Redis was rejected.")
    assert facts[QUESTION].verdict == "reworded" and facts[QUESTION].retained, facts[QUESTION]
    # a question's words in another order are no substitution ("UPnP, in the end" against "… instead of UPnP")
    question = "Echo service or UPnP, in the end?"
    turns = [("user", question), ("assistant", "An external echo service, with a second one as a fallback.")]
    said = "- Public IP from an external echo service over HTTPS with a second as fallback; UPnP rejected."
    assert _audit(turns, said)[question].verdict == "reworded"
    # near miss: a request put politely as a question is a rule, and stated otherwise it is contradicted
    rule = [("user", "Could you keep the price cache at 512 entries?"), ("assistant", "Sure.")]
    facts = _audit(rule, "- Price cache: 1024 entries.")
    assert facts["Could you keep the price cache at 512 entries?"].verdict == "contradicted"


def test_a_fact_kept_nearly_word_for_word_is_not_contradicted_by_another_passage() -> None:
    ask = [("user", "Now set the partition key to the tenant id in the exporter.")]
    conflicting = (
        "- Key the export topic by tenant id so each tenant stays ordered in one partition; a sort step in the "
        "loader was rejected."
    )
    facts = _audit(ask, conflicting + "\n- Set the partition key to the tenant id in the exporter.")
    assert facts["Now set the partition key to the tenant id in the exporter."].verdict == "reworded"
    # near miss: without the line that keeps it, the other passage still contradicts it
    facts = _audit(ask, conflicting)
    assert facts["Now set the partition key to the tenant id in the exporter."].verdict == "contradicted"


def test_announcing_a_look_first_is_no_decision_to_keep() -> None:
    turns = [("user", "The exporter drops rows."), ("assistant", "I'll read the exporter before I choose.")]
    facts = _audit(turns, "- The exporter drops rows.")
    assert "I'll read the exporter before I choose." not in facts
    # near miss: what the assistant will use is a decision, lost when the summary drops it
    turns = [("user", "The exporter drops rows."), ("assistant", "I'll use a bounded queue for the exporter.")]
    facts = _audit(turns, "- The exporter drops rows.")
    assert facts["I'll use a bounded queue for the exporter."].verdict == "lost"


def test_an_answer_is_kept_by_its_first_clause() -> None:
    turns = [
        ("user", "Queue or thread pool for the image resize?"),
        (
            "assistant",
            "A bounded queue. Requests then return at once and the worker drains it at its own pace, whatever the "
            "burst looks like.",
        ),
    ]
    answer = turns[1][1]
    facts = _audit(turns, "- Image resize: a bounded queue (a thread pool was rejected).")
    assert facts[answer].verdict == "reworded" and facts[answer].rule == "first-clause"
    # near miss: the other option kept instead
    facts = _audit(turns, "- Image resize: a thread pool.")
    assert facts[answer].verdict == "lost"


def test_a_question_that_names_nothing_and_was_never_answered_weighs_nothing() -> None:
    turns = [
        ("user", "Two ways to retry: backoff in the client, or a dead-letter queue."),
        ("user", "Which one?"),
        ("user", "Actually, first make the client log every retry."),
    ]
    facts = _audit(turns, "- Make the client log every retry.")
    assert facts["Which one?"].weight == 0.0 and facts["Which one?"].rule == "bare-question"
    # near miss: a question naming its options, unanswered and dropped, is lost and counts
    turns[1] = ("user", "Backoff or dead-letter queue?")
    facts = _audit(turns, "- Make the client log every retry.")
    assert facts["Backoff or dead-letter queue?"].verdict == "lost" and facts["Backoff or dead-letter queue?"].weight


def _verdict(fact: str, summary: str) -> str:
    return judge(FactView(fact, "error", error_state="open"), passages([summary])).verdict


def test_a_code_in_an_errors_label_is_part_of_the_label() -> None:
    error = "error[E0463]: can't find crate for `core`"
    assert error_label(error) == {"error", "e0463"}
    assert _verdict(error, "The router build failed: can't find crate for core.") == "reworded"
    assert _verdict(error, "The build failed with E0463.") == "reworded"  # the code alone still names it
    # near miss: neither the code nor the message
    assert _verdict(error, "The router build failed.") == "lost"
    assert error_label("cache[7]: miss") == set()  # not a label of error words
