"""The plan a planner answers with: what a compaction would cut, summarize and keep, and the reasons as steps."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from cutline.core.engine.context import ContextEstimate
from cutline.core.engine.triggers import ContextWindow


class Span(BaseModel):
    """Path indices start..stop-1 (half-open), every entry in between included."""

    model_config = ConfigDict(defer_build=True)

    start: int
    stop: int

    def __len__(self) -> int:
        return max(0, self.stop - self.start)


class ExplanationStep(BaseModel):
    """One step of the planner's reasoning, as data and as a sentence."""

    model_config = ConfigDict(defer_build=True)

    step: str
    text: str
    pathIndex: int | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class CompactionPlan(BaseModel):
    """What a compaction would do to a session path now, with the figures and reasons behind it.

    Path indices are 0-based on the active path, the session header not counted.
    Summarized, turn-prefix and kept entries are spans of path indices (expand with
    `summarize_indices()` etc.): at 100k entries, index lists cost more to build and
    validate than the whole plan. `entryTokens` holds every path entry's count.
    File lists: `readFiles`, `writtenFiles`, `editedFiles` are the raw sets pi collects;
    `modifiedFiles` = edited ∪ written and `readOnlyFiles` = read − modified are what
    pi writes into the summary and the compaction's details (its computeFileLists).
    """

    model_config = ConfigDict(defer_build=True)

    mode: str
    counter: str
    rules: str | None = Field(
        default=None, description="the planner rule set (agent version) that decided; None when the mode uses none"
    )
    pathLength: int
    alreadyCompacted: bool = False
    nothingToCompact: bool = False
    firstKeptEntryId: str | None = None
    firstKeptPathIndex: int | None = None
    isSplitTurn: bool = False
    turnStartPathIndex: int | None = None
    tokensBefore: int = 0
    contextEstimate: ContextEstimate | None = None
    boundaryStart: int = 0
    previousCompactionIndex: int | None = None
    previousSummary: str | None = None
    summarizeSpans: list[Span] = Field(default_factory=list)
    turnPrefixSpans: list[Span] = Field(default_factory=list)
    keptSpans: list[Span] = Field(default_factory=list)
    messagesToSummarize: int = 0
    turnPrefixMessages: int = 0
    keptMessages: int = 0
    summarizedTokens: int = 0
    turnPrefixTokens: int = 0
    keptTokens: int = 0
    readFiles: list[str] = Field(default_factory=list)
    writtenFiles: list[str] = Field(default_factory=list)
    editedFiles: list[str] = Field(default_factory=list)
    modifiedFiles: list[str] = Field(default_factory=list)
    readOnlyFiles: list[str] = Field(default_factory=list)
    shouldCompact: bool = False
    contextWindow: int = 200000
    contextWindowSource: str = "default"
    reserveTokens: int = 16384
    threshold: int = 0
    keepRecentTokens: int = 20000
    crossingPathIndex: int | None = None
    cutCandidatePathIndex: int | None = None
    protectedHeadPathIndex: int | None = None
    lastUserPathIndex: int | None = None
    lastUserRequest: str | None = None
    latestUnresolvedUserRequest: str | None = None
    refusal: str | None = Field(default=None, description="why the rule set refuses to plan (OpenClaw's error)")
    historyBudgetTokens: int | None = None
    historyExceedsShare: bool | None = None
    windowGuard: ContextWindow | None = Field(
        default=None, description="OpenClaw's context-window guard on contextWindow"
    )
    entryTokens: list[int] = Field(default_factory=list)
    explanation: list[ExplanationStep] = Field(default_factory=list)

    def _expand(self, spans: list[Span]) -> list[int]:
        return [i for span in spans for i in range(span.start, span.stop)]

    def summarize_indices(self) -> list[int]:
        return self._expand(self.summarizeSpans)

    def turn_prefix_indices(self) -> list[int]:
        return self._expand(self.turnPrefixSpans)

    def kept_indices(self) -> list[int]:
        return self._expand(self.keptSpans)

    def explanation_text(self) -> str:
        """The explanation as plain sentences, one per line."""
        return "\n".join(step.text for step in self.explanation)
