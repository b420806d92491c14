"""opencode 1.18's compaction (`opencode-ai` 1.18.33, its SessionCompaction service), as a rule set.

What the program does (read from the 1.18.33 program itself):
- when: after a model response whose tokens (`total`, else input + output + cache) reach the
  usable context: the window less the model's output allowance (`min(limit.output, 32,000)`;
  with a separate input limit, that limit less `compaction.reserved`, default
  `min(20,000, output allowance)`); a window of 0 never compacts;
- what it keeps (`select`): a tail of recent turns (a turn is a user message and what answers
  it; the compaction's own messages are not turns) within `compaction.preserve_recent_tokens`,
  default `min(15,000, max(2,000, ⌊usable × 0.25⌋))`: walking back from the last turn, whole
  turns while they fit; the first that does not fit is entered at its first later message
  whose rest fits; a tail that would start at the first message keeps nothing. Sizes are its
  `Token.estimate` of the turn's model messages as JSON: ⌈length / 4⌋ (rounded);
- the rest is summarized (the previous summary goes with it as the prior summary).

cutline's inputs: the window is the session's model window (`contextWindow`), the output
allowance the reserve (`reserveTokens`, at most 32,000); keepRecentTokens, when set
explicitly, stands for `preserve_recent_tokens`. The turn sizes are opencode's own
estimate, computed from the messages cutline rebuilt (core/agents/opencode/estimate.py).
"""

from __future__ import annotations

from typing import Any

from cutline.core.agents.boundaries import continues_message
from cutline.core.agents.opencode.estimate import estimate_messages
from cutline.core.engine.compaction_plan import CompactionPlan, ExplanationStep, Span
from cutline.core.engine.plan_figures import budget
from cutline.core.engine.rules.assemble import n
from cutline.core.engine.rules.base import PlanRequest
from cutline.core.models import Entry, Message

NAME = "opencode-1.18"
VERSION = "1.18.33"
OUTPUT_TOKEN_MAX = 32_000
PRESERVE_MIN = 2_000
PRESERVE_MAX = 15_000
PRESERVE_SHARE = 0.25


def usable(window: int, output: int) -> int:
    """The tokens opencode lets the context reach before it compacts (its `usable`)."""
    if window <= 0:
        return 0
    return max(0, window - min(output, OUTPUT_TOKEN_MAX))


def preserve_budget(usable_tokens: int) -> int:
    """opencode's default `preserve_recent_tokens`: min(15,000, max(2,000, ⌊usable × 0.25⌋))."""
    return min(PRESERVE_MAX, max(PRESERVE_MIN, int(usable_tokens * PRESERVE_SHARE)))


# roles that never start a kept part (other agents' sessions): a tool result answers the message before it,
# and a system message only stands at the start of a conversation
_JOINS = frozenset({"toolResult", "system"})


def _messages(path: list[Entry], indices: list[int]) -> list[list[int]]:
    """The context's entries grouped into messages: an entry continuing a message, a tool result or a system
    message joins the one before.

    opencode's own entries mark what continues its messages; other agents' tool results answer the
    message before them, so a kept part never starts with one (its call would be summarized away).
    """
    groups: list[list[int]] = []
    for i in indices:
        message = path[i].message
        if groups and message is not None and (continues_message(message) or message.role in _JOINS):
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def _sent(path: list[Entry], group: list[int]) -> list[Message]:
    return [m for m in (path[i].message for i in group) if m is not None]


def select_tail(path: list[Entry], groups: list[list[int]], budget_tokens: int) -> tuple[int | None, list[str]]:
    """The index in `groups` where opencode's kept tail starts (None: nothing kept), and the walk, step by step."""
    starts = [k for k, g in enumerate(groups) if path[g[0]].role == "user"]
    turns = [(s, starts[j + 1] if j + 1 < len(starts) else len(groups)) for j, s in enumerate(starts)]

    def size(start: int, stop: int) -> int:
        return estimate_messages([m for g in groups[start:stop] for m in _sent(path, g)])

    total = 0
    tail: int | None = None
    steps: list[str] = []
    for start, stop in reversed(turns):
        turn = size(start, stop)
        if total + turn <= budget_tokens:
            total += turn
            tail = start
            steps.append(f"turn at message {start + 1}: {n(turn)} tokens, kept ({n(total)} in all)")
            continue
        room = budget_tokens - total
        inside = None
        if room > 0 and stop - start > 1:
            inside = next((o for o in range(start + 1, stop) if size(o, stop) <= room), None)
        if inside is not None:
            tail = inside
            steps.append(f"turn at message {start + 1}: {n(turn)} tokens; kept from its message {inside + 1} on")
        else:
            steps.append(f"turn at message {start + 1}: {n(turn)} tokens, does not fit the {n(room)} left")
        break
    if tail == 0:
        steps.append("the tail would start at the first message: nothing is kept")
        return None, steps
    return tail, steps


def _spans(indices: list[int]) -> list[Span]:
    spans: list[Span] = []
    for i in indices:
        if spans and spans[-1].stop == i:
            spans[-1] = Span(start=spans[-1].start, stop=i + 1)
        else:
            spans.append(Span(start=i, stop=i + 1))
    return spans


class Opencode118Rules:
    """opencode 1.18.33's compaction: summarize all but a tail of recent turns within its token budget."""

    @property
    def name(self) -> str:
        return NAME

    def plan(self, request: PlanRequest) -> CompactionPlan:
        index = request.index
        path = index.path
        figures = budget(request.settings, index, request.reserve)
        threshold = usable(figures.window, figures.reserve)
        explicit = "keepRecentTokens" in request.settings.model_fields_set
        keep = request.settings.keepRecentTokens if explicit else preserve_budget(threshold)
        base: dict[str, Any] = {
            "mode": request.mode,
            "counter": index.counter,
            "rules": NAME,
            "pathLength": index.n,
            "contextWindow": figures.window,
            "contextWindowSource": figures.source,
            "reserveTokens": figures.reserve,
            "threshold": threshold,
            "keepRecentTokens": keep,
            "entryTokens": index.tokens if request.entry_tokens else [],
        }
        rules = ExplanationStep(step="rules", text=f"planned by the rules of {NAME}", data={"rules": NAME})
        if index.n == 0:
            return CompactionPlan(
                **base, nothingToCompact=True, explanation=[rules, ExplanationStep(step="empty", text="empty session")]
            )
        estimate = index.context_estimate()
        should = threshold > 0 and estimate.tokens >= threshold
        trigger = ExplanationStep(
            step="trigger",
            text=(
                f"usable context {n(figures.window)} − min({n(figures.reserve)}, {n(OUTPUT_TOKEN_MAX)}) = {n(threshold)}; "
                f"context is {n(estimate.tokens)} tokens; opencode "
                + ("would compact now" if should else "would not compact yet")
            ),
            data={"contextWindow": figures.window, "threshold": threshold, "tokens": estimate.tokens},
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
        context = [i for i in index.context() if path[i].type == "message" and path[i].message is not None]
        groups = _messages(path, context)
        if not groups:
            return CompactionPlan(
                **base,
                nothingToCompact=True,
                tokensBefore=estimate.tokens,
                contextEstimate=estimate,
                explanation=[rules, trigger, ExplanationStep(step="nothing", text="no message to summarize")],
            )
        tail, walk = select_tail(path, groups, keep)
        budget_step = ExplanationStep(
            step="tail",
            text=(
                f"keep recent turns within {n(keep)} tokens"
                + ("" if explicit else f" (opencode's min(15,000, max(2,000, ⌊{n(threshold)} × 0.25⌋)))")
                + ": "
                + "; ".join(walk)
            ),
            data={"keepRecentTokens": keep, "explicit": explicit},
        )
        kept_indices = [i for g in groups[tail:] for i in g] if tail is not None else []
        summarized = [i for g in (groups[:tail] if tail is not None else groups) for i in g]
        first_kept = groups[tail][0] if tail is not None else None
        record = path[previous].compaction if previous >= 0 else None
        summarized_tokens = sum(index.tokens[i] for i in summarized)
        kept_tokens = sum(index.tokens[i] for i in kept_indices)
        result = ExplanationStep(
            step="result",
            pathIndex=first_kept,
            text=(
                f"summarize {len(summarized)} entries ({n(summarized_tokens)} tokens"
                + (", with the previous summary" if record is not None else "")
                + "); "
                + (
                    f"keep {len(kept_indices)} from entry {first_kept} on ({n(kept_tokens)} tokens)"
                    if first_kept is not None
                    else "keep nothing verbatim"
                )
            ),
        )
        return CompactionPlan(
            **base,
            firstKeptEntryId=path[first_kept].id if first_kept is not None else None,
            firstKeptPathIndex=first_kept,
            tokensBefore=estimate.tokens,
            contextEstimate=estimate,
            boundaryStart=summarized[0] if summarized else previous + 1,
            previousCompactionIndex=previous if previous >= 0 else None,
            previousSummary=record.summary if record is not None else None,
            summarizeSpans=_spans(summarized),
            keptSpans=_spans(kept_indices),
            messagesToSummarize=len(summarized),
            keptMessages=len(kept_indices),
            summarizedTokens=summarized_tokens,
            keptTokens=kept_tokens,
            shouldCompact=should and request.settings.enabled,
            explanation=[rules, trigger, budget_step, result],
        )


OPENCODE_1_18 = Opencode118Rules()
