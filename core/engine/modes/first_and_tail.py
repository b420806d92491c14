"""The `first-and-tail` mode (compaction-design-single-pass.md): keep message 0 and the last N, summarize the middle.

The summary is merged into message 0 between `[CONTEXT SUMMARY]` markers; an
acknowledgement follows it only when the kept tail would not start with the assistant.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan, ExplanationStep
from cutline.core.engine.context import entry_message
from cutline.core.engine.modes.base import CompactionJob, Rebuilt
from cutline.core.engine.path_index import PathIndex
from cutline.core.engine.plan_figures import budget, file_lists, is_tool_result, n, spans
from cutline.core.engine.rules.base import PlannerRules
from cutline.core.engine.triggers import effective_reserve_tokens
from cutline.core.models import Message, TextBlock

if TYPE_CHECKING:  # the summarizing side: imported by a run (below), not by a plan or a timeline
    from cutline.core.engine.summary_run import SummaryRun, SummaryStyle

SUMMARY_OPEN = "[CONTEXT SUMMARY]"
SUMMARY_CLOSE = "[END CONTEXT SUMMARY]"
ACKNOWLEDGEMENT = "Understood. Continuing with the current task."
PROMPT_NAME = "narrative"


@dataclass(frozen=True)
class Zone:
    """The decision: context messages 1..end-1 are the zone, after pulling `end` back `pulled` times."""

    ctx: list[int]  # path indices of the context messages
    total: int
    threshold: int
    tail: int
    end: int
    pulled: int

    @property
    def size(self) -> int:
        return max(0, self.end - 1)

    @property
    def over(self) -> bool:
        return self.total > self.threshold

    @property
    def enough(self) -> bool:
        return self.size >= 2

    def zone_indices(self) -> list[int]:
        return self.ctx[1 : self.end] if self.enough else []

    def kept_indices(self) -> list[int]:
        head = [self.ctx[0]] if self.ctx else []
        return head + (self.ctx[self.end :] if self.enough else self.ctx[1:])

    def first_kept(self) -> int | None:
        return self.ctx[self.end] if self.enough and self.end < len(self.ctx) else None


def decide_zone(index: PathIndex, settings: CompactionSettings) -> Zone:
    """Protect message 0 and the last N; never let the zone end between a tool call and its result."""
    ctx = index.context()
    messages = [entry_message(index.path[i]) for i in ctx]
    count = len(ctx)
    start = 1
    end = count - settings.protectedTailMessages
    pulled = 0
    while end > start + 1 and end < count and is_tool_result(messages[end]):
        end -= 1  # pull the boundary back so the tool call stays with its result
        pulled += 1
    return Zone(
        ctx=ctx,
        total=sum(index.tokens[i] for i in ctx),
        threshold=settings.compactionThresholdTokens,
        tail=settings.protectedTailMessages,
        end=end,
        pulled=pulled,
    )


def describe_zone(zone: Zone, counter: str, summarized_tokens: int, kept_tokens: int) -> list[ExplanationStep]:
    """The trigger, what is protected, and what is summarized (or why nothing is)."""
    count, total, threshold, end = len(zone.ctx), zone.total, zone.threshold, zone.end
    pulled = f" after pulling the boundary back {zone.pulled} so no tool result loses its call" if zone.pulled else ""
    steps = [
        ExplanationStep(
            step="trigger",
            text=(
                f"{counter} estimate of all {count} context messages is {n(total)} tokens; threshold "
                f"{n(threshold)}: compaction {'would trigger' if zone.over else 'would not trigger yet'} "
                f"({n(total)} {'>' if zone.over else '<='} {n(threshold)})"
            ),
            data={"tokens": total, "threshold": threshold},
        ),
        ExplanationStep(
            step="protect",
            text=(
                f"message 0 (the original request) and the last {zone.tail} messages are protected; the compaction "
                f"zone is messages 1..{max(1, end) - 1}{pulled}"
            ),
        ),
    ]
    if not zone.enough:
        plural = "s" if zone.size != 1 else ""
        text = f"the zone has {zone.size} message{plural} (needs at least 2): nothing to compact"
        return [*steps, ExplanationStep(step="zone", text=text)]
    result = (
        f"summarize messages 1..{end - 1} ({zone.size} messages, {n(summarized_tokens)} tokens); keep message 0 "
        f"and messages {end}..{count - 1} ({n(kept_tokens)} tokens); the summary is merged into message 0"
    )
    return [*steps, ExplanationStep(step="result", text=result)]


def _tail_context(job: CompactionJob, tail_indices: list[int]) -> tuple[list[Message], list[str | None]]:
    """The kept tail, led by an acknowledgement when it would not start with the assistant."""
    from cutline.core.summarizers.serialize import to_llm

    path = job.path
    tail = [(i, m) for i, m in ((i, entry_message(path[i])) for i in tail_indices) if m is not None]
    context: list[Message] = []
    ids: list[str | None] = []
    if tail:
        lead = to_llm([tail[0][1]])
        if lead and lead[0].role != "assistant":
            context.append(Message(role="assistant", content=[TextBlock(text=ACKNOWLEDGEMENT)]))
            ids.append(None)
    for i, message in tail:
        context.append(message)
        ids.append(path[i].id)
    return context, ids


class FirstAndTailMode:
    """Keep the first message and the last N; the summary rides in the first."""

    @property
    def name(self) -> str:
        return "first-and-tail"

    @property
    def plan_family(self) -> str:
        return self.name

    def reserve_tokens(self, settings: CompactionSettings) -> int:
        """OpenClaw's floored reserve."""
        return effective_reserve_tokens(settings.reserveTokens, settings.reserveTokensFloor)

    def trigger_threshold(self, settings: CompactionSettings, window: int, reserve: int) -> int:
        """Its own threshold, not the window's."""
        return settings.compactionThresholdTokens

    def plan(
        self, index: PathIndex, settings: CompactionSettings, rules: PlannerRules, *, entry_tokens: bool
    ) -> CompactionPlan:
        """Decide the zone, describe it, assemble the plan (the rule set plays no part)."""
        path, length = index.path, index.n
        figures = budget(settings, index, self.reserve_tokens(settings))
        zone = decide_zone(index, settings)
        zone_indices, kept_indices, first_kept = zone.zone_indices(), zone.kept_indices(), zone.first_kept()
        summarized_tokens = sum(index.tokens[i] for i in zone_indices)
        kept_tokens = sum(index.tokens[i] for i in kept_indices)
        files = file_lists(index, zone_indices[0], zone_indices[-1] + 1, -1) if zone_indices else {}
        return CompactionPlan(
            mode=self.name,
            counter=index.counter,
            pathLength=length,
            alreadyCompacted=bool(length) and path[-1].type == "compaction",
            nothingToCompact=not zone.enough,
            firstKeptEntryId=path[first_kept].id if first_kept is not None else None,
            firstKeptPathIndex=first_kept,
            tokensBefore=zone.total,
            contextEstimate=index.context_estimate() if length else None,
            summarizeSpans=spans(zone_indices),
            keptSpans=spans(kept_indices),
            messagesToSummarize=len(zone_indices),
            keptMessages=len(kept_indices),
            summarizedTokens=summarized_tokens,
            keptTokens=kept_tokens,
            shouldCompact=settings.enabled and zone.over and zone.enough,
            contextWindow=figures.window,
            contextWindowSource=figures.source,
            reserveTokens=figures.reserve,
            threshold=zone.threshold,
            keepRecentTokens=settings.keepRecentTokens,
            protectedHeadPathIndex=zone.ctx[0] if zone.ctx else None,
            entryTokens=index.tokens if entry_tokens else [],
            explanation=describe_zone(zone, index.counter, summarized_tokens, kept_tokens),
            **files,
        )

    def summary_style(self, settings: CompactionSettings) -> SummaryStyle:
        """The narrative prompt over the preview serialization."""
        from cutline.core.engine.summary_run import SummaryStyle

        return SummaryStyle(prompt_name=PROMPT_NAME, serialize="preview")

    async def rebuild(self, job: CompactionJob, run: SummaryRun) -> Rebuilt:
        """Summarize the zone; message 0 carries the summary, the tail follows."""
        from cutline.core.engine.proposal import summary_message

        zone = job.summarized
        run.emit("history")
        summary = await run.with_fallback("history", zone, None, job.settings.customInstructions, run.max_chunk(zone))
        kept = job.plan.kept_indices()
        first_index = kept[0]
        first = entry_message(job.path[first_index])
        prefix = f"{first.text() if first is not None else ''}\n\n{SUMMARY_OPEN}\n"
        suffix = f"\n{SUMMARY_CLOSE}"
        tail, tail_ids = _tail_context(job, kept[1:])
        return Rebuilt(
            summary=summary,
            context=[summary_message("user", prefix + summary + suffix), *tail],
            context_entry_ids=[job.path[first_index].id, *tail_ids],
            first_kept_entry_id=job.plan.firstKeptEntryId,
            summarized_count=len(job.summarized) + len(job.prefix),
            kept_count=len(kept),
            summary_role="user",
            entry_prefix=prefix,
            entry_suffix=suffix,
        )


FIRST_AND_TAIL = FirstAndTailMode()
