"""The planner beyond parity: its explanation and budget figures, pi-mode edges, and the seeds' two other modes."""

from __future__ import annotations

from pathlib import Path

import pytest

from cutline.core.agents import read_session
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.context import build_context, estimate_context_tokens
from cutline.core.engine.plan import clean_history, index_path, plan
from cutline.core.models import Entry, Message, Usage
from tests.support.paths import ROOT, TESTS

GOLDEN = TESTS / "golden" / "sessions"


def path_of(name: str) -> list[Entry]:
    return read_session(GOLDEN / f"{name}.jsonl").active_path()


def m(role: str, text: str = "", **kw) -> Message:
    content = [{"type": "text", "text": text}] if text else []
    return Message.model_validate({"role": role, "content": content, **kw})


def call(call_id: str, name: str = "linkedin_job_detail", **args) -> dict:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": args}


def as_path(messages: list[Message]) -> list[Entry]:
    return [
        Entry(id=f"{i:08x}", parentId=f"{i - 1:08x}" if i else None, type="message", message=message)
        for i, message in enumerate(messages)
    ]


# -- pi mode ---------------------------------------------------------------------------------


def test_plan_explains_the_walk_the_move_back_and_the_split_turn() -> None:
    result = plan(path_of("special-cut-points"), CompactionSettings(keepRecentTokens=5000, rules="pi-0.73"))
    # verified against pi's own answer in tests/golden/special-cut-points.golden.json
    assert (result.firstKeptPathIndex, result.isSplitTurn, result.turnStartPathIndex) == (76, True, 74)
    assert result.crossingPathIndex == 79 and result.cutCandidatePathIndex == 79
    steps = {step.step: step.text for step in result.explanation}
    assert "reached 5,000 at path index 79" in steps["walk"]
    assert "1 label entry, 1 model_change entry, 1 thinking_level_change entry" in steps["move-back"]
    assert "turn starts at 74 (bashExecution), so 74..75 is the turn prefix" in steps["split-turn"]
    assert steps["trigger"].startswith("context window 200,000 (model) − reserve 16,384 = threshold 183,616")


def test_plan_spans_cover_the_window_and_tokens_add_up() -> None:
    path = path_of("previous-compactions")
    result = plan(path, CompactionSettings(keepRecentTokens=5000, rules="pi-0.73"))
    assert result.boundaryStart == 30 and result.previousCompactionIndex == 48
    covered = result.summarize_indices() + result.turn_prefix_indices() + result.kept_indices()
    assert covered == list(range(result.boundaryStart, len(path)))
    assert len(result.entryTokens) == len(path)
    producers = [i for i in covered if path[i].type in ("message", "custom_message", "branch_summary")]
    assert result.summarizedTokens + result.turnPrefixTokens + result.keptTokens == sum(
        result.entryTokens[i] for i in producers
    )
    # previous compaction's details (not fromHook) join the file lists
    assert "pkg/old-read.ts" in result.readFiles and "pkg/old-mod.ts" in result.editedFiles
    assert result.modifiedFiles == sorted(set(result.editedFiles) | set(result.writtenFiles))
    assert set(result.readOnlyFiles) == set(result.readFiles) - set(result.modifiedFiles)


def test_walk_that_crosses_after_the_last_cut_point_falls_back_like_pi() -> None:
    result = plan(path_of("crossing-after-last-cut"), CompactionSettings(keepRecentTokens=2000, rules="pi-0.73"))
    assert result.crossingPathIndex == 18 and result.firstKeptPathIndex == 0
    assert any("falls back to the first valid cut point 0" in s.text for s in result.explanation)


def test_already_compacted_is_a_plan_that_says_so() -> None:
    result = plan(path_of("already-compacted"), CompactionSettings())
    assert result.alreadyCompacted and not result.shouldCompact and result.firstKeptEntryId is None
    assert result.previousCompactionIndex == len(path_of("already-compacted")) - 1


def test_should_compact_uses_window_minus_reserve_strictly() -> None:
    path = path_of("split-turns")
    tokens_before = plan(path, CompactionSettings()).tokensBefore
    at = plan(path, CompactionSettings(contextWindow=tokens_before + 16384))
    over = plan(path, CompactionSettings(contextWindow=tokens_before + 16383))
    assert at.threshold == tokens_before and not at.shouldCompact
    assert over.shouldCompact and over.contextWindowSource == "config"


def test_tokens_before_ignores_aborted_and_error_usage() -> None:
    path = path_of("split-turns")
    context = build_context(path)
    estimate = estimate_context_tokens(context)
    assert context[-1].stopReason == "error" and context[-2].stopReason == "aborted"
    assert estimate.lastUsageIndex == len(context) - 4  # the reply before the last user message
    assert plan(path, CompactionSettings()).tokensBefore == estimate.tokens


def test_safeguard_mode_applies_reserve_floor_and_history_share() -> None:
    result = plan(path_of("split-turns"), CompactionSettings(mode="safeguard", contextWindow=100000))
    assert result.reserveTokens == 20000 and result.threshold == 80000
    assert result.historyBudgetTokens == 50000 and result.historyExceedsShare is True


def test_custom_counter_tokens_drive_the_walk() -> None:
    path = path_of("split-turns")
    ones = [1 if e.type == "message" else 0 for e in path]
    result = plan(path, CompactionSettings(keepRecentTokens=3), counter="unit", tokens=ones)
    # three messages from the end: the error, aborted and user message; the cut lands at the user message
    assert result.firstKeptPathIndex == len(path) - 3 and not result.isSplitTurn
    assert result.counter == "unit"


def test_token_list_must_match_the_path() -> None:
    with pytest.raises(ValueError):
        index_path(path_of("images"), [1, 2, 3])


# -- first-and-tail (compaction-design-single-pass.md) ---------------------------------------------


def job_search(first_protected_is_tool_result: bool = False) -> list[Message]:
    """The seed's walkthrough: message 0 is the request, 24 more messages of search rounds (~85K tokens)."""
    messages = [m("user", "Execute the job search prompt from search-prompt.txt")]
    if first_protected_is_tool_result:
        messages.append(m("assistant", "Reading the search criteria first."))
    n = 0
    while len(messages) < 25:
        n += 1
        messages.append(
            m(
                "assistant",
                "I'll search now...",
                content=[{"type": "text", "text": "I'll search now..."}, call(f"c{n}", job=n)],
            )
        )
        messages.append(m("toolResult", "job description " * 1900, toolCallId=f"c{n}", toolName="linkedin_job_detail"))
    messages = messages[:25]
    if not first_protected_is_tool_result:
        # messages 19..24: an assistant reply first, so the boundary needs no adjustment
        messages[19] = m("assistant", "Scoring the positions against the rubric.")
        messages[20] = m("user", "Write the report.")
    return messages


def test_first_and_tail_job_search_walkthrough() -> None:
    path = as_path(job_search())
    result = plan(path, CompactionSettings(mode="first-and-tail"))
    assert result.tokensBefore > 80000  # "Tokens hit ~85K. Compaction triggers."
    assert result.shouldCompact
    # compaction zone: messages 1-18; protected: 19-24 and message 0
    assert result.summarize_indices() == list(range(1, 19))
    assert result.kept_indices() == [0, *range(19, 25)]
    assert result.messagesToSummarize == 18 and result.firstKeptPathIndex == 19
    assert result.protectedHeadPathIndex == 0


def test_first_and_tail_boundary_pulls_back_so_a_tool_result_keeps_its_call() -> None:
    messages = job_search(first_protected_is_tool_result=True)
    assert messages[19].role == "toolResult" and messages[18].role == "assistant"
    result = plan(as_path(messages), CompactionSettings(mode="first-and-tail"))
    assert result.firstKeptPathIndex == 18
    assert result.summarize_indices() == list(range(1, 18))


def test_first_and_tail_single_round_does_not_trigger() -> None:
    path = as_path(job_search()[:9])  # "Single search round ... Generates ~8-10 messages"
    result = plan(path, CompactionSettings(mode="first-and-tail"))
    assert result.tokensBefore < 80000 and not result.shouldCompact


def test_first_and_tail_needs_two_messages_in_the_zone() -> None:
    messages = [
        m("user", "x" * 400_000),
        m("assistant", "a"),
        m("user", "b"),
        m("assistant", "c"),
        m("user", "d"),
        m("assistant", "e"),
        m("user", "f"),
        m("assistant", "g"),
    ]
    result = plan(as_path(messages), CompactionSettings(mode="first-and-tail"))
    assert result.tokensBefore > 80000
    assert result.nothingToCompact and not result.shouldCompact  # zone is message 1 only
    messages.insert(1, m("user", "one more"))
    assert plan(as_path(messages), CompactionSettings(mode="first-and-tail")).shouldCompact


def test_first_and_tail_trigger_is_strictly_greater() -> None:
    messages = job_search()
    total = plan(as_path(messages), CompactionSettings(mode="first-and-tail")).tokensBefore
    assert not plan(
        as_path(messages), CompactionSettings(mode="first-and-tail", compactionThresholdTokens=total)
    ).shouldCompact
    assert plan(
        as_path(messages), CompactionSettings(mode="first-and-tail", compactionThresholdTokens=total - 1)
    ).shouldCompact


# -- system-and-summary (context-compaction-go.md) ------------------------------------------------


def go_history() -> list[Message]:
    return [
        m("system", "You are a coding agent."),
        m("user", "Refactor the parser in internal/parse.go"),
        m("assistant", "", content=[call("t1", "read_file", path="internal/parse.go"), call("t2", "grep", q="Parse")]),
        m("toolResult", "package parse ...", toolCallId="t1", toolName="read_file"),
        m("assistant", "Now add tests please?"),
        m("user", "Also add a test for empty input"),
        m("assistant", "", content=[call("t3", "write_file", path="internal/parse_test.go")]),
        m("toolResult", "ok", toolCallId="t3", toolName="write_file"),
    ]


def test_clean_history_fills_missing_results_and_never_ends_on_a_tool_message() -> None:
    cleaned = clean_history(go_history()[1:])
    roles = [x.role for x in cleaned]
    assert roles == [
        "user",
        "assistant",
        "toolResult",
        "toolResult",
        "assistant",
        "user",
        "assistant",
        "toolResult",
        "assistant",
    ]
    filled = cleaned[3]
    assert filled.toolCallId == "t2" and filled.text() == "Tool no response" and filled.toolName == "grep"
    assert cleaned[-1].text() == "Understood."
    # already clean: unchanged
    assert clean_history(cleaned) == cleaned


def test_system_and_summary_keeps_system_prompt_and_last_user_request() -> None:
    result = plan(as_path(go_history()), CompactionSettings(mode="system-and-summary"))
    assert result.kept_indices() == [0]
    assert result.summarize_indices() == list(range(1, 8))
    assert result.lastUserPathIndex == 5 and result.lastUserRequest == "Also add a test for empty input"
    assert result.messagesToSummarize == 9  # 7 messages + one filled result + "Understood."
    assert result.firstKeptEntryId is None


def test_system_and_summary_trigger_is_greater_or_equal_and_zero_disables() -> None:
    messages = go_history()
    messages[-2] = m("assistant", "", content=[call("t3", "write_file", path="x")], usage=Usage(totalTokens=200000))
    path = as_path(messages)
    assert plan(path, CompactionSettings(mode="system-and-summary")).tokensBefore == 200000 + 1  # "ok" after the usage
    assert plan(path, CompactionSettings(mode="system-and-summary", threshold=200001)).shouldCompact
    assert not plan(path, CompactionSettings(mode="system-and-summary", threshold=200002)).shouldCompact
    assert not plan(path, CompactionSettings(mode="system-and-summary", threshold=0)).shouldCompact


def _all_sessions() -> list[Path]:
    samples = ROOT / "sample_sessions"
    return sorted(GOLDEN.glob("*.jsonl")) + sorted(samples.glob("*.jsonl"))


@pytest.mark.parametrize("source", _all_sessions(), ids=lambda p: p.stem)
def test_indexed_context_estimate_equals_building_the_context(source: Path) -> None:
    path = read_session(source).active_path()
    for cut in (len(path), len(path) * 2 // 3, len(path) // 3):  # also prefixes: usage found in other places
        prefix = path[:cut]
        expected = estimate_context_tokens(build_context(prefix))
        assert index_path(prefix).context_estimate() == expected, f"first {cut} entries"


@pytest.mark.parametrize("source", _all_sessions(), ids=lambda p: p.stem)
@pytest.mark.parametrize("mode", ["pi", "safeguard", "first-and-tail", "system-and-summary"])
def test_every_session_plans_in_every_mode(source: Path, mode: str) -> None:
    path = read_session(source).active_path()
    result = plan(path, CompactionSettings(mode=mode, keepRecentTokens=2000))
    n = len(path)
    for span in result.summarizeSpans + result.turnPrefixSpans + result.keptSpans:
        assert 0 <= span.start < span.stop <= n
    if result.firstKeptPathIndex is not None:
        assert path[result.firstKeptPathIndex].id == result.firstKeptEntryId
    assert result.explanation and all(step.text for step in result.explanation)
    assert result.tokensBefore >= 0 and len(result.entryTokens) == n
    result.model_dump_json()
