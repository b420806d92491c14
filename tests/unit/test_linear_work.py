"""No quadratic path: the work (function calls, not time) of the planners, readers, audit and token/timeline paths at n and 4n entries.

Each case is counted at n and 4n (tests.support.work_count) on pi sessions with and
without compactions and on Claude Code and Codex sessions grown from the real programs'
sessions; more than 5x the calls for 4x the entries fails. The last tests show the
count has teeth: the same cases with one per-entry step made quadratic fail.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cutline.core.agents import read_session
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.plan import plan
from cutline.core.store import Store
from cutline.core.store.rows import row_sink
from cutline.core.tokens import chars4_tokens
from tests.support.cli import run
from tests.support.grown_sessions import grow
from tests.support.pi_compactions import write_pi_session
from tests.support.work_count import assert_linear, count_lines

TURNS = 24  # n: ~170 pi entries; 4n: ~680
RECORDS = 300  # n records of a grown Claude Code / Codex session; 4n: 1,200


def _pi(tmp_path: Path, scale: int, every: int) -> Path:
    return write_pi_session(tmp_path / f"pi-{every}-{scale}.jsonl", turns=TURNS * scale, every=every, seed=3)


def _grown(tmp_path: Path, agent: str, scale: int) -> Path:
    return grow(agent, RECORDS * scale, tmp_path / f"{agent}-{scale}.jsonl")


def _planner(file: Path, rules: str) -> Callable[[], Any]:
    path = read_session(file).active_path()
    tokens = [chars4_tokens(e.message) if e.message is not None else 0 for e in path]
    settings = CompactionSettings(keepRecentTokens=2000)
    return lambda: plan(path, settings, "chars4", tokens, rules=rules)


@pytest.mark.parametrize("every", [0, 6], ids=["uncompacted", "compacted"])
@pytest.mark.parametrize("rules", ["pi", "pi-0.73", "openclaw-2026.9"])
def test_planners_grow_linearly(rules: str, every: int, tmp_path: Path) -> None:
    small, large = (_planner(_pi(tmp_path, scale, every), rules) for scale in (1, 4))
    assert_linear(small, large, f"plan ({rules})")


@pytest.mark.parametrize("agent", ["pi", "claude-code", "codex"])
def test_readers_grow_linearly(agent: str, tmp_path: Path) -> None:
    files = [_pi(tmp_path, s, 0) if agent == "pi" else _grown(tmp_path, agent, s) for s in (1, 4)]
    assert_linear(lambda: read_session(files[0]), lambda: read_session(files[1]), f"read ({agent})")


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_an_import_s_reading_grows_linearly(agent: str, tmp_path: Path) -> None:
    """Read as an import reads (rows made as entries are handed on, none kept): Codex holds entries until final."""
    files = [_grown(tmp_path, agent, s) for s in (1, 4)]

    def rows_of(file: Path) -> Callable[[], Any]:
        return lambda: read_session(file, sink=row_sink([]), keep=False)

    assert_linear(rows_of(files[0]), rows_of(files[1]), f"import read ({agent})")


def test_a_streamed_claude_code_import_grows_linearly(tmp_path: Path) -> None:
    """The import as `cutline import` makes it: rows written as read, the end's changes rewritten (core/store/streamed.py)."""
    files = [_grown(tmp_path, "claude-code", s) for s in (1, 4)]
    made = iter(range(1000))

    def import_of(file: Path) -> Callable[[], Any]:
        def call() -> None:
            with Store(tmp_path / f"{file.stem}-{next(made)}.db") as store:  # a new store each time: the streamed way
                store.import_file(file)

        return call

    assert_linear(import_of(files[0]), import_of(files[1]), "streamed import (claude-code)")


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> Callable[[], Any]:
    def call() -> None:
        code, _, err = run(capsys, *args)
        assert code == 0, err

    return call


@pytest.mark.parametrize("every", [0, 6], ids=["uncompacted", "compacted"])
def test_a_cold_plan_of_a_stored_pi_file_grows_linearly(
    every: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Import (streamed), the window, the plan from facts.

    A first plan, not counted, into a store of its own: what a process does once (its
    imports, caches) is then not counted at n only, which made a quadratic step pass when
    this test ran first in its process.
    """
    _cli(capsys, "plan", "--json", "--db", str(tmp_path / "warm.db"), str(_pi(tmp_path, 1, every)))()
    small, large = (
        _cli(capsys, "plan", "--json", "--db", str(tmp_path / f"{s}.db"), str(_pi(tmp_path, s, every))) for s in (1, 4)
    )
    assert_linear(small, large, "cold plan")


def _stored(tmp_path: Path, file: Path, capsys: pytest.CaptureFixture[str]) -> str:
    db = str(file.with_suffix(".db"))
    code, _, err = run(capsys, "import", "--db", db, str(file))
    assert code == 0, err
    return db


@pytest.mark.parametrize("command", ["tokens", "timeline"])
@pytest.mark.parametrize("agent", ["pi", "pi-compacted", "claude-code", "codex"])
def test_tokens_and_timeline_grow_linearly(
    command: str, agent: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [
        _pi(tmp_path, s, 6 if agent == "pi-compacted" else 0) if agent.startswith("pi") else _grown(tmp_path, agent, s)
        for s in (1, 4)
    ]
    calls = []
    for file in files:
        db = _stored(tmp_path, file, capsys)
        run(capsys, command, "--json", "--db", db, str(file))  # the first run caches counts: not counted
        calls.append(_cli(capsys, command, "--json", "--db", db, str(file)))
    assert_linear(calls[0], calls[1], f"{command} ({agent})")


def _proposal(capsys: pytest.CaptureFixture[str], db: str, file: Path) -> str:
    code, out, err = run(capsys, "compact", "--json", "--keep-recent-tokens", "2000", "--db", db, str(file))
    assert code == 0, err
    return str(json.loads(out)["id"])


@pytest.mark.parametrize("every", [0, 6], ids=["uncompacted", "compacted"])
def test_the_audit_of_a_proposal_grows_linearly(every: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """At 96 and 384 turns (~680 and ~2,700 entries), after one audit not counted.

    The uncounted audit takes what a process does once (its regular expressions compiled,
    its imports) out of the count, which otherwise depended on what ran before in the
    process. The sizes: at 24 turns the summary's facts meet only part of the source they
    are compared with, and the audit's work grows 5.1x from 24 to 96 turns, 4.2x from 96
    to 384 (the summary stays 3.6-5k characters at every size); a quadratic step is ~16x
    at either.
    """
    calls = []
    for s in (4, 16):
        file = _pi(tmp_path, s, every)
        db = _stored(tmp_path, file, capsys)
        proposal = _proposal(capsys, db, file)
        calls.append(_cli(capsys, "audit", "--json", "--proposal", proposal, "--db", db, str(file)))
    calls[0]()
    assert_linear(calls[0], calls[1], "audit --proposal")


@pytest.mark.parametrize("every", [0, 6], ids=["uncompacted", "compacted"])
def test_a_compaction_grows_linearly(every: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`compact` (extractive) of a stored session: the window, the plan, the summary read a slice at a time."""
    calls = []
    for s in (1, 4):
        file = _pi(tmp_path, s, every)
        db = _stored(tmp_path, file, capsys)
        calls.append(_cli(capsys, "compact", "--json", "--keep-recent-tokens", "2000", "--db", db, str(file)))
    assert_linear(calls[0], calls[1], "compact")


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_a_claude_code_or_codex_compaction_grows_linearly(
    agent: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`compact` (extractive) of a stored grown session: the span read light from the stored models, by position."""
    calls = []
    for s in (1, 4):
        file = _grown(tmp_path, agent, s)
        db = _stored(tmp_path, file, capsys)
        calls.append(_cli(capsys, "compact", "--json", "--keep-recent-tokens", "2000", "--db", db, str(file)))
    assert_linear(calls[0], calls[1], f"compact ({agent})")


# -- the count has teeth: one per-entry step made quadratic ------------------------------


@pytest.fixture
def quadratic(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str, str], None]]:
    """Make `module.name` quadratic: its k-th call first makes k calls more (work growing with what came before)."""

    def patch(module: str, name: str) -> None:
        target = __import__(module, fromlist=[name])
        original = getattr(target, name)
        seen = [0]

        def step() -> None:
            return None

        def slow(*args: Any, **kwargs: Any) -> Any:
            seen[0] += 1
            for _ in range(seen[0]):
                step()
            return original(*args, **kwargs)

        monkeypatch.setattr(target, name, slow)

    yield patch


def test_a_quadratic_planner_step_is_caught(tmp_path: Path, quadratic: Callable[[str, str], None]) -> None:
    quadratic("cutline.core.releases.pi_0_87.planner", "context_messages_of")
    with pytest.raises(AssertionError, match="super-linear"):
        test_planners_grow_linearly("pi", 0, tmp_path)


def test_a_quadratic_planner_from_stored_facts_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], quadratic: Callable[[str, str], None]
) -> None:
    quadratic("cutline.core.releases.pi_0_87.planner", "Item")
    with pytest.raises(AssertionError, match="super-linear"):
        test_a_cold_plan_of_a_stored_pi_file_grows_linearly(0, tmp_path, capsys)


def test_a_quadratic_reader_step_is_caught(tmp_path: Path, quadratic: Callable[[str, str], None]) -> None:
    quadratic("cutline.core.agents.claude_code.reader", "_message")
    with pytest.raises(AssertionError, match="super-linear"):
        test_readers_grow_linearly("claude-code", tmp_path)


def test_a_quadratic_audit_step_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], quadratic: Callable[[str, str], None]
) -> None:
    """The audit's sizes and warm-up leave it able to fail: one per-entry step (its facts) made quadratic."""
    quadratic("cutline.core.audit.verdicts", "entry_facts")
    with pytest.raises(AssertionError, match="super-linear"):
        test_the_audit_of_a_proposal_grows_linearly(0, tmp_path, capsys)


def _scanned(entries: list[Any]) -> Any:
    """A `ConversationScan` that read these entries (nothing visible)."""
    from cutline.core.audit.compare import passages
    from cutline.core.audit.verdicts import ConversationScan

    scan = ConversationScan(passages([]))
    for entry in entries:
        scan.add(entry, entry.message)
    return scan


def _errors_and_replies(count: int) -> tuple[list[Any], list[Any]]:
    """`count` failed commands' results and after each an assistant reply (every third says it fixed one)."""
    from cutline.core.facts import Fact
    from cutline.core.models import Entry, Message, TextBlock

    facts, entries = [], []
    for k in range(count):
        error = f"ValueError in module_{k}.py: parse_{k} failed"
        message = Message(role="toolResult", content=[TextBlock(text=error)], isError=True)
        entries.append(Entry(id=f"t{k}", type="message", message=message))
        reply = (
            f"Fixed parse_{k // 3} in module_{k // 3}.py." if k % 3 == 0 else f"Looking at parse_{k}; still failing."
        )
        entries.append(
            Entry(id=f"a{k}", type="message", message=Message(role="assistant", content=[TextBlock(text=reply)]))
        )
        facts.append(Fact(kind="error", text=error, key=f"e{k}", source_entry_id=f"t{k}"))
    return facts, entries


def test_the_audit_s_error_states_grow_linearly() -> None:
    """Whether a later assistant message fixed each error: read once, not once per error (quadratic before)."""
    small, large = _errors_and_replies(60), _errors_and_replies(240)
    states = _scanned(small[1]).error_states(small[0])
    assert "fixed" in states.values() and "open" in states.values()
    assert_linear(
        lambda: _scanned(small[1]).error_states(small[0]),
        lambda: _scanned(large[1]).error_states(large[0]),
        "audit error states",
    )


def test_the_audit_s_answers_grow_linearly() -> None:
    """Each question's or failure's answer: settled as the entries are read, not a scan forward per fact (a long run
    of failing commands with no text between them made that quadratic)."""
    from cutline.core.models import Entry, Message, TextBlock

    def failures(count: int) -> list[Any]:
        entries = []
        for k in range(count):
            error = f"ValueError in module_{k}.py: parse_{k} failed"
            message = Message(role="toolResult", content=[TextBlock(text=error)], isError=True)
            entries.append(Entry(id=f"t{k}", type="message", message=message))
        # nothing is said until the very end: every failure's answer is the last message
        said = Message(role="assistant", content=[TextBlock(text="Every ValueError here comes from one bad import.")])
        entries.append(Entry(id="a", type="message", message=said))
        return entries

    def answers(entries: list[Any]) -> list[Any]:
        scan = _scanned(entries)
        return list(scan.answers(scan.facts()))

    small, large = failures(60), failures(240)
    assert len(answers(small)) == 60
    assert_linear(lambda: answers(small), lambda: answers(large), "audit answers")


def _words(count: int) -> str:
    """`count` distinct made-up plain words, none starting with "cac"."""
    out = []
    for k in range(count):
        word = "".join(chr(ord("d") + (k // 20**i) % 20) for i in range(4)) + "q"
        out.append(word)
    return " ".join(out)


def test_matching_a_word_reads_the_passage_s_forms_of_it_not_every_word_of_the_passage() -> None:
    """A fact's plain word missing from a passage is looked for in another form ("cache"/"caches") among the
    passage's words with its first three letters only (`Passage.by_prefix`): the work does not grow with a long
    passage (a summary line, a kept message). Before, every word of the passage was read for every such word."""
    from cutline.core.audit.compare import overlap, passages, tokens

    fact = tokens("Clear the caching layer before the deploy")

    def passage(count: int) -> Any:
        seen = passages([f"The cache layer was cleared {_words(count)}"])
        assert len(seen.items) == 1
        return seen.items[0]

    small, large = passage(200), passage(800)
    assert overlap(fact, small, None) == overlap(fact, large, None) > 0.5  # "caching" matched in another form
    for p in (small, large):
        overlap(fact, p, None)  # what is made once per passage is made
    at_n, at_4n = count_lines(lambda: overlap(fact, small, None)), count_lines(lambda: overlap(fact, large, None))
    assert at_4n <= 1.2 * at_n, f"{at_4n / at_n:.1f}x the lines for a passage 4x as long"


def test_a_fact_s_contradiction_checks_do_not_read_a_long_passage_that_cannot_hold_its_frame() -> None:
    """A candidate passage is checked for another name in the fact's role ("using X" for "using Y") only when the
    words before the fact's role word can all be in it (`_role_swap`'s `norms`): a long summary line sharing one word
    with the fact is not read word by word for every fact. Before, every candidate's words were."""
    from cutline.core.audit.compare import FactView, _contradiction, passages

    fact = FactView("Always run the nightly migrations in the staging cluster", "instruction")

    def seen(count: int) -> Any:
        found = passages([f"The migrations touched the staging tables {_words(count)}"])
        assert len(found.items) == 1
        return found

    small, large = seen(200), seen(800)
    assert _contradiction(fact, small) is None and _contradiction(fact, large) is None  # what is made once is made
    at_n, at_4n = count_lines(lambda: _contradiction(fact, small)), count_lines(lambda: _contradiction(fact, large))
    assert at_4n <= 1.2 * at_n, f"{at_4n / at_n:.1f}x the lines for a passage 4x as long"
