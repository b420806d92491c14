"""The `system-and-summary` mode (context-compaction-go.md): keep the system prompt and one user message.

The whole history is cleaned (every tool call answered, no trailing tool result) and
summarized; the context becomes the system prompt, if any, and a user message holding
the summary and the user's last request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan, ExplanationStep
from cutline.core.engine.context import ContextEstimate, entry_message, text_of
from cutline.core.engine.modes.base import CompactionJob, Rebuilt
from cutline.core.engine.path_index import PathIndex, carries_tool_results
from cutline.core.engine.plan_figures import budget, file_lists, is_tool_result, n, spans
from cutline.core.engine.rules.base import PlannerRules
from cutline.core.engine.triggers import effective_reserve_tokens
from cutline.core.models import Message, TextBlock

if TYPE_CHECKING:  # the summarizing side: imported by a run (below), not by a plan or a timeline
    from cutline.core.engine.summary_run import SummaryRun, SummaryStyle

LAST_REQUEST_PREFIX = "\n\nLast request from user was: "
NO_RESPONSE = "Tool no response"
UNDERSTOOD = "Understood."
PROMPT_NAME = "go-7-section"


def _answer_calls(message: Message, following: list[Message]) -> list[Message]:
    """The results following an assistant message, then a stand-in for each of its calls left unanswered."""
    answered: set[str] = set()
    for result in following:
        answered.update(result.tool_result_ids())
    missing: list[Message] = []
    for call in message.tool_calls():
        if call.id not in answered:
            missing.append(
                Message(
                    role="toolResult", toolCallId=call.id, toolName=call.name, content=[TextBlock(text=NO_RESPONSE)]
                )
            )
            answered.add(call.id)
    return [*following, *missing]


def clean_history(messages: list[Message]) -> list[Message]:
    """context-compaction-go.md's cleaning: every tool call gets a result ("Tool no response" when missing)
    right after its assistant message, and the history never ends on a tool result ("Understood." follows)."""
    cleaned: list[Message] = []
    i = 0
    count = len(messages)
    while i < count:
        message = messages[i]
        cleaned.append(message)
        i += 1
        if message.role != "assistant" or not message.tool_calls():
            continue
        start = i
        while i < count and is_tool_result(messages[i]):
            i += 1
        cleaned.extend(_answer_calls(message, messages[start:i]))
    if cleaned and is_tool_result(cleaned[-1]):
        cleaned.append(Message(role="assistant", content=[TextBlock(text=UNDERSTOOD)]))
    return cleaned


def _no_responses(messages: list[Message]) -> int:
    return sum(1 for m in messages if m.role == "toolResult" and m.text() == NO_RESPONSE)


@dataclass(frozen=True)
class Kept:
    """The decision: the system prompt kept, the rest cleaned and summarized, the last request quoted."""

    estimate: ContextEstimate
    threshold: int
    system: list[int]  # the system prompt's path index, if there is one
    summarize: list[int]
    rest: list[Message]
    cleaned: list[Message]
    last_user: int | None
    last_request: str | None

    @property
    def over(self) -> bool:
        return self.threshold > 0 and self.estimate.tokens >= self.threshold

    @property
    def filled(self) -> int:
        return _no_responses(self.cleaned) - _no_responses(self.rest)

    @property
    def understood_appended(self) -> bool:
        cleaned, rest = self.cleaned, self.rest
        return bool(cleaned and rest) and cleaned[-1] is not rest[-1] and cleaned[-1].text() == UNDERSTOOD


def _last_request(ctx: list[int], messages: list[Message | None]) -> tuple[int | None, str | None]:
    """The last user message with text (not a carrier of tool results) and its text."""
    for i, message in zip(reversed(ctx), reversed(messages), strict=True):
        if message is not None and message.role == "user" and not carries_tool_results(message):
            text = text_of(message)
            if text:
                return i, text
    return None, None


def decide_kept(index: PathIndex, settings: CompactionSettings) -> Kept:
    """Keep the first system message; everything else is summarized."""
    ctx = index.context()
    messages = [entry_message(index.path[i]) for i in ctx]
    empty = ContextEstimate(tokens=0, usageTokens=0, trailingTokens=0, lastUsageIndex=None)
    system = [i for i, m in zip(ctx, messages, strict=True) if m is not None and m.role == "system"][:1]
    rest = [m for i, m in zip(ctx, messages, strict=True) if m is not None and i not in system]
    last_user, last_request = _last_request(ctx, messages)
    return Kept(
        estimate=index.context_estimate() if index.n else empty,
        threshold=settings.threshold,
        system=system,
        summarize=[i for i in ctx if i not in system],
        rest=rest,
        cleaned=clean_history(rest),
        last_user=last_user,
        last_request=last_request,
    )


def describe_kept(kept: Kept) -> list[ExplanationStep]:
    """The trigger, the cleaning, and what is summarized and kept."""
    tokens, threshold = kept.estimate.tokens, kept.threshold
    trigger = f"context is {n(tokens)} tokens; threshold {n(threshold)}"
    trigger += " (0: auto-compaction off)" if threshold == 0 else ""
    trigger += f": compaction {'would trigger' if kept.over else 'would not trigger'} "
    trigger += f"({n(tokens)} >= {n(threshold)})" if kept.over else ""
    filled = kept.filled
    clean = f'cleaned history: {filled} missing tool result{"s" if filled != 1 else ""} filled with "{NO_RESPONSE}"'
    clean += '; "Understood." appended after a trailing tool result' if kept.understood_appended else ""
    where = f" (path index {kept.last_user})" if kept.last_user is not None else " (no user request found)"
    result = (
        f"summarize all {len(kept.cleaned)} messages; keep "
        + ("the system prompt and " if kept.system else "")
        + 'one user message: the summary + "Last request from user was: …"'
        + where
    )
    return [
        ExplanationStep(step="trigger", text=trigger.rstrip()),
        ExplanationStep(
            step="clean", text=clean, data={"filledToolResults": filled, "cleanedMessages": len(kept.cleaned)}
        ),
        ExplanationStep(step="result", text=result),
    ]


class SystemAndSummaryMode:
    """Keep the system prompt and one user message with the summary and the last request."""

    @property
    def name(self) -> str:
        return "system-and-summary"

    @property
    def plan_family(self) -> str:
        return self.name

    def reserve_tokens(self, settings: CompactionSettings) -> int:
        """OpenClaw's floored reserve."""
        return effective_reserve_tokens(settings.reserveTokens, settings.reserveTokensFloor)

    def trigger_threshold(self, settings: CompactionSettings, window: int, reserve: int) -> int:
        """Its own threshold, reached at `>=`; 0 turns it off."""
        return settings.threshold - 1 if settings.threshold > 0 else 10**12

    def plan(
        self, index: PathIndex, settings: CompactionSettings, rules: PlannerRules, *, entry_tokens: bool
    ) -> CompactionPlan:
        """Decide what is kept, describe it, assemble the plan (the rule set plays no part)."""
        path, length = index.path, index.n
        figures = budget(settings, index, self.reserve_tokens(settings))
        kept = decide_kept(index, settings)
        return CompactionPlan(
            mode=self.name,
            counter=index.counter,
            pathLength=length,
            alreadyCompacted=bool(length) and path[-1].type == "compaction",
            nothingToCompact=not kept.rest,
            tokensBefore=kept.estimate.tokens,
            contextEstimate=kept.estimate,
            summarizeSpans=spans(kept.summarize),
            keptSpans=spans(kept.system),
            messagesToSummarize=len(kept.cleaned),
            keptMessages=len(kept.system),
            summarizedTokens=sum(index.tokens[i] for i in kept.summarize),
            keptTokens=sum(index.tokens[i] for i in kept.system),
            shouldCompact=settings.enabled and kept.over and bool(kept.rest),
            contextWindow=figures.window,
            contextWindowSource=figures.source,
            reserveTokens=figures.reserve,
            threshold=kept.threshold,
            keepRecentTokens=settings.keepRecentTokens,
            lastUserPathIndex=kept.last_user,
            lastUserRequest=kept.last_request,
            entryTokens=index.tokens if entry_tokens else [],
            explanation=describe_kept(kept),
            **(file_lists(index, 0, length, -1) if length else {}),
        )

    def summary_style(self, settings: CompactionSettings) -> SummaryStyle:
        """The Go design's seven-section prompt, serialized as the settings say."""
        from cutline.core.engine.summary_run import SummaryStyle, settings_style

        return SummaryStyle(prompt_name=PROMPT_NAME, serialize=settings_style(settings).serialize)

    async def rebuild(self, job: CompactionJob, run: SummaryRun) -> Rebuilt:
        """Summarize the cleaned history; the system prompt and one user message remain."""
        from cutline.core.engine.proposal import summary_message

        cleaned = clean_history(list(job.summarized))  # it walks back and forth: read once, held
        run.emit("history")
        summary = await run.with_fallback(
            "history", cleaned, None, job.settings.customInstructions, run.max_chunk(cleaned)
        )
        request = job.plan.lastUserRequest
        suffix = f"{LAST_REQUEST_PREFIX}{request}" if request else ""
        context: list[Message] = []
        ids: list[str | None] = []
        for i in job.plan.kept_indices():
            message = entry_message(job.path[i])
            if message is not None:
                context.append(message)
                ids.append(job.path[i].id)
        if not context:
            run.note("no system prompt in the transcript: the agent supplies its own")
        return Rebuilt(
            summary=summary,
            context=[*context, summary_message("user", summary + suffix)],
            context_entry_ids=[*ids, None],
            first_kept_entry_id=None,
            summarized_count=len(cleaned),
            kept_count=job.plan.keptMessages,
            summary_index=len(context),
            summary_role="user",
            entry_suffix=suffix,
        )


SYSTEM_AND_SUMMARY = SystemAndSummaryMode()
