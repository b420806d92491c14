"""OpenClaw's chunking arithmetic, checked with hand-computed token sizes (1 character = 1 token here)."""

from __future__ import annotations

from cutline.core.engine.chunking import (
    MISSING_RESULT_TEXT,
    adaptive_chunk_ratio,
    chunk_by_max_tokens,
    is_oversized,
    max_chunk_tokens,
    oversized_note,
    prune_history_for_context_share,
    repair_tool_pairing,
    split_by_token_share,
)
from cutline.core.models import Message, TextBlock, ToolCallBlock


def length(message: Message) -> int:
    return sum(len(b.text) for b in message.content if isinstance(b, TextBlock))


def u(n: int, tag: str = "x") -> Message:
    return Message(role="user", content=[TextBlock(text=tag * n)])


def call(n: int, *ids: str) -> Message:
    return Message(
        role="assistant",
        content=[TextBlock(text="a" * n), *(ToolCallBlock(id=i, name="bash", arguments={}) for i in ids)],
    )


def result(call_id: str, n: int = 1) -> Message:
    return Message(role="toolResult", toolCallId=call_id, toolName="bash", content=[TextBlock(text="r" * n)])


def sizes(chunks: list[list[Message]]) -> list[list[int]]:
    return [[length(m) for m in chunk] for chunk in chunks]


def test_split_by_token_share_starts_new_part_past_target():
    messages = [u(10), u(10), u(10), u(10), u(60)]
    assert sizes(split_by_token_share(messages, 2, length)) == [[10, 10, 10, 10], [60]]


def test_split_by_token_share_last_part_takes_the_rest():
    assert sizes(split_by_token_share([u(30), u(30), u(40)], 2, length)) == [[30], [30, 40]]


def test_split_by_token_share_parts_capped_by_message_count_and_empty():
    assert sizes(split_by_token_share([u(5), u(5)], 5, length)) == [[5], [5]]
    assert split_by_token_share([], 2, length) == []
    assert sizes(split_by_token_share([u(5), u(5)], 1, length)) == [[5, 5]]


def test_chunk_by_max_tokens_applies_safety_margin_and_isolates_big_messages():
    # max 12 -> effective floor(12 / 1.2) = 10
    chunks = chunk_by_max_tokens([u(4), u(4), u(4), u(25), u(3)], 12, length)
    assert sizes(chunks) == [[4, 4], [4], [25], [3]]


def test_adaptive_chunk_ratio():
    assert adaptive_chunk_ratio([], 1000, length) == 0.4
    assert adaptive_chunk_ratio([u(50), u(50)], 1000, length) == 0.4  # 6% of window
    assert abs(adaptive_chunk_ratio([u(100)], 1000, length) - 0.16) < 1e-9  # 12% -> 0.4 - 0.24
    assert abs(adaptive_chunk_ratio([u(200)], 1000, length) - 0.15) < 1e-9  # floor


def test_max_chunk_tokens_subtracts_overhead():
    assert max_chunk_tokens([u(10)], 200_000, length) == 80_000 - 4096
    assert max_chunk_tokens([u(10)], 5000, length) == 1


def test_oversized_threshold_and_note():
    assert is_oversized(u(417), 1000, length)  # 500.4 > 500
    assert not is_oversized(u(416), 1000, length)  # 499.2
    big = Message(role="toolResult", toolCallId="c", content=[TextBlock(text="z" * 2500)])
    assert oversized_note(big, length) == "[Large toolResult (~3K tokens) omitted from summary]"


def test_repair_moves_results_adds_missing_and_drops_orphans():
    assistant = call(1, "c1", "c2")
    note = u(3, "n")
    messages = [assistant, note, result("c1"), result("c9"), u(2)]
    repair = repair_tool_pairing(messages)
    out = repair.messages
    assert [m.role for m in out] == ["assistant", "toolResult", "toolResult", "user", "user"]
    assert out[1].toolCallId == "c1" and out[1].isError is False
    assert out[2].toolCallId == "c2" and out[2].isError is True
    assert out[2].content[0].text == MISSING_RESULT_TEXT
    assert out[3] is note
    assert repair.dropped_orphans == 1 and repair.discarded[0].toolCallId == "c9"
    assert repair.moved is True
    assert len(repair.added) == 1


def test_repair_leaves_aborted_calls_and_drops_duplicates():
    aborted = call(1, "c1")
    aborted.stopReason = "aborted"
    ok = call(1, "c2")
    messages = [aborted, ok, result("c2"), result("c2")]
    repair = repair_tool_pairing(messages)
    assert [m.role for m in repair.messages] == ["assistant", "assistant", "toolResult"]
    assert repair.dropped_duplicates == 1
    assert repair.added == []


def test_prune_drops_oldest_chunks_and_orphaned_results():
    first = u(30)
    assistant = call(30, "c1")
    answer = result("c1", 30)
    last = u(20)
    pruned = prune_history_for_context_share([first, assistant, answer, last], 100, 0.5, 2, length)
    assert pruned.budget_tokens == 50
    assert pruned.kept == [last]
    # the result lost its call with the second drop, so it is dropped too, in original order
    assert [id(m) for m in pruned.dropped] == [id(first), id(assistant), id(answer)]
    assert pruned.dropped_chunks == 2
    assert pruned.dropped_messages == 3
    assert pruned.dropped_tokens == 90
    assert pruned.kept_tokens == 20


def test_prune_within_budget_changes_nothing():
    messages = [u(10), u(10)]
    pruned = prune_history_for_context_share(messages, 100, 0.5, 2, length)
    assert pruned.kept == messages and pruned.dropped == [] and pruned.dropped_chunks == 0


def test_default_estimate_is_pis_chars4():
    # 10 characters -> ceil(10 / 4) = 3 tokens each; 9 tokens split in 2 parts at 4.5
    messages = [u(10), u(10), u(10)]
    assert [len(c) for c in split_by_token_share(messages, 2)] == [1, 2]
    pruned = prune_history_for_context_share(messages, 10, 0.5)
    assert pruned.budget_tokens == 5 and pruned.kept_tokens <= 5
