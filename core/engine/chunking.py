"""Splitting messages for staged summarization, OpenClaw's way: token-share parts, max-token chunks,
the adaptive chunk ratio, oversized-message detection, history pruning and tool-pair repair.

Every function takes an `estimate` (message -> tokens); the default is pi's chars/4
estimate, the one OpenClaw's compaction uses for all of this arithmetic.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence

from pydantic import BaseModel, ConfigDict, Field

from cutline.core.models import Message, TextBlock

BASE_CHUNK_RATIO = 0.4
MIN_CHUNK_RATIO = 0.15
SAFETY_MARGIN = 1.2
DEFAULT_PARTS = 2
SUMMARIZATION_OVERHEAD_TOKENS = 4096
OVERSIZED_WINDOW_SHARE = 0.5
DEFAULT_MAX_HISTORY_SHARE = 0.5
MISSING_RESULT_TEXT = (
    "[cutline] missing tool result in session history; inserted synthetic error result for transcript repair."
)

Estimate = Callable[[Message], int]


def default_estimate(message: Message) -> int:
    """pi's chars/4 estimate of one message."""
    from cutline.core.tokens import chars4_tokens

    return chars4_tokens(message)


def total_tokens(messages: Iterable[Message], estimate: Estimate | None = None) -> int:
    est = estimate or default_estimate
    return sum(est(m) for m in messages)


def normalize_parts(parts: int, message_count: int) -> int:
    """A usable part count: at least 1, at most one part per message."""
    if not isinstance(parts, int | float) or not math.isfinite(parts) or parts <= 1:
        return 1
    return min(max(1, int(parts)), max(1, message_count))


def split_by_token_share(
    messages: Sequence[Message], parts: int = DEFAULT_PARTS, estimate: Estimate | None = None
) -> list[list[Message]]:
    """Cut the messages, in order, into `parts` runs of about equal token weight.

    A new run starts when adding the next message would pass the per-part target,
    as long as the current run is not empty and runs remain; the last run takes the rest.
    """
    if not messages:
        return []
    est = estimate or default_estimate
    count = normalize_parts(parts, len(messages))
    if count <= 1:
        return [list(messages)]
    target = total_tokens(messages, est) / count
    chunks: list[list[Message]] = []
    current: list[Message] = []
    current_tokens = 0
    for message in messages:
        tokens = est(message)
        if len(chunks) < count - 1 and current and current_tokens + tokens > target:
            chunks.append(current)
            current, current_tokens = [], 0
        current.append(message)
        current_tokens += tokens
    if current:
        chunks.append(current)
    return chunks


def chunk_by_max_tokens(
    messages: Iterable[Message], max_tokens: int, estimate: Estimate | None = None
) -> list[list[Message]]:
    """Cut the messages into runs of at most `max_tokens / 1.2` tokens; a message bigger than that stands alone."""
    return list(iter_chunks_by_max_tokens(messages, max_tokens, estimate))


def iter_chunks_by_max_tokens(
    messages: Iterable[Message], max_tokens: int, estimate: Estimate | None = None
) -> Iterator[list[Message]]:
    """`chunk_by_max_tokens`, one run at a time: a walk over a long span holds one run, not every one."""
    est = estimate or default_estimate
    effective_max = max(1, math.floor(max_tokens / SAFETY_MARGIN))
    current: list[Message] = []
    current_tokens = 0
    for message in messages:
        tokens = est(message)
        if current and current_tokens + tokens > effective_max:
            yield current
            current, current_tokens = [], 0
        current.append(message)
        current_tokens += tokens
        if tokens > effective_max:
            yield current
            current, current_tokens = [], 0
    if current:
        yield current


def adaptive_chunk_ratio(messages: Sequence[Message], context_window: int, estimate: Estimate | None = None) -> float:
    """The share of the window one chunk may use: 0.4, lowered towards 0.15 when the average message is large.

    When the average message (with the 1.2 safety margin) passes 10% of the window,
    the ratio drops by twice that share, but never below 0.15.
    """
    if not messages:
        return BASE_CHUNK_RATIO
    average = total_tokens(messages, estimate) / len(messages)
    average_share = average * SAFETY_MARGIN / max(1, context_window)
    if average_share > 0.1:
        reduction = min(average_share * 2, BASE_CHUNK_RATIO - MIN_CHUNK_RATIO)
        return max(MIN_CHUNK_RATIO, BASE_CHUNK_RATIO - reduction)
    return BASE_CHUNK_RATIO


def max_chunk_tokens(messages: Sequence[Message], context_window: int, estimate: Estimate | None = None) -> int:
    """Tokens one summarization call may take in: floor(window × adaptive ratio) − 4096 overhead, at least 1."""
    ratio = adaptive_chunk_ratio(messages, context_window, estimate)
    return max(1, math.floor(context_window * ratio) - SUMMARIZATION_OVERHEAD_TOKENS)


def is_oversized(message: Message, context_window: int, estimate: Estimate | None = None) -> bool:
    """True when one message (with the 1.2 margin) is more than half the window: it cannot be summarized safely."""
    est = estimate or default_estimate
    return est(message) * SAFETY_MARGIN > context_window * OVERSIZED_WINDOW_SHARE


def oversized_note(message: Message, estimate: Estimate | None = None) -> str:
    """OpenClaw's note for a message left out of the summary, e.g. `[Large toolResult (~120K tokens) omitted from summary]`."""
    est = estimate or default_estimate
    thousands = _round_half_up(est(message) / 1000)
    return f"[Large {message.role} (~{thousands}K tokens) omitted from summary]"


def _round_half_up(value: float) -> int:
    """JavaScript's Math.round for non-negative numbers (Python rounds halves to even)."""
    return math.floor(value + 0.5)


# ---------------------------------------------------------------------------
# Tool-call / tool-result pairing
# ---------------------------------------------------------------------------


class PairRepair(BaseModel):
    """The repaired messages and what the repair did."""

    model_config = ConfigDict(defer_build=True)

    messages: list[Message]
    added: list[Message] = Field(default_factory=list)
    discarded: list[Message] = Field(default_factory=list)
    dropped_orphans: int = 0
    dropped_duplicates: int = 0
    moved: bool = False


def _answers_calls(message: Message) -> bool:
    return message.stopReason not in ("error", "aborted")


def repair_tool_pairing(messages: list[Message]) -> PairRepair:
    """Make every tool result follow its call, as strict APIs require (OpenClaw's repairToolUseResultPairing).

    Results of an assistant turn's calls are moved directly after it (up to the next
    assistant message); a call without a result gets a synthetic error result; a
    result whose call is not in that span (an orphan) or that repeats an answered id
    (a duplicate) is discarded. Errored or aborted assistant messages are left alone:
    their calls may be incomplete and must not be answered.
    """
    out: list[Message] = []
    added: list[Message] = []
    discarded: list[Message] = []
    answered: set[str] = set()
    orphans = duplicates = 0
    moved = False
    i = 0
    while i < len(messages):
        message = messages[i]
        if message.role != "assistant":
            if message.role == "toolResult":
                orphans += 1
                discarded.append(message)
            else:
                out.append(message)
            i += 1
            continue
        calls = message.tool_calls() if _answers_calls(message) else []
        if not calls:
            out.append(message)
            i += 1
            continue
        call_ids = {c.id for c in calls}
        found: dict[str, Message] = {}
        remainder: list[Message] = []
        j = i + 1
        while j < len(messages) and messages[j].role != "assistant":
            nxt = messages[j]
            if nxt.role == "toolResult":
                rid = nxt.toolCallId or ""
                if rid in call_ids and rid not in answered and rid not in found:
                    found[rid] = nxt
                elif rid in call_ids:
                    duplicates += 1
                    discarded.append(nxt)
                else:
                    orphans += 1
                    discarded.append(nxt)
            else:
                remainder.append(nxt)
            j += 1
        out.append(message)
        if found and remainder:
            moved = True
        for call in calls:
            result = found.get(call.id)
            if result is None:
                if call.id in answered:
                    continue
                result = Message(
                    role="toolResult",
                    toolCallId=call.id,
                    toolName=call.name or "unknown",
                    isError=True,
                    content=[TextBlock(text=MISSING_RESULT_TEXT)],
                )
                added.append(result)
            answered.add(call.id)
            out.append(result)
        out.extend(remainder)
        i = j
    return PairRepair(
        messages=out,
        added=added,
        discarded=discarded,
        dropped_orphans=orphans,
        dropped_duplicates=duplicates,
        moved=moved,
    )


# ---------------------------------------------------------------------------
# Safeguard pruning
# ---------------------------------------------------------------------------


class PruneResult(BaseModel):
    """What pruning kept and dropped (OpenClaw's pruneHistoryForContextShare result)."""

    model_config = ConfigDict(defer_build=True)

    kept: list[Message]
    dropped: list[Message]
    dropped_chunks: int = 0
    dropped_messages: int = 0
    dropped_tokens: int = 0
    kept_tokens: int = 0
    budget_tokens: int = 0


def prune_history_for_context_share(
    messages: list[Message],
    max_context_tokens: int,
    max_history_share: float = DEFAULT_MAX_HISTORY_SHARE,
    parts: int = DEFAULT_PARTS,
    estimate: Estimate | None = None,
) -> PruneResult:
    """Drop the oldest token-share chunk until the history fits `max_history_share` of the window.

    After each drop the kept part is repaired with `repair_tool_pairing`: a result
    whose call was dropped is dropped too (and listed with the dropped messages, in
    its original order); a call left without a result gets a synthetic one.
    """
    est = estimate or default_estimate
    budget = max(1, math.floor(max_context_tokens * max_history_share))
    kept = list(messages)
    dropped: list[Message] = []
    chunks_dropped = 0
    count = normalize_parts(parts, len(kept))
    while kept and total_tokens(kept, est) > budget:
        chunks = split_by_token_share(kept, count, est)
        if len(chunks) <= 1:
            break
        first, rest = chunks[0], [m for chunk in chunks[1:] for m in chunk]
        repair = repair_tool_pairing(rest)
        chunks_dropped += 1
        dropped.extend(first)
        dropped.extend(repair.discarded)
        kept = repair.messages
    order = {id(m): n for n, m in enumerate(messages)}
    dropped.sort(key=lambda m: order.get(id(m), len(messages)))
    return PruneResult(
        kept=kept,
        dropped=dropped,
        dropped_chunks=chunks_dropped,
        dropped_messages=len(dropped),
        dropped_tokens=total_tokens(dropped, est),
        kept_tokens=total_tokens(kept, est),
        budget_tokens=budget,
    )
