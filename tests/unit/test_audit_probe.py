"""The model check (`cutline audit --proposal ID --probe`): questions on the important facts of the summarized part,
answered by a model over the SDK against a loopback fake from the context after the compaction only, graded against
the facts with the audit's comparison, the cost said before any request, the results stored with the proposal."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from cutline.app.cli import cli
from cutline.app.commands.audit import _proposal_audit
from cutline.core.audit.probe import grade, probe_questions, topic
from cutline.core.audit.verdicts import AuditFact
from cutline.core.store import Store
from cutline.core.workbench.probing import stored_run
from tests.support.cli import run
from tests.support.fake_anthropic import FakeAnthropic, Step
from tests.support.fake_openai import FakeOpenAI
from tests.support.paths import SAMPLES
from tests.support.writeback import SUMMARY, propose

# the important facts of the sample pi session's summarized part (keepRecentTokens 2000), read in the session by hand
FACTS = [
    "do NOT rate-limit the public redirect GET /{code}; unauthenticated requests must not eat anyone's quota",
    "`pytest -q` must pass at the end, and ruff + mypy too.",
    "ENOENT: no such file or directory, access '/home/dana/src/snip/src/snip/settings.py'",
    "ImportError while importing test module '/home/dana/src/snip/tests/test_ratelimit.py'.",
    "FAILED tests/test_api.py::test_create_requires_key",
    "Could not find the exact text in src/snip/app.py. The old text must match exactly including all whitespace "
    "and newlines.",
    "FAILED tests/test_ratelimit.py::test_per_key_override",
    "Does the Redis path actually work? fakeredis doesn't run Lua unless lupa is installed, so I don't trust a green "
    "suite there.",
    "Then commit on a branch `ratelimit`, don't push.",
    "List anything risky; don't change code unless it's clearly a bug.",
]
RIGHT = "Do not rate-limit the public redirect GET /{code}."
WRONG = "Commit on a branch `ratelimit` and push it."
REPLY = "\n".join([f"1. {RIGHT}", *(f"{n}. UNKNOWN" for n in range(2, 9)), f"9. {WRONG}", "10. UNKNOWN"])


@pytest.fixture
def proposal_id(cutline_home: Path) -> str:
    path = cutline_home / "pi.jsonl"
    shutil.copy(SAMPLES / "pi-coding-session.jsonl", path)
    with Store() as store:
        return propose(store, path, keep_recent_tokens=2000).id


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    """An OpenAI-compatible endpoint without a key, as a local server is."""
    server = FakeOpenAI().start()
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", server.v1)
    try:
        yield server
    finally:
        server.stop()


def audit(*args: str, answer: str | None = None) -> Result:
    return CliRunner().invoke(cli, ["audit", *args], input=answer, catch_exceptions=False)


def test_the_questions_of_a_known_proposal_are_on_its_important_facts(proposal_id: str) -> None:
    with Store() as store:
        questions = probe_questions(_proposal_audit(store, proposal_id).facts)
    assert [q.fact for q in questions] == FACTS
    # the question does not give the answer away: the negation and the numbers are taken out
    assert "NOT" not in questions[0].question and "must not" not in questions[0].question
    assert "don't" not in questions[8].question and "ratelimit" in questions[8].question
    assert topic("Set the cache TTL to 90 days; never log the Authorization header.") == (
        "Set the cache TTL to … days; log the Authorization header"
    )


def test_answers_are_graded_against_the_fact_not_by_the_model() -> None:
    [question] = probe_questions([_fact("instruction", "Bind the server to port 8443, never to 8080.")])
    assert grade(question, "Bind the server to port 8443, never to 8080.")[0] == "right"
    assert grade(question, "Bind the server to port 8080.")[0] == "wrong"
    assert grade(question, "UNKNOWN") == ("missed", "not answered")


def _fact(kind: str, text: str, weight: float = 3.0) -> AuditFact:
    return AuditFact(kind=kind, text=text, retained=False, verdict="lost", weight=weight)  # type: ignore[arg-type]


def test_an_unresolved_error_answered_as_fixed_is_wrong() -> None:
    error = "FAILED tests/test_api.py::test_create_requires_key - assert 401 == 403"
    [question] = probe_questions([_fact("error", error, weight=2.5)])  # the audit's weight of an open error
    assert question.open_error
    assert grade(question, f"{error}; still failing.")[0] == "right"
    verdict, reason = grade(question, "test_create_requires_key failed (assert 401 == 403); it is fixed now.")
    assert verdict == "wrong" and reason == "an unresolved error is stated as fixed"


def test_a_right_and_a_wrong_answer_from_the_fake_server_are_graded_and_stored(
    proposal_id: str, fake: FakeOpenAI
) -> None:
    fake.script([Step(text=REPLY)])
    result = audit("--proposal", proposal_id, "--probe", "--yes", "--json")
    assert result.exit_code == 0, result.output
    probe = json.loads(result.stdout)["probe"]
    grades = {a["question"]["number"]: a["grade"] for a in probe["answers"]}
    assert grades == {1: "right", 9: "wrong", **dict.fromkeys((2, 3, 4, 5, 6, 7, 8, 10), "missed")}
    [sent] = fake.calls()
    user = sent.body["input"]
    # the model reads the context after the compaction only: the proposal's summary, not the summarized part
    assert SUMMARY.splitlines()[-1] in user and "fakeredis" not in user.split("Questions:")[0]
    # stored with the proposal, and shown again without a request
    with Store() as store:
        run = stored_run(store, proposal_id)
    assert run is not None and [a.grade for a in run.answers][:1] == ["right"] and run.version == 1
    again = audit("--proposal", proposal_id)
    assert again.exit_code == 0, again.output
    assert "model check of version 1 with openai gpt-5" in again.stdout
    assert f"wrong  [instruction] {FACTS[8]}" in again.stdout and f"answer: {WRONG}" in again.stdout
    assert len(fake.calls()) == 1


def test_the_cost_is_shown_before_any_request_and_declining_sends_nothing(
    proposal_id: str, fake: FakeOpenAI, cutline_home: Path
) -> None:
    result = audit("--proposal", proposal_id, "--probe", answer="n\n")
    assert "tokens in, at most 850 out; price unknown" in result.stderr
    assert "probe not run" in result.stderr and fake.calls() == []
    (cutline_home / "config.toml").write_text("[compaction]\ninputPricePerMTok = 3.0\noutputPricePerMTok = 15.0\n")
    fake.script([Step(text=REPLY)])
    result = audit("--proposal", proposal_id, "--probe", answer="y\n")
    assert result.exit_code == 0, result.output
    line = next(x for x in result.stderr.splitlines() if "tokens in" in x)
    tokens_in = int(line.split("~")[1].split(" ")[0].replace(",", ""))
    assert f"about ${(tokens_in * 3.0 + 850 * 15.0) / 1e6:.4f}" in line
    assert result.stderr.index("tokens in") < result.stderr.index("run the probe?")
    assert len(fake.calls()) == 1 and "model check of version 1" in result.stdout


def test_claude_answers_through_the_anthropic_sdk(
    proposal_id: str, fake_anthropic: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.base_url)
    fake_anthropic.script([Step(text=REPLY)])
    result = audit("--proposal", proposal_id, "--probe", "--yes")
    assert result.exit_code == 0, result.output
    [sent] = fake_anthropic.message_requests()
    assert "Answer each question from the conversation given only" in sent.body["system"]
    assert "1 right, 1 wrong, 8 missed of 10" in result.stdout


def test_without_a_key_the_probe_says_how_to_configure_one_in_one_line(
    proposal_id: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    code, _, err = run(capsys, "audit", "--proposal", proposal_id, "--probe", "--yes")
    assert code != 0
    assert err.strip().splitlines() == [
        "cutline: --probe needs a model: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or baseUrl (or OPENAI_BASE_URL) "
        "for an OpenAI-compatible server, a local one included"
    ]
    # the rest works without one
    assert audit("--proposal", proposal_id).exit_code == 0


def test_a_failing_model_is_one_line_and_nothing_is_stored(
    proposal_id: str, fake: FakeOpenAI, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.fake_openai import server_error

    fake.script(server_error(3))
    monkeypatch.setenv("CUTLINE_COMPACTION__MAXRETRIES", "0")
    code, out, err = run(capsys, "audit", "--proposal", proposal_id, "--probe", "--yes")
    assert code != 0 and out == ""
    lines = err.strip().splitlines()
    assert lines[-1].startswith("cutline: OpenAI API") and "500" in lines[-1], err
    with Store() as store:
        assert stored_run(store, proposal_id) is None
