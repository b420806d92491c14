"""Translate a CompactionPlan into what the desk draws: zones and a cut line on the list, numbers on the gauge."""

from __future__ import annotations

from cutline.app.widgets.gauge import Budget
from cutline.app.widgets.message_list import ZONES, PlanMarks
from cutline.core.engine.context import has_valid_usage
from cutline.core.engine.path_index import PathIndex
from cutline.core.engine.plan import CompactionPlan

_CODE = {name: code for code, name in enumerate(ZONES)}


def plan_marks(plan: CompactionPlan, outside: int) -> PlanMarks:
    """Zones per path index and the cut line of a plan."""
    n = plan.pathLength
    zones = bytearray(n)
    compacting = not (plan.nothingToCompact or plan.alreadyCompacted) and plan.firstKeptPathIndex is not None
    zones[: min(outside, n)] = bytes([_CODE["outside"]]) * min(outside, n)
    if compacting:
        for name, spans in (
            ("summarized", plan.summarizeSpans),
            ("prefix", plan.turnPrefixSpans),
            ("kept", plan.keptSpans),
        ):
            code = _CODE[name]
            for span in spans:
                start, stop = max(0, span.start), min(n, span.stop)
                if stop > start:
                    zones[start:stop] = bytes([code]) * (stop - start)
    if not compacting:
        reason = "already compacted: the last entry is a compaction" if plan.alreadyCompacted else "nothing to compact"
        return PlanMarks(bytes(zones), None, reason)
    label = f"cut · keep from {plan.firstKeptEntryId} · {plan.messagesToSummarize:,} summarized"
    if plan.isSplitTurn:
        label += f" · split turn: {plan.turnPrefixMessages:,} in prefix"
    label += f" · {plan.keptMessages:,} kept"
    return PlanMarks(bytes(zones), plan.firstKeptPathIndex, label)


def context_since_compaction(index: PathIndex) -> int | None:
    """The context as summary + kept + later entries when no reply has come since the latest compaction, else None.

    Until the agent answers again, the newest usage record is one from before the
    compaction (pi's estimate still adds it up), so it says nothing about the context now.
    """
    if not index.compactions:
        return None
    compaction = index.compactions[-1]
    for i in reversed(index.messages):
        if i <= compaction:
            break
        message = index.path[i].message
        if message is not None and has_valid_usage(message):
            return None  # a reply since the compaction measured the real context
    record = index.path[compaction].compaction
    kept_from = index.index_of(record.firstKeptEntryId if record is not None else None, before=compaction)
    prefix = index.context_prefix
    kept = prefix[compaction] - prefix[kept_from] if kept_from >= 0 else 0
    return index.tokens[compaction] + kept + prefix[index.n] - prefix[compaction + 1]


def plan_budget(
    plan: CompactionPlan, tokens_after: int | None = None, current: int | None = None, after_source: str = "proposal"
) -> Budget:
    """Gauge numbers; after = the proposal's exact figure when given, else the kept part as a lower bound.

    `current` replaces the plan's context figure when that figure predates the latest compaction;
    `after_source` names where the given `tokens_after` comes from (the proposal, or its edited summary).
    """
    compacting = not (plan.nothingToCompact or plan.alreadyCompacted)
    threshold = plan.threshold or max(0, plan.contextWindow - plan.reserveTokens)
    if current is not None:
        return Budget(
            counter=plan.counter,
            window=plan.contextWindow,
            reserve=plan.reserveTokens,
            keep_recent=plan.keepRecentTokens,
            tokens_before=current,
            kept=current,
            tokens_after=None,
            should_compact=current > threshold,
            threshold=threshold,
            context_note="summary + kept",
            after_note="the last entry is a compaction: nothing to compact yet",
        )
    return Budget(
        counter=plan.counter,
        window=plan.contextWindow,
        reserve=plan.reserveTokens,
        keep_recent=plan.keepRecentTokens,
        tokens_before=plan.tokensBefore,
        kept=plan.keptTokens if compacting else plan.tokensBefore,
        tokens_after=tokens_after if tokens_after is not None else (plan.keptTokens if compacting else None),
        should_compact=plan.shouldCompact,
        threshold=plan.threshold or max(0, plan.contextWindow - plan.reserveTokens),
        after_is_estimate=tokens_after is None,
        after_source=after_source,
        summarized=plan.summarizedTokens if compacting else 0,
        prefix=plan.turnPrefixTokens if compacting and plan.isSplitTurn else 0,
        rules=plan.rules or "",
    )
