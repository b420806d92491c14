"""Restatements a blind round's good summaries make, and copies an extractive summary makes, that the audit must read
(core/audit, issue 23, implicit round 4 spent and diagnosed by audit5).

Each rule is a mechanism, not a word list: a false contradiction taken away has its near miss that stays contradicted,
an over-credit taken away its near miss that stays kept. Sentences written for these tests, not taken from the truth
set.
"""

from __future__ import annotations

from typing import Any

from cutline.core.audit.compare import FactView, judge, passages


def _judge(text: str, summary: str, kind: str = "instruction", **view: Any) -> Any:
    return judge(FactView(text, kind, **view), passages([summary]))


# ---------------------------------------------------------------------------
# false contradictions
# ---------------------------------------------------------------------------


def test_a_url_written_as_host_port_with_its_path_beside_it_is_kept() -> None:
    url = "http://10.4.2.9:9000/metrics"
    context = "The exporter is at http://10.4.2.9:9000/metrics if you need it."
    said = _judge(url, "- Exporter: 10.4.2.9:9000 (/metrics).", "identifier", context=context)
    assert said.verdict == "reworded" and said.rule == "url-parts", said
    # near misses: another path beside the host is not this URL (as before: no more than the host is kept); another
    # host is not kept at all
    other = _judge(url, "- Exporter: 10.4.2.9:9000 (/health).", "identifier", context=context)
    assert other.rule != "url-parts", other
    assert _judge(url, "- Exporter: 10.4.2.8:9000 (/metrics).", "identifier", context=context).verdict != "reworded"


def test_an_opposite_names_what_the_negation_is_about() -> None:
    rule = "How about we don't repaint the front lobby's welcome signs?"
    said = _judge(rule, "Hands off the front lobby's welcome signs; the landlord owns them.", "request")
    assert said.verdict != "contradicted", said
    # near miss: a passage saying to repaint them still contradicts
    assert _judge(rule, "Repaint the front lobby's welcome signs.", "request").verdict == "contradicted"


def test_a_passage_clause_saying_less_than_half_of_a_rule_does_not_turn_it_around() -> None:
    rule = "A ticket that can't be parsed must print nothing."
    role = "kiosk/printer.py: decides whether a page prints; runs the parser twice, then looks the ticket up."
    assert _judge(rule, role).verdict != "contradicted"
    # near miss: one clause holding most of the rule, the other way round, still contradicts
    assert _judge(rule, "A ticket that was parsed prints twice.").verdict == "contradicted"


def test_fail_to_negates_what_follows() -> None:
    fact = "Half the parcels don't reach the depot scanner at all."
    said = _judge(fact, "Find why ~50 % of the parcels fail to reach the depot scanner at all.")
    assert said.verdict != "contradicted", said
    # near miss: said to reach it
    assert _judge(fact, "All the parcels reach the depot scanner.").verdict == "contradicted"


def test_a_passive_done_form_of_another_verb_does_not_state_a_task_done() -> None:
    task = "Deploy it to the build server."
    said = _judge(task, "The build server was rebooted: clear its old host key first.", "request", open_task=True)
    assert said.verdict != "contradicted", said
    # near miss: the task's own verb in the passive still states it done
    done = _judge(task, "The new build was deployed to the build server.", "request", open_task=True)
    assert done.verdict == "contradicted"
