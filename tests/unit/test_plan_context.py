"""The context the model sees (pi's buildSessionContext) for pi, Claude Code and Codex shaped paths, and its estimates."""

from __future__ import annotations

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.context import (
    build_context,
    context_indices,
    entry_message,
    estimate_context_tokens,
    sum_context_tokens,
)
from cutline.core.engine.plan import plan
from cutline.core.models import CompactionRecord, Entry, Message, Usage


def m(role: str, text: str = "", **kw) -> Message:
    return Message.model_validate({"role": role, "content": [{"type": "text", "text": text}] if text else [], **kw})


def chain(*entries: Entry) -> list[Entry]:
    for i, e in enumerate(entries):
        e.parentId = entries[i - 1].id if i else None
    return list(entries)


def msg(entry_id: str, message: Message, **kw) -> Entry:
    return Entry(id=entry_id, type="message", message=message, **kw)


def test_pi_compaction_keeps_from_first_kept_entry_and_everything_after() -> None:
    path = chain(
        msg("a", m("user", "old")),
        msg("b", m("assistant", "old reply")),
        msg("c", m("user", "kept")),
        Entry(id="x", type="model_change", data={"modelId": "m"}),
        Entry(id="k", type="compaction", compaction=CompactionRecord(summary="S" * 8, firstKeptEntryId="c")),
        msg("d", m("user", "after")),
        Entry(id="bs", type="branch_summary", message=m("branchSummary", summary="")),  # empty: pi skips it
        Entry(id="cm", type="custom_message", message=m("custom", "note")),
    )
    messages = build_context(path)
    assert [x.role for x in messages] == ["compactionSummary", "user", "user", "custom"]
    assert messages[0].summary == "S" * 8
    assert context_indices(path) == [4, 2, 5, 7]
    # the plain sum: 2 (summary) + 1 + 2 + 1
    assert sum_context_tokens(messages) == 6


def test_claude_code_compaction_keeps_nothing_before_and_skips_summary_and_sidechain_records() -> None:
    path = chain(
        msg("a", m("user", "before the compaction")),
        Entry(id="k", type="compaction", compaction=CompactionRecord(summary="summary text", firstKeptEntryId=None)),
        msg("s", m("user", "summary text"), isCompactSummary=True),
        msg("side", m("assistant", "sidechain work"), isSidechain=True),
        msg("b", m("user", "next question")),
    )
    messages = build_context(path)
    assert [x.role for x in messages] == ["compactionSummary", "user"]
    assert messages[1].text() == "next question"
    result = plan(path, CompactionSettings(keepRecentTokens=1, rules="pi-0.73"))
    # the cut at "next question" moves back over the records that never reach the model, like settings entries
    assert result.boundaryStart == 2 and result.crossingPathIndex == 4 and result.firstKeptPathIndex == 2
    assert not result.isSplitTurn
    assert result.messagesToSummarize == 0  # summary record and sidechain never count as messages


def test_estimate_uses_last_successful_usage_plus_later_messages() -> None:
    messages = [
        m("user", "x" * 40),
        m("assistant", "y" * 4, usage=Usage(input=100, output=10, cacheRead=5, cacheWrite=5)),
        m("user", "z" * 8),
        m("assistant", "w", stopReason="error", usage=Usage(totalTokens=999)),
    ]
    estimate = estimate_context_tokens(messages)
    assert estimate.usageTokens == 120 and estimate.lastUsageIndex == 1
    assert estimate.trailingTokens == 2 + 1 and estimate.tokens == 123
    none = estimate_context_tokens(messages[:1])
    assert none.lastUsageIndex is None and none.tokens == 10 and none.usageTokens == 0


def test_entry_message_for_custom_message_without_a_message_uses_the_entry_fields() -> None:
    entry = Entry(id="c", type="custom_message", data={"customType": "t", "content": "hello there", "display": True})
    message = entry_message(entry)
    assert message is not None and message.role == "custom" and message.text() == "hello there"
    assert entry_message(Entry(id="l", type="label")) is None
