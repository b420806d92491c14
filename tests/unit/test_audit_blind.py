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


# ---------------------------------------------------------------------------
# over-credit: a copy that keeps nothing the agent must carry
# ---------------------------------------------------------------------------


def _audit(turns: list[tuple[Any, ...]], summary: str) -> dict[str, Any]:
    from tests.support.audit_builders import turns_report

    return {f.text: f for f in turns_report(turns, summary).facts}


def test_the_which_way_question_copied_does_not_keep_the_answer_by_its_first_clause() -> None:
    question = "Nightly snapshots or streaming replication for the archive database, which one?"
    answer = "Streaming replication. Writes arrive all day long, and losing a day of them would hurt the auditors."
    turns = [("user", question), ("assistant", answer)]
    copied = _audit(turns, f"- {question}\n- Looked at the archive's write rate.")
    assert copied[answer].verdict == "lost", copied[answer]
    assert copied[question].verdict == "lost"  # copied without what it led to
    # named in passing by another line (the next ask), it keeps no choice either
    passing = _audit(turns, "- Set up streaming replication on the archive's standby.")
    assert passing[answer].verdict == "lost", passing[answer]
    # near misses: the first clause stated as chosen keeps the answer, and so does the choice restated
    chosen = _audit(turns, f"- {question}\n- Went with streaming replication.")
    assert chosen[answer].retained and chosen[answer].rule == "first-clause", chosen[answer]
    restated = _audit(turns, "- Archive DB: streaming replication, not nightly snapshots (writes arrive all day).")
    assert restated[answer].retained


# ---------------------------------------------------------------------------
# restatements: a time in another unit or notation
# ---------------------------------------------------------------------------


def test_a_duration_in_another_unit_is_kept() -> None:
    rule = "The nightly backup must finish within 36 hours of the snapshot."
    said = _judge(rule, "- Backups: done at most 1.5 days after the snapshot.")
    assert said.verdict in ("kept", "reworded"), said
    assert _judge("Sessions expire after 90 minutes.", "- Session lifetime: 1.5 h.", "number").verdict == "reworded"
    # near misses: another duration is no rewording (a contradiction, as before), and a duration alone keeps nothing
    assert _judge(rule, "- Backups: done at most 2 days after the snapshot.").verdict == "contradicted"
    assert _judge(rule, "- Reports: 1.5 days late.").verdict == "lost"


def test_a_clock_time_in_am_pm_is_the_same_on_24_hours() -> None:
    rule = "Never page the on-call engineer between 10 pm and 7 am."
    said = _judge(rule, "- No on-call engineer pages 22:00-07:00.")
    assert said.verdict in ("kept", "reworded"), said
    # near miss: other hours are not this rule
    assert _judge(rule, "- No on-call engineer pages 20:00-06:00.").verdict not in ("kept", "reworded")


def test_an_error_is_kept_by_its_message_quoted() -> None:
    error = 'cp: cannot create regular file "/srv/kiosk/bin/worker": No space left on device'
    said = _judge(error, "- Deploy to kiosk 2: cp hit 'No space left on device'.", "error", error_state="open")
    assert said.verdict == "reworded" and said.rule == "error-message", said
    # near misses: the failure named without its message, or another message quoted, keeps nothing
    assert _judge(error, "- Deploy to kiosk 2: cp failed.", "error", error_state="open").verdict == "lost"
    other = _judge(error, "- Deploy to kiosk 2: cp hit 'Permission denied'.", "error", error_state="open")
    assert other.verdict == "lost"
