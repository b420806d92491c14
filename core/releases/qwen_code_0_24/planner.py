"""Qwen Code 0.24's compression rule (`@qwen-code/qwen-code` 0.24.4, its chat compression service), as a rule set.

What the program does (read from its source):
- when: before a request, when the tokens it would send reach the auto threshold
  `min(pct × window, window − 20,000 − 13,000)` (pct 0.85 unless `context.autoCompactThreshold`
  sets another; the proportional figure alone when the ceiling is not positive); a history of
  fewer than two turns is never compressed;
- what: the whole history is summarized (the previous compression's history with it); nothing
  stays verbatim, except that a manual compression whose history ends in a model turn calling
  tools keeps that turn (its calls, after the acknowledgement) so their results still answer them.
  cutline's compactions are manual ones.

keepRecentTokens plays no part: Qwen Code has no such setting. The plan summarizes everything
after the last compaction (its summary is the previous one) and keeps nothing, or the trailing
calling turn.
"""

from __future__ import annotations

from typing import Any

from cutline.core.engine.compaction_plan import CompactionPlan, ExplanationStep, Span
from cutline.core.engine.plan_figures import budget
from cutline.core.engine.rules.assemble import n
from cutline.core.engine.rules.base import PlanRequest
from cutline.core.models import Entry

NAME = "qwen-code-0.24"
VERSION = "0.24.4"
DEFAULT_PCT = 0.85
SUMMARY_RESERVE = 20_000  # COMPACT_MAX_OUTPUT_TOKENS: what the summary may take
AUTOCOMPACT_BUFFER = 13_000


def auto_threshold(window: int, pct: float = DEFAULT_PCT) -> float:
    """The token count at which Qwen Code compresses on its own (its computeThresholds' `auto`)."""
    pct = min(1.0, max(0.0, pct))
    proportional = pct * window
    ceiling = max(0, window - SUMMARY_RESERVE) - AUTOCOMPACT_BUFFER
    return min(proportional, ceiling) if ceiling > 0 else proportional


def _calls_pending(entry: Entry) -> bool:
    message = entry.message
    return message is not None and message.role == "assistant" and bool(message.tool_calls())


class QwenCode024Rules:
    """Qwen Code 0.24.4's compression: everything summarized, nothing kept but a trailing calling turn."""

    @property
    def name(self) -> str:
        return NAME

    def plan(self, request: PlanRequest) -> CompactionPlan:
        index = request.index
        figures = budget(request.settings, index, request.reserve)
        threshold = auto_threshold(figures.window)
        base: dict[str, Any] = {
            "mode": request.mode,
            "counter": index.counter,
            "rules": NAME,
            "pathLength": index.n,
            "contextWindow": figures.window,
            "contextWindowSource": figures.source,
            "reserveTokens": figures.reserve,
            "threshold": int(threshold),
            "keepRecentTokens": request.settings.keepRecentTokens,
            "entryTokens": index.tokens if request.entry_tokens else [],
        }
        rules = ExplanationStep(step="rules", text=f"planned by the rules of {NAME}", data={"rules": NAME})
        if index.n == 0:
            return CompactionPlan(
                **base, nothingToCompact=True, explanation=[rules, ExplanationStep(step="empty", text="empty session")]
            )
        estimate = index.context_estimate()
        should = estimate.tokens >= threshold
        trigger = ExplanationStep(
            step="trigger",
            text=(
                f"auto threshold min(0.85 × {n(figures.window)}, {n(figures.window)} − {n(SUMMARY_RESERVE)} − "
                f"{n(AUTOCOMPACT_BUFFER)}) = {n(int(threshold))}; context is {n(estimate.tokens)} tokens; Qwen Code "
                + ("would compress now" if should else "would not compress yet")
            ),
            data={"contextWindow": figures.window, "threshold": int(threshold), "tokens": estimate.tokens},
        )
        previous = index.compactions[-1] if index.compactions else -1
        if previous == index.n - 1:
            return CompactionPlan(
                **base,
                alreadyCompacted=True,
                tokensBefore=estimate.tokens,
                contextEstimate=estimate,
                previousCompactionIndex=previous,
                explanation=[rules, trigger, ExplanationStep(step="already", text="the last entry is a compaction")],
            )
        start = previous + 1
        messages = [i for i in index.messages if i >= start]
        turns = len(messages) + (1 if previous >= 0 else 0)
        if turns < 2:
            return CompactionPlan(
                **base,
                nothingToCompact=True,
                tokensBefore=estimate.tokens,
                contextEstimate=estimate,
                explanation=[
                    rules,
                    trigger,
                    ExplanationStep(step="nothing", text="fewer than two turns: nothing to compress"),
                ],
            )
        kept_from = messages[-1] if _calls_pending(index.path[messages[-1]]) else index.n
        summarized = [i for i in messages if i < kept_from]
        kept = [i for i in messages if i >= kept_from]
        record = index.path[previous].compaction if previous >= 0 else None
        result = ExplanationStep(
            step="result",
            pathIndex=kept_from if kept else None,
            text=(
                f"summarize the whole history ({len(summarized)} messages, {n(index.tokens_in(start, kept_from))} tokens"
                + (", with the previous compression's summary" if previous >= 0 else "")
                + "); "
                + (
                    "keep the last model turn: its tool calls are still to be answered"
                    if kept
                    else "keep nothing verbatim (Qwen Code continues from the summary alone)"
                )
            ),
        )
        return CompactionPlan(
            **base,
            firstKeptEntryId=index.path[kept_from].id if kept else None,
            firstKeptPathIndex=kept_from if kept else None,
            tokensBefore=estimate.tokens,
            contextEstimate=estimate,
            boundaryStart=start,
            previousCompactionIndex=previous if previous >= 0 else None,
            previousSummary=record.summary if record is not None else None,
            summarizeSpans=[Span(start=start, stop=kept_from)],
            keptSpans=[Span(start=kept_from, stop=index.n)] if kept else [],
            messagesToSummarize=len(summarized),
            keptMessages=len(kept),
            summarizedTokens=index.tokens_in(start, kept_from),
            keptTokens=index.tokens_in(kept_from, index.n),
            shouldCompact=should and request.settings.enabled,
            explanation=[rules, trigger, result],
        )


QWEN_CODE_0_24 = QwenCode024Rules()
