"""Four verdicts per fact (kept, reworded, lost, contradicted), on hand-built sessions whose answers are known."""

from __future__ import annotations

import pytest

import cutline.core.audit.compare as compare
from cutline.core.audit.compare import FactView, judge, passages, quantities
from cutline.core.audit.report import audit_compaction
from cutline.core.facts import message_facts
from cutline.core.models import Message, TextBlock, ToolCallBlock
from tests.support.audit_builders import SessionBuilder


def _verdict(fact: str, summary: str, kind: str = "instruction") -> str:
    return judge(FactView(fact, kind), passages([summary])).verdict


def _audit(turns: list[tuple[str, str]], summary: str, after: list[tuple[str, str]] | None = None):  # type: ignore[no-untyped-def]
    b = SessionBuilder()
    for role, text in turns:
        (b.user if role == "user" else b.assistant)(text)
    b.assistant("On it.", id="kept")
    b.compaction(summary, "kept", id="c1")
    for role, text in after or []:
        if role == "read":
            b.assistant("", calls=[("r1", "read", {"path": text})])
            b.result("r1", "contents", name="read")
        else:
            (b.user if role == "user" else b.assistant)(text)
    session = b.session()
    session.cwd = "/home/u/proj"
    return audit_compaction(session, "c1")


def test_changed_numbers_and_units_are_contradictions() -> None:
    assert _verdict("The load balancer must listen on port 8443.", "- LB listens on port 8080.") == "contradicted"
    assert _verdict("The export runs in batches of 500 rows.", "Export batches: 5000 rows.") == "contradicted"
    assert _verdict("Keep logs for 90 days.", "Logs are kept for 30 days.") == "contradicted"
    assert _verdict("Workers may use at most 512 MiB.", "Worker memory cap: 512 GiB.") == "contradicted"
    # the same quantity written another way is kept in other words
    assert _verdict("The API gateway times out after 30 seconds.", "Gateway timeout: 30 s.") == "reworded"
    assert [(q.value, q.unit) for q in quantities("port 8443, 2 MB, 10k messages")] == [
        (8443.0, "port"),
        (2.0, "mb"),
        (10000.0, "message"),
    ]


def test_flipped_negation_modality_and_choice_are_contradictions() -> None:
    assert _verdict("Never log the Authorization header.", "Always log the Authorization header.") == "contradicted"
    assert (
        _verdict("Don't bump the version in pyproject.toml.", "Bump the version in pyproject.toml.") == "contradicted"
    )
    assert _verdict("You must not run terraform apply against prod.", "You may run terraform apply against prod.") == (
        "contradicted"
    )
    decision = "I'll go with Postgres instead of SQLite."
    assert _verdict(decision, "The app uses SQLite instead of Postgres.", "decision") == "contradicted"
    assert _verdict(
        "Add a NAT gateway in each availability zone.", "Add a single NAT gateway shared by all zones."
    ) == ("contradicted")


def test_another_name_in_the_same_role_is_a_contradiction() -> None:
    fact = "The backoff delay is computed by `compute_backoff_ms()`."
    assert _verdict(fact, "The backoff delay is computed by `compute_delay_ms()`.", "decision") == "contradicted"
    request = "Now make the webhook handler idempotent using the Stripe event id."
    assert _verdict(request, "Make the webhook handler idempotent using the request timestamp.", "request") == (
        "contradicted"
    )


def test_rewordings_are_kept_in_other_words_with_the_closest_passage() -> None:
    summary = "## Constraints\n- The Authorization header must not end up in any log line.\n- Other things."
    j = judge(FactView("Never log the Authorization header.", "instruction"), passages([summary]))
    assert j.verdict == "reworded" and "must not end up" in j.closest
    assert _verdict("Dont bump the version in package.json.", "The version field of package.json stays as it is.") == (
        "reworded"
    )


def test_identifier_forms_at_mentions_absolute_paths_and_file_names() -> None:
    report = _audit(
        [("user", "Look at @src/prompts/system_prompt.txt and /home/u/proj/lib/util.py, then tests/test_api.py.")],
        "Read src/prompts/system_prompt.txt and lib/util.py; the tests are in test_api.py.",
    )
    verdicts = {f.text: f.verdict for f in report.facts if f.kind == "identifier"}
    assert verdicts["@src/prompts/system_prompt.txt"] == "kept"
    assert verdicts["/home/u/proj/lib/util.py"] == "kept"
    assert verdicts["tests/test_api.py"] == "reworded"  # only the file name: partly kept


def test_a_dropped_error_is_lost_even_when_its_file_is_named_elsewhere() -> None:
    b = SessionBuilder()
    b.user("Build it.")
    b.assistant("", calls=[("t1", "bash", {"command": "cc main.c"})])
    b.result("t1", "main.c:12:5: error: expected ';' before 'return'", error=True)
    b.assistant("On it.", id="kept")
    b.compaction("## Done\n- Edited main.c and util.c", "kept", id="c1")
    report = audit_compaction(b.session(), "c1")
    errors = [f for f in report.facts if f.kind == "error"]
    assert errors and all(f.verdict == "lost" for f in errors)


def test_noise_is_not_a_fact() -> None:
    facts = message_facts(
        Message(
            role="assistant",
            content=[
                TextBlock(text="Noted, I will do that once the current work is green."),
                TextBlock(text="The bar shows `Thinking: ${newLevel}` and cycles Model/thinking/theme."),
                TextBlock(text="It ended in _ssl.c:1006 inside CPython; git said old mode 100644."),
                ToolCallBlock(id="t", name="bash", arguments={"command": "python manage.py migrate"}),
            ],
        ),
        "a1",
    )
    assert facts == []


def test_a_revoked_preference_is_superseded_and_restating_it_contradicts_the_revocation() -> None:
    turns = [
        ("user", "I prefer tabs for indentation in new files."),
        ("user", "Forget the tabs preference; follow the repo's black config instead."),
    ]
    kept = _audit(turns, "- Formatting follows the repository's black settings (tabs wish withdrawn).")
    assert [f.text for f in kept.lost] == []
    assert any(f.superseded and f.weight == 0 for f in kept.facts)
    stale = _audit(turns, "- The user prefers tabs for indentation in new files.")
    assert [(f.verdict, f.text) for f in stale.lost] == [
        ("contradicted", "Forget the tabs preference; follow the repo's black config instead.")
    ]


def test_a_fixed_error_stated_as_failing_and_an_open_task_stated_as_done() -> None:
    b = SessionBuilder()
    b.user("TODO: add a regression test for the partial-refund path.")
    b.assistant("", calls=[("t1", "bash", {"command": "pytest"})])
    b.result("t1", "FAILED tests/test_refund.py::test_rounding - AssertionError", error=True)
    b.assistant("Fixed it; test_rounding passes now.")
    b.assistant("On it.", id="kept")
    b.compaction(
        "- test_rounding still fails; not fixed yet.\n- Added a regression test for the partial-refund path (done).",
        "kept",
        id="c1",
    )
    report = audit_compaction(b.session(), "c1")
    contradicted = {f.kind for f in report.contradicted}
    assert contradicted == {"error", "request"}
    assert report.lost[0].verdict == "contradicted"


def test_a_lost_path_read_again_after_the_compaction_is_recovered() -> None:
    report = _audit(
        [("user", "The retry logic lives in services/billing/retry.py, check it.")],
        "- Work on retries.",
        after=[("read", "services/billing/retry.py")],
    )
    path = next(f for f in report.facts if f.text == "services/billing/retry.py")
    assert path.verdict == "lost" and path.recovered


def test_weighted_retention_ranks_a_faithful_summary_above_a_misleading_one() -> None:
    turns = [
        ("user", "Never log the Authorization header."),
        ("user", "The nightly export runs in batches of 500 rows."),
        ("assistant", "I'll use Postgres advisory locks instead of Redis locks."),
    ]
    good = _audit(
        turns, "- Authorization header must never be logged.\n- Export: 500-row batches.\n- Postgres advisory locks."
    )
    dropped = _audit(turns, "- Export: 500-row batches.")
    wrong = _audit(
        turns, "- Always log the Authorization header.\n- Export: 5000 rows.\n- Redis locks instead of Postgres."
    )
    assert good.weighted_retention > dropped.weighted_retention > wrong.weighted_retention
    assert wrong.weighted_retention == 0.0


def test_what_the_real_agents_corpus_showed_is_not_a_contradiction_or_a_fact() -> None:
    from cutline.core.facts import carried_facts, error_text

    # OpenClaw prefixes prompts with their time: "23:48 UTC" is not a quantity
    assert quantities("ACK: [Tue 2026-11-24 23:48 UTC] Big usage turn") == []
    stamped = judge(
        FactView("ACK: [Tue 2026-11-24 23:48 UTC] Big usage turn @@usage 195000@@", "instruction"),
        passages(["ACK: [Tue 2026-11-24 23:50 UTC] Next turn."]),
    )
    assert "23:" not in stamped.reason and "utc" not in stamped.reason
    # another message of the same template (the fake model's tool markup) is another message, not a contradiction
    look = 'Look at the image. @@tool read {"path": "/tmp/w/state/pixel.png"}@@'
    other = (
        'User: Read two files. @@tools read {"path": "/tmp/w/work/notes.txt"};;read {"path": "/tmp/w/work/big.txt"}@@'
    )
    assert _verdict(look, other, "request") == "lost"
    # two marker words do not make a sentence frame
    assert _verdict("MARK-OC-AFTER-AUTO", "MARK-OC-NEXT <<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>", "request") == "lost"
    # a previous summary's verbatim turns, JSON fragments and empty markers are not facts it carried
    carried = carried_facts(
        '## Decisions\nNone.\n## Recent turns preserved verbatim\n- User: hello\n## Tool Failures\n"tool": "read",\n'
        "## Constraints/Rules\n- Never push to main."
    )
    assert [f.text for f in carried if f.kind != "identifier"] == ["Never push to main."]
    # Qwen Code's shell result names its empty fields
    assert error_text("Command: false\nError: (none)\nExit Code: 1") != "Error: (none)"


def test_a_reversed_choice_is_caught_when_the_summary_also_says_over() -> None:
    decision = "I'll stream the reply with server-sent events instead of WebSockets."
    assert _verdict(decision, "Replies stream over WebSockets instead of server-sent events.", "decision") == (
        "contradicted"
    )
    assert _verdict(decision, "Replies stream over server-sent events (not WebSockets).", "decision") != "contradicted"


def test_a_summary_line_naming_another_file_read_is_not_a_contradiction() -> None:
    """The accept dialog showed "I'll read `src/ledger/parse.py` first." contradicted by "I'll read `tests/test_parse.py`
    first.": the agent read both, one after the other; the summary kept one of them, which says nothing false."""
    report = _audit(
        [
            ("user", "The parser drops empty ledgers; find out why."),
            ("assistant", "I'll read `src/ledger/parse.py` first."),
            ("assistant", "I'll read `src/ledger/report.py` first."),
            ("assistant", "I'll read `tests/test_parse.py` first."),
        ],
        "## Progress\n- **Assistant:** I'll read `tests/test_parse.py` first.\n- Empty ledgers are dropped by the parser.",
    )
    assert [f.text for f in report.facts if f.verdict == "contradicted"] == []


def test_rewordings_a_careful_model_writes_are_not_contradictions() -> None:
    """Found on hand-judged model summaries of the truth set's tune part (bench/truth/hand.py)."""
    # a negation said as "keep X out of", and a rule restated clause for clause in another order
    rule = "Never log the Authorization header."
    assert _verdict(rule, "- Keep the Authorization header out of the logs, always.") == "reworded"
    assert _verdict(rule, "- Always log the Authorization header.") == "contradicted"
    push = "Do not push to the upstream remote; only push to origin."
    assert _verdict(push, "- Git: push to origin only, never to upstream.") == "reworded"
    assert _verdict(push, "- Git: push to the upstream remote, and to origin.") == "contradicted"
    # other words around the same quantity; another object in the same frame is still another object
    assert _verdict("The tile cache keeps entries for 90 days.", "- Tile cache TTL: 90 days.") == "reworded"
    ask = "Can you add retry with jitter to the OpenAI client?"
    assert _verdict(ask, "Can you add a circuit breaker to the OpenAI client?", "request") == "contradicted"


def test_an_identifier_is_kept_by_itself_not_by_a_longer_name_holding_it() -> None:
    assert _verdict("notes.txt", "- Read /tmp/w/notes.txt and big.txt.", "identifier") == "kept"
    assert _verdict("notes.txt", "- Read mynotes.txt and big.txt.", "identifier") != "kept"
    assert _verdict("compute_backoff_ms", "- Delay: retry.compute_backoff_ms().", "identifier") == "kept"


def test_a_passages_choice_is_read_once_however_many_facts_are_judged_against_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long passage (a tool's output) is compared with every fact: its "A instead of B" reading is made once, at n
    and at 4n facts, not once per fact (each reading tries a lazy 3-80 character lead at every position of the text)."""
    long_line = " ".join(f"the build step {n} reads config{n}.yaml and writes report{n}.txt" for n in range(300))
    read: list[str] = []
    choice = compare._choice

    def counting(text: str, *args: object) -> object:
        read.append(text)
        return choice(text, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(compare, "_choice", counting)
    for facts in (10, 40):
        seen = passages([long_line, "Replies stream over WebSockets instead of server-sent events."])
        read.clear()
        for n in range(facts):
            judge(FactView(f"The build step {n} reads config{n}.yaml before the tests.", "decision"), seen)
        assert read.count(long_line) == 1, (facts, read.count(long_line))
    decision = "I'll stream the reply with server-sent events instead of WebSockets."
    assert judge(FactView(decision, "decision"), seen).verdict == "contradicted"  # the kept reading still judges


def test_the_answer_to_a_question_is_a_fact_and_keeping_it_keeps_the_question() -> None:
    turns = [
        ("user", "Redis or SQLite for the job queue?"),
        ("assistant", "Let me look at the load first."),
        ("user", "ok so which one then?"),
        ("assistant", "SQLite: the queue sees about 40 jobs an hour, and Redis would be one more service to run."),
    ]
    answered = _audit(turns, "- Job queue on SQLite (about 40 jobs an hour; Redis rejected as one more service).")
    assert [f.text for f in answered.lost] == []
    question = next(f for f in answered.facts if f.text == "ok so which one then?")
    assert question.rule == "answered" and question.retained
    # the questions copied without the answer: the answer, what the work learnt, is lost, the bare follow-up too, and
    # the question copied word for word (asked again by the follow-up, it goes with the same answer: issue 23, audit4)
    copied = _audit(turns, "- Redis or SQLite for the job queue?")
    assert {f.text for f in copied.lost} == {turns[0][1], turns[2][1], turns[3][1]}


def test_the_assistants_reading_of_a_failure_is_a_fact_unless_it_speaks_of_something_else() -> None:
    b = SessionBuilder()
    b.user("Run the smoke test.")
    b.assistant("", calls=[("t1", "bash", {"command": "make smoke"})])
    b.result("t1", "smoke: dial tcp: lookup smtp.relay.internal: no such host", error=True)
    b.assistant("This runner cannot reach the SMTP relay, so the smoke test has to use a local mail catcher.")
    b.assistant("", calls=[("t2", "bash", {"command": "make lint"})])
    b.result("t2", "TypeError: Cannot read properties of undefined (reading 'x')", error=True)
    b.assistant("The status bar template is `${level}` and the picker cycles model/theme.")
    b.assistant("On it.", id="kept")
    b.compaction("- Ran the smoke test.", "kept", id="c1")
    lost = {f.text for f in audit_compaction(b.session(), "c1").lost}
    assert "This runner cannot reach the SMTP relay, so the smoke test has to use a local mail catcher." in lost
    assert not any("status bar" in text for text in lost)


def test_a_colon_joins_a_statement_to_its_reason_and_nothing_is_a_negation() -> None:
    assert _verdict("Debian stable ships 1.70.", "Do not bump the MSRV: Debian stable ships Rust 1.70.") != (
        "contradicted"
    )
    assert (
        _verdict(
            "The CI image has no .git folder, so anything that depends on git history cannot work there.",
            "The CI image has no .git folder: nothing may depend on git history.",
        )
        != "contradicted"
    )
