"""Which agent version's summarization a compaction follows, and what every version's flow shares.

The planner rule set (`pi-0.73`, current `pi`, `openclaw-2026.9`, …) decides the cut;
the same name decides how the summary is written, by its release folder's `SUMMARY`
flow (core/releases/<release>/): pi 0.73.1's two concurrent calls (the engine's own
code path), current pi's two calls in sequence, or OpenClaw 2026.9's safeguard. A flow talks to the summarizer through `SummaryCalls`, which the
engine's run object satisfies.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from cutline.core import agent_releases
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.quality_guard import (
    QualityInputs,
    QualityVerdict,
    identifiers_of,
    latest_user_ask,
    verdict_for,
)
from cutline.core.models import Message
from cutline.core.summarizers.base import SummaryRequest

# the flow a plan made without a rule set (first-and-tail, system-and-summary) summarizes with: the engine's own
RULES_PI_073 = "pi-0.73"

# Largest output the summarizer model may write, by model-id prefix (longest wins); pi and OpenClaw
# clamp the summary's max_tokens to the model's own limit.
KNOWN_MAX_OUTPUT_TOKENS: dict[str, int] = {
    "claude-": 32_000,
    "claude-sonnet-4": 64_000,
    "claude-sonnet-5": 64_000,
    "claude-haiku-4": 64_000,
    "claude-opus-4": 32_000,
    "claude-3-5": 8_192,
    "claude-3": 4_096,
    "gpt-4o": 16_384,
    "gpt-4.1": 32_768,
    "gpt-5": 128_000,
    "o3": 100_000,
    "o4-mini": 100_000,
}


class SummaryCalls(Protocol):
    """What a flow needs from the engine's run: calls, progress, notes, the degradation level."""

    notes: list[str]
    reads_text: bool  # whether the summarizer reads a request's prompt text (else it is not built)

    async def call(self, stage: str, request: SummaryRequest) -> str:
        """One summarizer call, timed under `stage`."""
        ...

    def emit(self, stage: str, part: int | None = None, parts: int | None = None, detail: str = "") -> None:
        """Report a step to the progress display."""
        ...

    def degrade(self, level: Literal["partial", "annotation"]) -> None:
        """Lower the proposal's quality level."""
        ...


def summary_rules(plan: Any, settings: CompactionSettings) -> str:
    """The rule set whose summarization applies: the plan's (it was chosen from the session), else the settings'.

    Neither names one → pi 0.73.1, today's engine.
    """
    if plan is not None and hasattr(plan, "rules"):
        # a plan made without a rule set (first-and-tail, system-and-summary) summarizes as today's engine
        return str(plan.rules or RULES_PI_073)
    name = getattr(settings, "rules", None)
    return name if isinstance(name, str) and name else RULES_PI_073


def model_max_output_tokens(model: str | None) -> int | None:
    """The model's output limit when cutline knows it (longest matching prefix)."""
    if not model:
        return None
    matches = [prefix for prefix in KNOWN_MAX_OUTPUT_TOKENS if model.startswith(prefix)]
    return KNOWN_MAX_OUTPUT_TOKENS[max(matches, key=len)] if matches else None


def output_limit(share: float, reserve_tokens: int, model_max: int | None) -> int:
    """pi 0.87's max_tokens: `share` of the reserve, clamped to the model's own limit when it has one."""
    limit = math.floor(share * reserve_tokens)
    if model_max is not None and model_max > 0:
        limit = min(limit, model_max)
    return max(1, limit)


def guard_inputs(
    rules: str,
    cut_away: Sequence[Message],
    settings: CompactionSettings,
    latest_unresolved_request: str | None = None,
) -> QualityInputs:
    """What the quality guard checks a summary of `cut_away` against under `rules`.

    The sections required are the release's own (its folder's `GUARD_SECTIONS`: OpenClaw
    2026.9's five; the other agents' prompts ask for other headings, so none); identifiers
    and the latest ask are checked for every proposal.
    """
    sections: tuple[str, ...] = agent_releases.load(rules).GUARD_SECTIONS
    return QualityInputs(
        requiredSections=list(sections),
        identifiers=identifiers_of(cut_away),
        identifierPolicy=settings.identifierPolicy,
        latestUnresolvedRequest=latest_unresolved_request,
        latestUserAsk=None if latest_unresolved_request else latest_user_ask(cut_away),
    )


def judge(summary: str, inputs: QualityInputs, settings: CompactionSettings, attempts: int = 1) -> QualityVerdict:
    """The guard's verdict on a finished summary, with the settings' enforcement."""
    guard = settings.qualityGuard
    return verdict_for(summary, inputs, attempts=attempts, enforced=guard.enabled, strict=guard.strict)
