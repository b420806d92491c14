"""The compaction engine end to end: pi's single pass, split turns, updates, staging, safeguard, fallbacks, sections, modes."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest

from cutline.core.agents import read_session
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compact import (
    NO_PRIOR_HISTORY,
    ToolFailure,
    collect_tool_failures,
    compact,
    format_file_operations,
    format_tool_failures,
)
from cutline.core.engine.plan import plan
from cutline.core.errors import CutlineError
from cutline.core.hooks import HooksConfig
from cutline.core.models import CompactionRecord, Message, Session
from cutline.core.summarizers.base import Summarizer, SummaryRequest
from cutline.core.summarizers.extractive import ExtractiveSummarizer
from cutline.core.summarizers.prompts import SUMMARIZATION_PROMPT, UPDATE_SUMMARIZATION_PROMPT
from tests.golden_writeback.make_session import write_session
from tests.support.engine_builders import DAY, LATEST, Recorder, assistant, result, run, session_of, user


@pytest.fixture
def sample(tmp_path) -> Session:
    return read_session(write_session(tmp_path / "s.jsonl"))


# -- pi's single pass with a split turn ---------------------------------------------------------


def test_split_turn_summaries_run_concurrently_and_merge_after_separator(sample):
    recorder = Recorder(delay=0.05)
    proposal, the_plan = run(sample, CompactionSettings(keepRecentTokens=300, rules="pi-0.73"), recorder)
    assert the_plan.isSplitTurn and the_plan.firstKeptEntryId == "e000000a"
    assert recorder.peak == 2  # history and turn prefix in flight together
    history, prefix = sorted(recorder.requests, key=lambda r: r.kind)
    assert (history.kind, prefix.kind) == ("history", "turn_prefix")
    assert history.max_tokens == math.floor(0.8 * 16384) == 13107
    assert prefix.max_tokens == 8192
    assert history.prompt_text.startswith("<conversation>\n[User]: Please fix the failing parser tests")
    assert history.prompt_text.endswith(SUMMARIZATION_PROMPT)
    assert prefix.prompt_text.startswith("<conversation>\n[User]: Now run the tests")
    assert proposal.summary == (
        "HISTORY1\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX"
        "\n\n## Last Exchange (Verbatim)\n> **User:** Now run the tests with pytest -q tests/test_parser.py and tell me what fails."
        "\n\n## Tool Failures\n- bash: "
        + ("FAILED tests/test_parser.py::test_quotes - AssertionError: expected 3 fields " * 4)[:237]
        + "...\n\n<modified-files>\nsrc/parser.py\n</modified-files>"
    )


def test_proposal_context_tokens_and_validation(sample):
    proposal, _the_plan = run(sample, CompactionSettings(keepRecentTokens=300), ExtractiveSummarizer())
    history, rest = proposal.summary.split("\n\n---\n\n**Turn Context (split turn):**\n\n")
    assert history.startswith("## Goal\n- Please fix the failing parser tests in src/parser.py.")
    assert rest.startswith("## Original Request\nNow run the tests with pytest -q tests/test_parser.py")
    assert rest.endswith("...\n\n<modified-files>\nsrc/parser.py\n</modified-files>")
    assert proposal.summarizer == "extractive" and proposal.prompt_name == "pi-checkpoint"
    assert proposal.tokensBefore == 2900  # pi's estimate (the oracle's tokensBefore for keep=300)
    assert [m.role for m in proposal.context] == [
        "compactionSummary",
        "assistant",
        "user",
        "assistant",
        "toolResult",
        "assistant",
    ]
    assert proposal.context_entry_ids == [None, "e000000a", "e000000b", "e000000c", "e000000d", "e000000e"]
    assert proposal.context[0].summary == proposal.summary
    assert (
        proposal.tokensAfter == sum(math.ceil(len(t) / 4) for t in [proposal.summary]) + 16 + 10 + 17 + 113 + 8
    )  # kept entries, per the oracle
    assert proposal.validation.ok
    assert proposal.details.modifiedFiles == ["src/parser.py"] and proposal.details.readFiles == []
    assert proposal.details.toolFailures[0].toolCallId == "call_3"
    record = proposal.compaction_record()
    assert record.firstKeptEntryId == "e000000a" and record.tokensBefore == 2900
    assert record.details == {"readFiles": [], "modifiedFiles": ["src/parser.py"]}
    assert proposal.injected.memory_flush.prompt.endswith(
        "(use memory/2026-01-28.md; create memory/ if needed). If nothing to store, reply with NO_REPLY."
    )
    assert proposal.injected.recovery_turn is None


def test_no_prior_history_when_the_split_turn_is_the_first_turn():
    messages = [
        user("start"),
        assistant("reading", ("c1", "read", {"path": "a.py"})),
        result("c1", "x" * 400),
        assistant("", ("c2", "bash", {"command": "ls"})),
        result("c2", "a.py"),
        assistant("done"),
    ]
    recorder = Recorder()
    proposal, the_plan = run(session_of(messages), CompactionSettings(keepRecentTokens=20), recorder)
    assert the_plan.isSplitTurn and the_plan.summarize_indices() == []
    assert [r.kind for r in recorder.requests] == ["turn_prefix"]
    assert proposal.summary.startswith(f"{NO_PRIOR_HISTORY}\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX")


def test_iterative_update_uses_previous_summary():
    messages = [
        user("one " * 50),
        assistant("a " * 50),
        user("two " * 50),
        assistant("b " * 50),
        user("three"),
        assistant("c"),
        LATEST,
    ]
    previous = CompactionRecord(
        summary="OLD SUMMARY",
        firstKeptEntryId="m0002",
        tokensBefore=100,
        details={"readFiles": ["old.txt"], "modifiedFiles": []},
    )
    session = session_of(messages, previous, at=3)
    recorder = Recorder()
    proposal, the_plan = run(session, CompactionSettings(keepRecentTokens=5, lastTurnInjection=False), recorder)
    assert the_plan.previousSummary == "OLD SUMMARY"
    (request,) = recorder.requests
    assert request.kind == "update" and request.previous_summary == "OLD SUMMARY"
    assert "\n</conversation>\n\n<previous-summary>\nOLD SUMMARY\n</previous-summary>\n\n" in request.prompt_text
    assert request.prompt_text.endswith(UPDATE_SUMMARIZATION_PROMPT)
    assert proposal.summary == "UPDATE1\n\n<read-files>\nold.txt\n</read-files>"


def test_custom_instructions_reach_the_prompt(sample):
    recorder = Recorder()
    run(sample, CompactionSettings(keepRecentTokens=300, customInstructions="keep port numbers"), recorder)
    history = next(r for r in recorder.requests if r.kind == "history")
    assert history.prompt_text.endswith(SUMMARIZATION_PROMPT + "\n\nAdditional focus: keep port numbers")


# -- staged, safeguard, fallbacks ----------------------------------------------------------------


def long_history(n: int = 8, size: int = 400) -> list[Message]:
    messages: list[Message] = []
    for i in range(n):
        messages += [user(f"request {i} " + "u" * size), assistant(f"answer {i} " + "a" * size)]
    return [*messages, LATEST]


def test_staged_parts_run_concurrently_then_merge():
    events = []
    recorder = Recorder(delay=0.05)
    # window 12,000: chunks may take floor(12,000 x 0.4) - 4,096 = 704 tokens, less than the ~1,650 to summarize
    settings = CompactionSettings(
        rules="pi-0.73", keepRecentTokens=10, parts=4, contextWindow=12_000, mode="safeguard", lastTurnInjection=False
    )
    proposal, _ = run(session_of(long_history()), settings, recorder, progress=events.append)
    parts = [r for r in recorder.requests if r.kind == "history"]
    merge = [r for r in recorder.requests if r.kind == "merge"]
    assert len(parts) == 4 and len(merge) == 1
    assert recorder.peak == 4
    assert merge[0].partial_summaries == ["HISTORY1", "HISTORY2", "HISTORY3", "HISTORY4"]
    assert merge[0].prompt_text.startswith("<conversation>\n[User]: [Chunk 1 — oldest messages]\n")
    assert proposal.summary.startswith("MERGED(")
    staged = [(e.stage, e.part, e.parts) for e in events if e.parts == 4]
    assert sorted(staged) == [("history", i, 4) for i in range(1, 5)]


def test_pi_mode_stages_only_when_input_exceeds_max_chunk():
    recorder = Recorder()
    settings = CompactionSettings(keepRecentTokens=10, lastTurnInjection=False, rules="pi-0.73")
    run(session_of(long_history()), settings, recorder)
    assert [r.kind for r in recorder.requests] == ["history"]  # 1,600 tokens is far below the chunk limit
    recorder = Recorder()
    run(session_of(long_history()), settings.with_overrides(maxChunkTokens=500), recorder)
    assert [r.kind for r in recorder.requests].count("history") >= 3
    assert recorder.requests[-1].kind == "merge"


def test_safeguard_prunes_and_summarizes_dropped_part_first():
    recorder = Recorder()
    settings = CompactionSettings(
        keepRecentTokens=10, mode="safeguard", contextWindow=2000, lastTurnInjection=False, rules="pi-0.73"
    )
    messages = long_history(8, 300)
    the_plan = plan(session_of(messages).active_path(), settings)
    the_plan.tokensBefore = 5000  # new content far above 0.5 x 1000 x 1.2
    proposal = asyncio.run(compact(the_plan, session_of(messages), recorder, settings, today=DAY))
    assert any(n.startswith("safeguard: new content uses") and "dropped" in n for n in proposal.notes)
    # the dropped (oldest) half is summarized first; its summary reaches the final merge as the previous summary
    assert "request 0" in recorder.requests[0].messages[0].text()
    final = recorder.requests[-1]
    assert final.kind == "merge" and final.previous_summary.startswith("MERGED(")
    assert proposal.summary.startswith("MERGED(")


def test_fallback_partial_without_oversized_messages():
    big = result("c1", "z" * 260_000, name="read")  # 65,000 tokens: oversized for a 100,000 window
    messages = [
        user("look"),
        assistant("", ("c1", "read", {"path": "big.log"})),
        big,
        assistant("seen"),
        user("next"),
        assistant("ok"),
        LATEST,
    ]

    def fail(request):
        return any(m is big or (m.toolCallId == "c1" and m.role == "toolResult") for m in request.messages)

    recorder = Recorder(fail=fail)
    settings = CompactionSettings(keepRecentTokens=5, contextWindow=100_000, lastTurnInjection=False, rules="pi-0.73")
    proposal, _ = run(session_of(messages), settings, recorder)
    assert proposal.degraded == "partial"
    # 65,000 tokens exceed one chunk, so the input is staged: the part holding the big result is summarized
    # again without it and noted, then the parts are merged
    assert proposal.summary.startswith(
        "MERGED(HISTORY1 | HISTORY3\n\n[Large toolResult (~65K tokens) omitted from summary])"
    )
    assert any("full summarization failed: model refused" in n for n in proposal.notes)


def test_fallback_annotation_when_everything_fails():
    recorder = Recorder(fail=lambda request: True)
    settings = CompactionSettings(keepRecentTokens=5, lastTurnInjection=False)
    messages = [user("a"), assistant("b"), user("c"), assistant("d"), user("e"), assistant("f"), LATEST]
    proposal, the_plan = run(session_of(messages), settings, recorder)
    n = len(the_plan.summarize_indices())
    assert proposal.summary == f"Context contained {n} messages (0 oversized). Summary unavailable due to size limits."
    assert proposal.degraded == "annotation"


# -- appended sections ----------------------------------------------------------------------------


def test_tool_failures_section_dedup_cap_and_more():
    messages = [result(f"c{i}", f"error   number\n{i}", error=True) for i in range(10)]
    messages.append(result("c0", "duplicate", error=True))
    messages.append(result("ok", "fine"))
    messages.append(Message(role="toolResult", toolCallId="m", toolName="", isError=True, content=[]))
    failures = collect_tool_failures(messages)
    assert len(failures) == 11
    assert failures[0] == ToolFailure(toolCallId="c0", toolName="bash", summary="error number 0")
    assert failures[-1].toolName == "tool" and failures[-1].summary == "failed (no output)"
    section = format_tool_failures(failures)
    assert (
        section
        == "\n\n## Tool Failures\n" + "\n".join(f"- bash: error number {i}" for i in range(8)) + "\n- ...and 3 more"
    )
    meta = Message(
        role="toolResult",
        toolCallId="x",
        toolName="bash",
        isError=True,
        content=[],
        details={"status": "failed", "exitCode": 2},
    )
    assert (
        format_tool_failures(collect_tool_failures([meta]))
        == "\n\n## Tool Failures\n- bash (status=failed exitCode=2): failed"
    )
    long = collect_tool_failures([result("l", "y" * 300, error=True)])[0]
    assert long.summary == "y" * 237 + "..."


def test_file_operations_format():
    assert format_file_operations([], []) == ""
    assert format_file_operations(["a.md", "b.md"], ["c.py"]) == (
        "\n\n<read-files>\na.md\nb.md\n</read-files>\n\n<modified-files>\nc.py\n</modified-files>"
    )


# -- last-turn injection inside the engine (spec tests 7 and 8) ------------------------------------


def test_engine_appends_last_exchange_when_it_is_summarized():
    messages = [
        user("What port?"),
        assistant("Port 8443."),
        user("And the host?"),
        assistant("db.internal."),
        user("subagent announcement " * 20),
        user("subagent announcement " * 20),
    ]
    proposal, the_plan = run(session_of(messages), CompactionSettings(keepRecentTokens=150), Recorder())
    assert the_plan.summarize_indices() == [0, 1, 2, 3]
    section = "## Last Exchange (Verbatim)\n> **User:** And the host?\n> **Assistant:** db.internal."
    assert proposal.summary == f"HISTORY1\n\n{section}"
    assert proposal.injected.last_turn == section


def test_engine_injects_nothing_without_messages_or_when_disabled(sample):
    proposal, _ = run(sample, CompactionSettings(keepRecentTokens=300, lastTurnInjection=False), Recorder())
    assert "## Last Exchange" not in proposal.summary and proposal.injected.last_turn == ""
    first_turn = [
        user("start"),
        assistant("reading", ("c1", "read", {"path": "a.py"})),
        result("c1", "x" * 400),
        assistant("", ("c2", "bash", {"command": "ls"})),
        result("c2", "a.py"),
        assistant("done"),
    ]
    session = session_of(first_turn)
    proposal, _the_plan = run(session, CompactionSettings(keepRecentTokens=20), Recorder())
    # the user message is in the turn prefix, so it is injected; with an empty history nothing else is
    assert proposal.injected.last_turn == "## Last Exchange (Verbatim)\n> **User:** start\n> **Assistant:** reading"


# -- hooks, recovery, cancellation ---------------------------------------------------------------


HOOK_EVENTS: list[dict] = []


def good_hook(event: dict) -> None:
    HOOK_EVENTS.append(event)


def bad_hook(event: dict) -> None:
    raise ValueError("hook broke")


def test_hooks_get_counts_and_failures_become_notes(sample, monkeypatch):
    import sys
    import types

    module = types.ModuleType("engine_hooks_fixture")
    module.good, module.bad = good_hook, bad_hook
    monkeypatch.setitem(sys.modules, "engine_hooks_fixture", module)
    HOOK_EVENTS.clear()
    hooks = HooksConfig(
        before_compaction=["engine_hooks_fixture:good"],
        after_compaction=["engine_hooks_fixture:good", "engine_hooks_fixture:bad"],
    )
    proposal, _ = run(sample, CompactionSettings(keepRecentTokens=300), Recorder(), hooks=hooks)
    assert [
        {"messageCount": 9, "tokenCount": 2900},
        {"messageCount": 6, "tokenCount": proposal.tokensAfter, "compactedCount": 9},
    ] == HOOK_EVENTS
    assert "after_compaction hook engine_hooks_fixture:bad failed: ValueError: hook broke" in proposal.notes


def test_recovery_turn_when_enabled(sample):
    settings = CompactionSettings(keepRecentTokens=300)
    settings.postCompaction.enabled = True
    proposal, _ = run(sample, settings, Recorder())
    assert proposal.injected.recovery_turn == "Compaction completed. Read memory/2026-01-28.md to recover context."


def test_cancelling_the_task_stops_the_compaction(sample):
    recorder = Recorder(delay=5)
    settings = CompactionSettings(keepRecentTokens=300)
    the_plan = plan(sample.active_path(), settings)

    async def go():
        task = asyncio.create_task(compact(the_plan, sample, recorder, settings))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    assert recorder.in_flight == 0


def test_nothing_to_compact_is_an_error(sample):
    settings = CompactionSettings()
    the_plan = plan(sample.active_path(), settings)
    the_plan.alreadyCompacted = True
    with pytest.raises(CutlineError, match="already ends with a compaction"):
        asyncio.run(compact(the_plan, sample, Recorder(), settings))


# -- the other modes -------------------------------------------------------------------------------


def test_first_and_tail_merges_summary_into_first_message(sample):
    recorder = Recorder()
    settings = CompactionSettings(mode="first-and-tail", protectedTailMessages=4)
    proposal, _ = run(sample, settings, recorder)
    (request,) = recorder.requests
    assert request.prompt_text.startswith(
        "Summarize the following conversation history between a user and an AI assistant."
    )
    first = proposal.context[0]
    assert first.role == "user"
    assert first.text() == (
        "Please fix the failing parser tests in src/parser.py. Keep the public API unchanged."
        "\n\n[CONTEXT SUMMARY]\nHISTORY1\n[END CONTEXT SUMMARY]"
    )
    # the tail starts with a user message, so an acknowledgement keeps the roles alternating
    assert [m.role for m in proposal.context] == ["user", "assistant", "user", "assistant", "toolResult", "assistant"]
    assert proposal.context[1].text() == "Understood. Continuing with the current task."
    assert proposal.validation.ok
    assert proposal.compaction_record().summary == first.text()


def test_first_and_tail_without_acknowledgement_when_tail_starts_with_assistant(sample):
    proposal, _ = run(sample, CompactionSettings(mode="first-and-tail", protectedTailMessages=3), Recorder())
    assert [m.role for m in proposal.context] == ["user", "assistant", "toolResult", "assistant"]


def test_system_and_summary_keeps_one_user_message(sample):
    recorder = Recorder()
    proposal, _ = run(sample, CompactionSettings(mode="system-and-summary"), recorder)
    (request,) = recorder.requests
    assert request.prompt_text.endswith("where we left off without asking clarifying questions.")
    assert len(proposal.context) == 1
    assert (
        proposal.context[0].text() == "HISTORY1\n\nLast request from user was: Which commit introduced the quoting bug?"
    )
    assert proposal.firstKeptEntryId is None
    assert proposal.validation.ok


class Silent(Summarizer):
    name = "silent"

    async def summarize(self, request: SummaryRequest) -> str:
        return "   "


def test_empty_summary_makes_the_proposal_invalid():
    messages = [user("a " * 40), assistant("b " * 40), LATEST]
    proposal, _ = run(session_of(messages), CompactionSettings(keepRecentTokens=5, lastTurnInjection=False), Silent())
    assert not proposal.validation.ok
    assert [(p.code, p.index) for p in proposal.validation.problems] == [("empty-summary", 0)]


def test_safeguard_summarizes_the_turn_prefix_with_openclaw_focus(sample):
    recorder = Recorder()
    run(sample, CompactionSettings(keepRecentTokens=300, mode="safeguard", rules="pi-0.73"), recorder)
    prefix = [r for r in recorder.requests if r.messages and r.messages[0].text().startswith("Now run the tests")]
    (request,) = prefix
    assert request.kind == "history" and request.max_tokens == 13107
    assert request.prompt_text.endswith(
        "\n\nAdditional focus: This summary covers the prefix of a split turn. Focus on the original request,"
        " early progress, and any details needed to understand the retained suffix."
    )


def test_plan_and_settings_modes_must_agree(sample):
    the_plan = plan(sample.active_path(), CompactionSettings(mode="first-and-tail"))
    with pytest.raises(CutlineError, match="plan was made for mode first-and-tail, the settings ask for pi"):
        asyncio.run(compact(the_plan, sample, Recorder(), CompactionSettings()))


@pytest.mark.parametrize("corpus", ["claude-code/main/session.jsonl", "qwen-code/main/session.jsonl"])
def test_tool_failures_read_the_result_blocks_claude_code_and_qwen_code_nest(corpus: str) -> None:
    """Their readers carry a tool's output in a result block inside the message: its text is the failure."""
    session = read_session(Path(__file__).parents[1] / "fixtures" / "corpus" / corpus)
    messages = [e.message for e in session.entries if getattr(e, "message", None) is not None]
    failures = collect_tool_failures(messages)
    assert failures, "the corpus session has a failing `cat missing-file.txt`"
    assert all("missing-file.txt" in f.summary for f in failures), [f.summary for f in failures]
    assert "failed (no output)" not in format_tool_failures(failures)
