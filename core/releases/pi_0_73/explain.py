"""The sentences that explain pi's decisions, built from a `PiDecision` after it was made."""

from __future__ import annotations

from cutline.core.engine.compaction_plan import ExplanationStep
from cutline.core.engine.context import ContextEstimate
from cutline.core.engine.path_index import PathIndex, role_label
from cutline.core.engine.plan_figures import Budget, n, range_text
from cutline.core.releases.pi_0_73.decide import Boundary, PiDecision


def empty_step() -> ExplanationStep:
    """An empty path."""
    return ExplanationStep(step="empty", text="the path is empty: nothing to compact")


def trigger_step(estimate: ContextEstimate, figures: Budget) -> ExplanationStep:
    """How big the context is, how it was estimated, and whether pi's trigger fires."""
    window, reserve = figures.window, figures.reserve
    threshold = window - reserve
    if estimate.lastUsageIndex is not None:
        how = (
            f"last assistant usage {n(estimate.usageTokens)} + {estimate.counter} estimate "
            f"{n(estimate.trailingTokens)} of the messages after it"
        )
    else:
        how = f"{estimate.counter} estimates of every context message (no usage record)"
    verdict = "would trigger" if estimate.tokens > threshold else "would not trigger yet"
    return ExplanationStep(
        step="trigger",
        text=(
            f"context window {n(window)} ({figures.source}) − reserve {n(reserve)} = threshold {n(threshold)}; "
            f"context is {n(estimate.tokens)} tokens ({how}); compaction {verdict} "
            f"({n(estimate.tokens)} {'>' if estimate.tokens > threshold else '<='} {n(threshold)})"
        ),
        data={"contextWindow": window, "reserveTokens": reserve, "threshold": threshold, "tokens": estimate.tokens},
    )


def already_compacted_step(length: int) -> ExplanationStep:
    """The path ends with a compaction."""
    return ExplanationStep(
        step="already-compacted",
        pathIndex=length - 1,
        text=f"the last entry (path index {length - 1}) is a compaction: pi has nothing to prepare",
    )


def describe(index: PathIndex, decision: PiDecision) -> list[ExplanationStep]:
    """The steps after the trigger, in the order pi takes them."""
    moved = _move_back_step(index, decision)
    return [
        _boundary_step(decision.boundary),
        *_walk_steps(index, decision),
        *([moved] if moved is not None else []),
        _split_turn_step(index, decision),
        _result_step(decision, index.n),
    ]


def _boundary_step(boundary: Boundary) -> ExplanationStep:
    if boundary.previous < 0:
        return ExplanationStep(
            step="boundary",
            pathIndex=0,
            text="no previous compaction: the window starts at path index 0",
            data={"boundaryStart": 0},
        )
    kept = f" kept from path index {boundary.kept_at}" if boundary.kept_at >= 0 else " kept nothing before it"
    return ExplanationStep(
        step="boundary",
        pathIndex=boundary.start,
        text=(
            f"previous compaction at path index {boundary.previous}{kept}: the window starts at path index "
            f"{boundary.start} and its summary is the previous summary"
        ),
        data={"previousCompactionIndex": boundary.previous, "boundaryStart": boundary.start},
    )


def _walk_steps(index: PathIndex, decision: PiDecision) -> list[ExplanationStep]:
    """Where the walk back reached keepRecentTokens, and where the cut went from there."""
    cut = decision.cut
    if cut.crossingIndex is None:
        return [_no_crossing_step(index, decision)]
    crossing = cut.crossingIndex
    steps = [_crossing_step(index, decision, crossing)]
    candidate = cut.candidateIndex
    label = role_label(index.path[candidate or 0])
    if cut.fellBack:
        text = (
            f"no valid cut point at or after {crossing}: pi falls back to the first valid cut point "
            f"{candidate} ({label})"
        )
        steps.append(ExplanationStep(step="cut", pathIndex=candidate, text=text))
    elif candidate != crossing:
        text = f"moved to the next valid cut point {candidate} ({label})"
        steps.append(ExplanationStep(step="cut", pathIndex=candidate, text=text))
    return steps


def _no_crossing_step(index: PathIndex, decision: PiDecision) -> ExplanationStep:
    start, candidate = decision.boundary.start, decision.cut.candidateIndex
    if candidate is None:
        return ExplanationStep(
            step="walk", text=f"no valid cut point after path index {start}: the cut stays at {start}"
        )
    window_tokens = index.tokens_in(start, index.n)
    return ExplanationStep(
        step="walk",
        pathIndex=candidate,
        text=(
            f"walked back from path index {index.n - 1} summing {index.counter} estimates of message entries; "
            f"never reached {n(decision.keep)} (the window holds {n(window_tokens)}): pi keeps everything from "
            f"the first valid cut point {candidate} ({role_label(index.path[candidate])})"
        ),
        data={"windowTokens": window_tokens},
    )


def _crossing_step(index: PathIndex, decision: PiDecision, crossing: int) -> ExplanationStep:
    reached = index.tokens_in(crossing, index.n)
    valid = "a valid cut point" if index.is_cut_point(crossing) else "not a valid cut point"
    return ExplanationStep(
        step="walk",
        pathIndex=crossing,
        text=(
            f"walked back from path index {index.n - 1} summing {index.counter} estimates of message entries; "
            f"reached {n(decision.keep)} at path index {crossing} ({n(reached)} tokens; "
            f"{_describe_entry(index, crossing)}, {valid})"
        ),
        data={"crossingPathIndex": crossing, "accumulated": reached},
    )


def _move_back_step(index: PathIndex, decision: PiDecision) -> ExplanationStep | None:
    cut = decision.cut
    if not cut.movedOver:
        return None
    return ExplanationStep(
        step="move-back",
        pathIndex=cut.firstKeptIndex,
        text=f"moved back over {_moved_over_text(index, cut.movedOver)}: the cut is at path index {cut.firstKeptIndex}",
        data={"movedOver": cut.movedOver},
    )


def _split_turn_step(index: PathIndex, decision: PiDecision) -> ExplanationStep:
    cut, first = decision.cut, decision.cut.firstKeptIndex
    if cut.isSplitTurn:
        return ExplanationStep(
            step="split-turn",
            pathIndex=cut.turnStartIndex,
            text=(
                f"cut is mid-turn: the turn starts at {cut.turnStartIndex} ({role_label(index.path[cut.turnStartIndex])}), "
                f"so {cut.turnStartIndex}..{first - 1} is the turn prefix (summarized on its own)"
            ),
        )
    entry = index.path[first]
    if entry.type == "message" and entry.message is not None and entry.message.role == "user":
        return ExplanationStep(step="split-turn", text=f"the cut is at a user message ({first}): no turn is split")
    return ExplanationStep(
        step="split-turn",
        text=f"no user message starts a turn between {decision.boundary.start} and {first}: no turn is split",
    )


def _result_step(decision: PiDecision, length: int) -> ExplanationStep:
    cut, first, start = decision.cut, decision.cut.firstKeptIndex, decision.boundary.start
    summarized, prefix, kept = decision.summarized, decision.prefix, decision.kept
    text = f"summarize {range_text(start, decision.history_end)} ({summarized.messages} messages, {n(summarized.tokens)} tokens)"
    if cut.isSplitTurn:
        text += f"; turn prefix {range_text(cut.turnStartIndex, first)} ({prefix.messages} messages, {n(prefix.tokens)} tokens)"
    text += f"; keep {range_text(first, length)} ({kept.messages} messages, {n(kept.tokens)} tokens)"
    return ExplanationStep(step="result", pathIndex=first, text=text)


def _describe_entry(index: PathIndex, i: int) -> str:
    entry = index.path[i]
    label = role_label(entry)
    kind = "message" if entry.type == "message" else "entry"
    return f"{_article(label)} {label} {kind}"


def _article(word: str) -> str:
    """ "an" before a vowel sound ("an assistant message", "an unknown entry"), else "a" ("a user message")."""
    lower = word.lower()
    return "an" if lower[:1] in ("a", "e", "i", "o") or lower.startswith("un") else "a"


def _moved_over_kind(index: PathIndex, i: int) -> str:
    entry = index.path[i]
    if entry.isCompactSummary:
        return "compact-summary record"
    if entry.isSidechain:
        return "sidechain record"
    if entry.type == "message":
        return "empty message entry"
    return f"{entry.type} entry"


def _moved_over_text(index: PathIndex, moved: list[int]) -> str:
    counts: dict[str, int] = {}
    for i in moved:
        kind = _moved_over_kind(index, i)
        counts[kind] = counts.get(kind, 0) + 1
    parts = [f"{count} {kind}" + ("" if count == 1 else "s") for kind, count in counts.items()]
    return ", ".join(p.replace("entrys", "entries") for p in parts)
