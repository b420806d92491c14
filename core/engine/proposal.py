"""A compaction ready for review: the summary, what it replaces, and the context the agent would see with it."""

from __future__ import annotations

import secrets
import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cutline.core.engine.quality_guard import QualityVerdict
from cutline.core.engine.recovery import MemoryFlushTurn
from cutline.core.engine.validation import ContextProblem, Validation, validate_context
from cutline.core.models import CompactionRecord, Message, TextBlock


class ToolFailure(BaseModel):
    """A failed tool call in the summarized part (OpenClaw's collectToolFailures)."""

    model_config = ConfigDict(defer_build=True)

    toolCallId: str
    toolName: str
    summary: str
    meta: str | None = None


class ProposalDetails(BaseModel):
    """What the compaction entry's `details` carries, plus the tool failures found."""

    model_config = ConfigDict(defer_build=True)

    readFiles: list[str] = Field(default_factory=list)
    modifiedFiles: list[str] = Field(default_factory=list)
    toolFailures: list[ToolFailure] = Field(default_factory=list)
    latestUnresolvedUserRequest: str | None = None


class InjectedBlocks(BaseModel):
    """Text added around the summary: the last exchange kept verbatim, the recovery turn, the memory flush turn."""

    model_config = ConfigDict(defer_build=True)

    last_turn: str = ""
    recovery_turn: str | None = None
    memory_flush: MemoryFlushTurn | None = None


class Proposal(BaseModel):
    """A compaction ready for review: the summary, what it replaces, and the context the agent would see."""

    model_config = ConfigDict(defer_build=True)

    id: str
    session_id: str
    created_at: str
    mode: str
    summary: str
    details: ProposalDetails = Field(default_factory=ProposalDetails)
    injected: InjectedBlocks = Field(default_factory=InjectedBlocks)
    context: list[Message] = Field(default_factory=list)
    context_entry_ids: list[str | None] = Field(default_factory=list)
    tokensBefore: int = 0
    tokensAfter: int = 0
    counter: str = "chars4"
    firstKeptEntryId: str | None = None
    parentEntryId: str | None = None
    # the id the compaction entry gets when this proposal is written back (fixed so a preview matches)
    entryId: str = ""
    summarizedCount: int = 0
    keptCount: int = 0
    previousSummary: str | None = None
    summarizer: str = ""
    model: str | None = None
    prompt_name: str = ""
    settings: dict[str, Any] = Field(default_factory=dict)
    timings: dict[str, float] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    degraded: Literal["none", "partial", "annotation"] = "none"
    validation: Validation = Field(default_factory=Validation)
    # the rule set that planned the cut and whose summarization wrote it (None: the mode uses no rule set), and
    # the quality guard's verdict on it
    rules: str | None = None
    quality: QualityVerdict | None = None
    # where the summary sits in `context` and how it is wrapped there and in the written entry
    summary_index: int = 0
    summary_role: Literal["compactionSummary", "user"] = "compactionSummary"
    entry_prefix: str = ""
    entry_suffix: str = ""

    def entry_summary(self, summary: str | None = None) -> str:
        """The text the compaction entry stores: the summary with the mode's wrapping (none for pi modes)."""
        return self.entry_prefix + (self.summary if summary is None else summary) + self.entry_suffix

    def compaction_record(self, summary: str | None = None) -> CompactionRecord:
        """The compaction entry's payload, with `summary` (e.g. an edited version) in place of the generated one."""
        details: dict[str, Any] = {"readFiles": self.details.readFiles, "modifiedFiles": self.details.modifiedFiles}
        if self.details.latestUnresolvedUserRequest:
            details["latestUnresolvedUserRequest"] = self.details.latestUnresolvedUserRequest
        return CompactionRecord(
            summary=self.entry_summary(summary),
            firstKeptEntryId=self.firstKeptEntryId,
            tokensBefore=self.tokensBefore,
            details=details,
        )

    def context_with(self, summary: str) -> list[Message]:
        """The rebuilt context with another summary text (an edited version) in the summary's place."""
        messages = [m.model_copy() for m in self.context]
        if 0 <= self.summary_index < len(messages):
            messages[self.summary_index] = summary_message(self.summary_role, self.entry_summary(summary))
        return messages


def validate_proposal(proposal: Proposal, summary: str | None = None) -> Validation:
    """Validate the rebuilt context with `summary` (default: the generated one) in place; an empty summary is a problem too."""
    text = proposal.summary if summary is None else summary
    validation = validate_context(proposal.context_with(text), proposal.context_entry_ids)
    if not text.strip():
        validation.problems.insert(
            0, ContextProblem(index=proposal.summary_index, code="empty-summary", message="the summary is empty")
        )
        validation.ok = False
    return validation


def summary_message(role: Literal["compactionSummary", "user"], text: str) -> Message:
    """The message that carries the summary in a rebuilt context."""
    if role == "compactionSummary":
        return Message(role="compactionSummary", summary=text)
    return Message(role="user", content=[TextBlock(text=text)])


def new_proposal_id(now: float | None = None) -> str:
    """A 20-character id that sorts by creation time: milliseconds in hex, then 8 random hex digits."""
    millis = int((time.time() if now is None else now) * 1000)
    return f"{millis:012x}{secrets.token_hex(4)}"
