"""pi 0.73's decisions, exactly: prepareCompaction and findCutPoint of `@mariozechner/pi-coding-agent` 0.73.1, as data.

`pi_073_explain` turns a `PiDecision` into explanation steps; `pi_073` assembles both
into a CompactionPlan.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from pydantic import BaseModel

from cutline.core.engine.context import ContextEstimate
from cutline.core.engine.path_index import PathIndex
from cutline.core.engine.plan_figures import Budget, FileLists, file_lists
from cutline.core.engine.rules.base import PlanRequest
from cutline.core.engine.triggers import should_compact


class CutPoint(BaseModel):
    """findCutPoint's answer plus where the walk crossed and where the cut was before moving back."""

    firstKeptIndex: int
    turnStartIndex: int
    isSplitTurn: bool
    crossingIndex: int | None
    candidateIndex: int | None
    fellBack: bool
    movedOver: list[int]


def find_cut_point(index: PathIndex, start: int, end: int, keep_recent_tokens: int) -> CutPoint:
    """pi's findCutPoint over path[start:end] with prefix sums and binary search instead of a walk."""
    if end != index.n:
        raise ValueError("find_cut_point plans the whole path: end must be the path length")
    cuts = index.cut_points
    lo = bisect_left(cuts, start)
    if lo >= len(cuts):
        return CutPoint(
            firstKeptIndex=start,
            turnStartIndex=-1,
            isSplitTurn=False,
            crossingIndex=None,
            candidateIndex=None,
            fellBack=True,
            movedOver=[],
        )
    cut = cuts[lo]
    crossing: int | None = None
    fell_back = True
    prefix = index.prefix
    total = prefix[end]
    # the walk's running sum at message i is total - prefix[i]; find the last i where it reaches keep
    j = bisect_right(prefix, total - keep_recent_tokens, 0, end) - 1  # largest j < end with prefix[j] <= total-keep
    if j >= start:
        messages = index.messages
        k = bisect_right(messages, j) - 1  # the message at or before j
        if k >= 0 and messages[k] >= start:
            crossing = messages[k]
            c = bisect_left(cuts, crossing)
            if c < len(cuts):
                cut = cuts[c]
                fell_back = False
    candidate = cut
    # move back over non-message entries, stopping at a message or a compaction
    barriers = index.barriers
    b = bisect_left(barriers, cut) - 1
    previous_barrier = barriers[b] if b >= 0 else -1
    if cut > start:
        cut = max(start, previous_barrier + 1)
    moved_over = list(range(cut, candidate))
    entry = index.path[cut]
    is_user = entry.type == "message" and entry.message is not None and entry.message.role == "user"
    turn_start = -1
    if not is_user:
        t = bisect_right(index.turn_starts, cut) - 1
        if t >= 0 and index.turn_starts[t] >= start:
            turn_start = index.turn_starts[t]
    return CutPoint(
        firstKeptIndex=cut,
        turnStartIndex=turn_start,
        isSplitTurn=not is_user and turn_start != -1,
        crossingIndex=crossing,
        candidateIndex=candidate,
        fellBack=fell_back,
        movedOver=moved_over,
    )


@dataclass(frozen=True)
class Boundary:
    """Where pi's window starts: after the previous compaction, at the entry it kept first."""

    previous: int  # path index of the previous compaction, -1 when there is none
    kept_at: int  # path index of its first kept entry, -1 when that entry is not on the path
    start: int
    previous_summary: str | None


@dataclass(frozen=True)
class Portion:
    """A part of the path by messages and tokens (entries that give a message to summarize)."""

    messages: int
    tokens: int


@dataclass(frozen=True)
class PiDecision:
    """Everything pi decides for a path that is not empty and not already compacted."""

    budget: Budget
    keep: int
    estimate: ContextEstimate
    should: bool
    boundary: Boundary
    cut: CutPoint
    history_end: int
    summarized: Portion
    prefix: Portion
    kept: Portion
    files: FileLists


def find_boundary(index: PathIndex) -> Boundary:
    """The latest compaction and its first kept entry: pi plans only the path from there on."""
    previous = index.compactions[-1] if index.compactions else -1
    if previous < 0:
        return Boundary(previous=-1, kept_at=-1, start=0, previous_summary=None)
    record = index.path[previous].compaction
    kept_at = index.index_of(record.firstKeptEntryId if record is not None else None, before=previous)
    return Boundary(
        previous=previous,
        kept_at=kept_at,
        start=kept_at if kept_at >= 0 else previous + 1,
        previous_summary=record.summary if record is not None else "",
    )


def _portion(index: PathIndex, start: int, stop: int) -> Portion:
    return Portion(messages=index.count_in(index.producers, start, stop), tokens=index.producer_tokens_in(start, stop))


def decide(index: PathIndex, request: PlanRequest, figures: Budget, estimate: ContextEstimate) -> PiDecision:
    """pi's prepareCompaction for a path that is not empty and does not end with a compaction."""
    settings = request.settings
    n = index.n
    boundary = find_boundary(index)
    cut = find_cut_point(index, boundary.start, n, settings.keepRecentTokens)
    first = cut.firstKeptIndex
    history_end = cut.turnStartIndex if cut.isSplitTurn else first
    return PiDecision(
        budget=figures,
        keep=settings.keepRecentTokens,
        estimate=estimate,
        should=should_compact(estimate.tokens, figures.window, figures.reserve, settings.enabled),
        boundary=boundary,
        cut=cut,
        history_end=history_end,
        summarized=_portion(index, boundary.start, history_end),
        prefix=_portion(index, cut.turnStartIndex, first) if cut.isSplitTurn else Portion(messages=0, tokens=0),
        kept=_portion(index, first, n),
        files=file_lists(index, boundary.start, first, boundary.previous),
    )
