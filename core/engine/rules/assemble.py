"""A rule set's decisions turned into a CompactionPlan with its explanation, shared by current pi and OpenClaw 2026.9."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cutline.core.engine.compaction_plan import CompactionPlan, ExplanationStep, Span
from cutline.core.engine.context import ContextEstimate
from cutline.core.engine.plan_figures import budget
from cutline.core.engine.rules.base import PlanRequest
from cutline.core.engine.rules.walk import Cut, Walk
from cutline.core.engine.triggers import should_compact

FILE_KINDS = ("read", "written", "edited")


def n(value: int | float) -> str:
    """A figure with thousands separators (floats to one decimal)."""
    return f"{value:,}" if isinstance(value, int) else f"{value:,.1f}"


@dataclass
class Decision:
    """Everything a rule set decided for one plan, in item indices of its walk."""

    rules: str
    walk: Walk
    start: int
    end: int
    estimate: ContextEstimate
    cut: Cut | None = None
    previous: int = -1  # path index of the previous compaction
    previous_summary: str | None = None
    no_plan: str | None = None  # "already-compacted", "nothing", or None
    refusal: str | None = None
    prelude_messages: int = 0
    prelude_tokens: int = 0
    keep: float = 0
    latest_request: str | None = None
    seed_ops: list[tuple[int, str]] = field(
        default_factory=list
    )  # (0 read / 1 written / 2 edited, path) before the walk
    steps: list[ExplanationStep] = field(default_factory=list)
    entry_tokens: list[int] = field(default_factory=list)


def file_lists(decision: Decision, history_end: int, cut: Cut) -> dict[str, list[str]]:
    """The raw read/written/edited sets over the summarized and turn-prefix items, and pi's two summary lists."""
    extra: list[list[str]] = [[], [], []]  # named outside the summarized items: the seeds, the turn's prefix
    for kind, target in decision.seed_ops:
        extra[kind].append(target)
    walk = decision.walk
    if cut.split:  # the turn's prefix: a few items
        for i in range(cut.turn_start, cut.first):
            for kind, target in walk.items[i].fileops:
                extra[kind].append(target)
    extra.append(extra[1] + extra[2])
    read, written, edited, modified = walk.sorted_file_ops(decision.start, history_end, extra)
    changed = set(modified)
    return {
        "readFiles": read,
        "writtenFiles": written,
        "editedFiles": edited,
        "modifiedFiles": modified,
        "readOnlyFiles": [f for f in read if f not in changed],
    }


def _spans(walk: Walk, start: int, stop: int) -> list[Span]:
    """Items [start, stop)'s runs of consecutive path indices as spans (one model per run, found without a scan)."""
    return [Span(start=first, stop=end) for first, end in walk.spans(start, stop)]


def _range_text(positions: list[int], start: int, stop: int) -> str:
    """Items [start, stop)'s path indices in words (the first and last only: no slice of a 100,000-item list)."""
    if stop <= start:
        return "nothing"
    if stop - start == 1:
        return f"path index {positions[start]}"
    return f"path indices {positions[start]}..{positions[stop - 1]}"


def _trigger_step(estimate: ContextEstimate, window: int, reserve: int, source: str) -> ExplanationStep:
    threshold = window - reserve
    if estimate.lastUsageIndex is not None:
        how = (
            f"last assistant usage {n(estimate.usageTokens)} + {estimate.counter} estimate "
            f"{n(estimate.trailingTokens)} of the messages after it"
        )
    else:
        how = f"{estimate.counter} estimates of every context message (no usable usage record)"
    over = estimate.tokens > threshold
    return ExplanationStep(
        step="trigger",
        text=(
            f"context window {n(window)} ({source}) − reserve {n(reserve)} = threshold {n(threshold)}; "
            f"context is {n(estimate.tokens)} tokens ({how}); compaction "
            f"{'would trigger' if over else 'would not trigger yet'} "
            f"({n(estimate.tokens)} {'>' if over else '<='} {n(threshold)})"
        ),
        data={"contextWindow": window, "reserveTokens": reserve, "threshold": threshold, "tokens": estimate.tokens},
    )


def assemble(decision: Decision, request: PlanRequest) -> CompactionPlan:
    """The CompactionPlan (path indices, figures, file lists, explanation) for a rule set's decision."""
    index, settings = request.index, request.settings
    figures = budget(settings, index, request.reserve)
    window, source, reserve = figures.window, figures.source, figures.reserve
    estimate = decision.estimate
    walk = decision.walk
    items = walk.items
    rules_step = ExplanationStep(
        step="rules",
        text=f"planned by the rules of {decision.rules}",
        data={"rules": decision.rules},
    )
    steps = [rules_step, _trigger_step(estimate, window, reserve, source), *decision.steps]
    base: dict[str, Any] = {
        "mode": request.mode,
        "counter": index.counter,
        "rules": decision.rules,
        "pathLength": index.n,
        "contextWindow": window,
        "contextWindowSource": source,
        "reserveTokens": reserve,
        "threshold": window - reserve,
        "keepRecentTokens": settings.keepRecentTokens,
        "entryTokens": list(decision.entry_tokens) if request.entry_tokens else [],
        "tokensBefore": estimate.tokens,
        "contextEstimate": estimate,
        "previousCompactionIndex": decision.previous if decision.previous >= 0 else None,
        "previousSummary": decision.previous_summary,
        "latestUnresolvedUserRequest": decision.latest_request,
    }
    should = should_compact(estimate.tokens, window, reserve, settings.enabled)
    if decision.no_plan is not None or decision.refusal is not None or decision.cut is None:
        return CompactionPlan.model_construct(
            **base,
            alreadyCompacted=decision.no_plan == "already-compacted",
            nothingToCompact=decision.no_plan != "already-compacted",
            refusal=decision.refusal,
            shouldCompact=False,
            explanation=steps,
        )
    cut = decision.cut
    first = cut.first
    history_end = cut.turn_start if cut.split else first
    start = decision.start
    summarized = decision.prelude_messages + walk.messages_in(start, history_end)
    summarized_tokens = decision.prelude_tokens + walk.tokens_in(start, history_end)
    prefix_count = walk.messages_in(cut.turn_start, first) if cut.split else 0
    prefix_tokens = walk.tokens_in(cut.turn_start, first) if cut.split else 0
    kept = walk.messages_in(first, decision.end)
    kept_tokens = walk.weight_in(first, decision.end)
    positions = walk.positions
    first_pos = positions[first]
    prefix_start = cut.turn_start if cut.split else first
    steps.append(
        ExplanationStep(
            step="result",
            pathIndex=first_pos,
            text=(
                f"summarize {_range_text(positions, start, history_end)} ({summarized} messages, "
                f"{n(summarized_tokens)} tokens)"
                + (
                    f"; turn prefix {_range_text(positions, prefix_start, first)} ({prefix_count} messages, "
                    f"{n(prefix_tokens)} tokens)"
                    if cut.split
                    else ""
                )
                + f"; keep {_range_text(positions, first, decision.end)} ({kept} messages, {n(kept_tokens)} tokens)"
            ),
        )
    )
    files: dict[str, Any] = file_lists(decision, history_end, cut)
    return CompactionPlan.model_construct(
        **base,
        firstKeptEntryId=items[first].entry_id,
        firstKeptPathIndex=first_pos,
        isSplitTurn=cut.split,
        turnStartPathIndex=positions[cut.turn_start] if cut.split else None,
        boundaryStart=positions[start] if start < len(positions) else index.n,
        summarizeSpans=_spans(walk, start, history_end),
        turnPrefixSpans=_spans(walk, prefix_start, first),
        keptSpans=_spans(walk, first, decision.end),
        messagesToSummarize=summarized,
        turnPrefixMessages=prefix_count,
        keptMessages=kept,
        summarizedTokens=summarized_tokens,
        turnPrefixTokens=prefix_tokens,
        keptTokens=kept_tokens,
        shouldCompact=should,
        crossingPathIndex=positions[cut.crossing] if cut.crossing is not None else None,
        cutCandidatePathIndex=positions[cut.candidate] if cut.candidate is not None else None,
        explanation=steps,
        **files,
    )
