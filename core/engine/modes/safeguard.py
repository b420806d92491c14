"""The `safeguard` mode: pi's cut with OpenClaw's safeguard — a floored reserve, the history share, staged summaries.

It plans as pi does and adds OpenClaw's history-share figures; before summarizing it
drops the oldest chunks when new content exceeds `maxHistoryShare` of the window
(summarizing them into the previous summary), and it always summarizes in stages.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.chunking import SAFETY_MARGIN, prune_history_for_context_share, total_tokens
from cutline.core.engine.compaction_plan import CompactionPlan, ExplanationStep
from cutline.core.engine.modes.base import CompactionJob
from cutline.core.engine.modes.pi import PiMode
from cutline.core.engine.path_index import PathIndex
from cutline.core.engine.plan_figures import n
from cutline.core.engine.rules.base import PlannerRules
from cutline.core.engine.triggers import HistoryShare, effective_reserve_tokens, history_share
from cutline.core.errors import SummarizerError
from cutline.core.models import Message
from cutline.core.tokens import chars4_tokens

if TYPE_CHECKING:  # a run's: not imported by a plan or a timeline
    from cutline.core.engine.summary_run import SummaryRun

# OpenClaw's safeguard summarizes a split turn's prefix with the checkpoint prompt and this focus
TURN_PREFIX_INSTRUCTIONS = (
    "This summary covers the prefix of a split turn. Focus on the original request,"
    " early progress, and any details needed to understand the retained suffix."
)


def history_share_step(share: HistoryShare) -> ExplanationStep:
    """The safeguard's verdict on the history against its share of the window."""
    verdict = "over budget, the oldest chunks are dropped and summarized first" if share.exceeds else "within budget"
    return ExplanationStep(
        step="history-share",
        text=(
            f"safeguard: history {n(share.historyTokens)} tokens against a budget of {n(share.budgetTokens)} "
            f"({share.maxHistoryShare:g} of the window): {verdict}"
        ),
    )


class SafeguardMode(PiMode):
    """OpenClaw's safeguard over pi's compaction."""

    @property
    def name(self) -> str:
        return "safeguard"

    def reserve_tokens(self, settings: CompactionSettings) -> int:
        """OpenClaw raises pi's reserve to its floor."""
        return effective_reserve_tokens(settings.reserveTokens, settings.reserveTokensFloor)

    def plan(
        self, index: PathIndex, settings: CompactionSettings, rules: PlannerRules, *, entry_tokens: bool
    ) -> CompactionPlan:
        """pi's plan, and where a cut was made, the history's share of the window."""
        result = super().plan(index, settings, rules, entry_tokens=entry_tokens)
        if result.alreadyCompacted or result.nothingToCompact or result.contextEstimate is None:
            return result
        share = history_share(result.contextEstimate.tokens, result.contextWindow, settings.maxHistoryShare)
        result.historyBudgetTokens = share.budgetTokens
        result.historyExceedsShare = share.exceeds
        result.explanation.append(history_share_step(share))
        return result

    async def prepare_history(self, job: CompactionJob, run: SummaryRun) -> tuple[Sequence[Message], str | None]:
        """Drop the oldest chunks when new content overflows the history share; their summary becomes the previous one.

        Pruning cuts the history by token shares and repairs tool pairs across the cut: it
        holds the history as a list (read once), only when it prunes.
        """
        plan, settings, history = job.plan, job.settings, job.summarized
        previous = plan.previousSummary
        if not history:
            return history, previous
        window = plan.contextWindow
        summarizable = total_tokens(history, chars4_tokens) + total_tokens(job.prefix, chars4_tokens)
        new_content = max(0, math.floor(plan.tokensBefore - summarizable))
        if new_content <= math.floor(window * settings.maxHistoryShare * SAFETY_MARGIN):
            return history, previous
        pruned = prune_history_for_context_share(list(history), window, settings.maxHistoryShare, 2, chars4_tokens)
        if pruned.dropped_chunks <= 0:
            return history, previous
        run.note(
            f"safeguard: new content uses {new_content / window * 100:.1f}% of the window; dropped "
            f"{pruned.dropped_chunks} older chunk(s) ({pruned.dropped_messages} messages) to fit the history budget"
        )
        if pruned.dropped:
            run.emit("dropped", detail=f"summarizing {len(pruned.dropped)} dropped messages")
            try:
                previous = await run.staged(
                    "dropped", pruned.dropped, plan.previousSummary, settings.customInstructions
                )
            except SummarizerError as exc:
                run.note(f"safeguard: the dropped messages could not be summarized: {exc}")
        return pruned.kept, previous

    async def summarize_history(
        self, job: CompactionJob, run: SummaryRun, history: Sequence[Message], previous: str | None
    ) -> str:
        """Always in stages (one pass when the history is small)."""
        run.emit("history")
        return await run.staged("history", history, previous, job.settings.customInstructions)

    async def summarize_prefix(self, run: SummaryRun, prefix: list[Message]) -> str:
        """The prefix in stages with the checkpoint prompt's split-turn focus."""
        run.emit("turn_prefix")
        return await run.staged("turn_prefix", prefix, None, TURN_PREFIX_INSTRUCTIONS)


SAFEGUARD = SafeguardMode()
