"""pi 0.73's planner (the last `@mariozechner/pi-coding-agent`, 0.73.1), kept exact: decide, describe, assemble."""

from __future__ import annotations

from typing import TypedDict

from cutline.core.engine.compaction_plan import CompactionPlan, ExplanationStep, Span
from cutline.core.engine.path_index import PathIndex
from cutline.core.engine.plan_figures import Budget, budget
from cutline.core.engine.rules.base import PlanRequest
from cutline.core.releases.pi_0_73 import explain as pi_explain
from cutline.core.releases.pi_0_73.decide import PiDecision, decide

NAME = "pi-0.73"


def _spans_of(decision: PiDecision, n: int) -> tuple[list[Span], list[Span], list[Span]]:
    """The summarized, turn-prefix and kept spans of a decision."""
    start, cut, first = decision.boundary.start, decision.cut, decision.cut.firstKeptIndex
    summarize = [Span(start=start, stop=decision.history_end)] if decision.history_end > start else []
    # pi can report a split turn with an empty prefix (the cut entry itself starts the turn)
    prefix = [Span(start=cut.turnStartIndex, stop=first)] if cut.isSplitTurn and first > cut.turnStartIndex else []
    return summarize, prefix, [Span(start=first, stop=n)]


class Pi073Rules:
    """pi 0.73.1's planner (the last `@mariozechner/pi-coding-agent`), kept exact."""

    @property
    def name(self) -> str:
        return NAME

    def plan(self, request: PlanRequest) -> CompactionPlan:
        """Decide, describe, assemble: the empty and already-compacted paths answer early."""
        index = request.index
        figures = budget(request.settings, index, request.reserve)
        base = _base_fields(request, figures)
        if index.n == 0:
            return CompactionPlan(**base, nothingToCompact=True, explanation=[pi_explain.empty_step()])
        estimate = index.context_estimate()
        trigger = pi_explain.trigger_step(estimate, figures)
        if index.path[-1].type == "compaction":
            return CompactionPlan(
                **base,
                alreadyCompacted=True,
                tokensBefore=estimate.tokens,
                contextEstimate=estimate,
                previousCompactionIndex=index.n - 1,
                shouldCompact=False,
                explanation=[trigger, pi_explain.already_compacted_step(index.n)],
            )
        decision = decide(index, request, figures, estimate)
        return _assemble(index, base, decision, [trigger, *pi_explain.describe(index, decision)])


class _BaseFields(TypedDict):
    mode: str
    counter: str
    pathLength: int
    contextWindow: int
    contextWindowSource: str
    reserveTokens: int
    threshold: int
    keepRecentTokens: int
    entryTokens: list[int]


def _base_fields(request: PlanRequest, figures: Budget) -> _BaseFields:
    """The fields every plan carries, whatever was decided."""
    index = request.index
    return {
        "mode": request.mode,
        "counter": index.counter,
        "pathLength": index.n,
        "contextWindow": figures.window,
        "contextWindowSource": figures.source,
        "reserveTokens": figures.reserve,
        "threshold": figures.window - figures.reserve,
        "keepRecentTokens": request.settings.keepRecentTokens,
        "entryTokens": index.tokens if request.entry_tokens else [],
    }


def _assemble(
    index: PathIndex, base: _BaseFields, decision: PiDecision, steps: list[ExplanationStep]
) -> CompactionPlan:
    """The plan of a decision; every field is built from typed values, so a 100k-entry token list is not re-validated."""
    cut, boundary = decision.cut, decision.boundary
    summarize, prefix, kept = _spans_of(decision, index.n)
    return CompactionPlan.model_construct(
        **base,
        firstKeptEntryId=index.path[cut.firstKeptIndex].id,
        firstKeptPathIndex=cut.firstKeptIndex,
        isSplitTurn=cut.isSplitTurn,
        turnStartPathIndex=cut.turnStartIndex if cut.isSplitTurn else None,
        tokensBefore=decision.estimate.tokens,
        contextEstimate=decision.estimate,
        boundaryStart=boundary.start,
        previousCompactionIndex=boundary.previous if boundary.previous >= 0 else None,
        previousSummary=boundary.previous_summary,
        summarizeSpans=summarize,
        turnPrefixSpans=prefix,
        keptSpans=kept,
        messagesToSummarize=decision.summarized.messages,
        turnPrefixMessages=decision.prefix.messages,
        keptMessages=decision.kept.messages,
        summarizedTokens=decision.summarized.tokens,
        turnPrefixTokens=decision.prefix.tokens,
        keptTokens=decision.kept.tokens,
        shouldCompact=decision.should,
        crossingPathIndex=cut.crossingIndex,
        cutCandidatePathIndex=cut.candidateIndex,
        explanation=steps,
        **decision.files,
    )


PI_0_73 = Pi073Rules()
