"""The compaction engine: from a plan and a summarizer to a Proposal a person reviews.

`compact()` reproduces pi's compact() (history and split-turn prefix summarized
concurrently and merged after `---`), OpenClaw's safeguard (pruning by
maxHistoryShare, staged summarization with the fallback chain, tool failures) and the
two other designs in the seeds (first-and-tail, system-and-summary). Independent
summarization calls run concurrently; cancel the awaiting task to stop them all.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import math
import re
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.chunking import (
    SAFETY_MARGIN,
    chunk_by_max_tokens,
    is_oversized,
    max_chunk_tokens,
    normalize_parts,
    oversized_note,
    prune_history_for_context_share,
    split_by_token_share,
    total_tokens,
)
from cutline.core.engine.context import build_context, context_indices, entry_message, sum_context_tokens
from cutline.core.engine.last_turn import last_turn_section
from cutline.core.engine.openclaw_safeguard import latest_unresolved_request, openclaw_summary, workspace_critical_rules
from cutline.core.engine.pi_current_summary import current_pi_body
from cutline.core.engine.plan import CompactionPlan, clean_history
from cutline.core.engine.quality_guard import QualityVerdict
from cutline.core.engine.recovery import (
    MemoryFlushTurn,
    build_memory_flush_turn,
    build_post_compaction_turn,
    should_run_post_compaction,
)
from cutline.core.engine.rule_summaries import (
    RULES_OPENCLAW,
    RULES_PI,
    guard_inputs,
    judge,
    model_max_output_tokens,
    summary_rules,
)
from cutline.core.engine.validation import ContextProblem, Validation, validate_context
from cutline.core.errors import CutlineError, SummarizerError
from cutline.core.hooks import AfterCompactionEvent, BeforeCompactionEvent, HookOutcome, HooksConfig, run_hooks
from cutline.core.models import CompactionRecord, Entry, Message, Session, TextBlock
from cutline.core.summarizers.base import Summarizer, SummaryRequest
from cutline.core.summarizers.prompts import SUMMARIZATION_SYSTEM_PROMPT, build_prompt_text, merge_conversation_text
from cutline.core.summarizers.serialize import serialize_conversation, to_llm
from cutline.core.tokens import chars4_tokens

NO_PRIOR_HISTORY = "No prior history."
TURN_CONTEXT_SEPARATOR = "\n\n---\n\n**Turn Context (split turn):**\n\n"
# OpenClaw's safeguard summarizes a split turn's prefix with the checkpoint prompt and this focus
TURN_PREFIX_INSTRUCTIONS = (
    "This summary covers the prefix of a split turn. Focus on the original request,"
    " early progress, and any details needed to understand the retained suffix."
)
MAX_TOOL_FAILURES = 8
MAX_TOOL_FAILURE_CHARS = 240
MIN_MESSAGES_FOR_SPLIT = 4
SUMMARY_OPEN = "[CONTEXT SUMMARY]"
SUMMARY_CLOSE = "[END CONTEXT SUMMARY]"
ACKNOWLEDGEMENT = "Understood. Continuing with the current task."
LAST_REQUEST_PREFIX = "\n\nLast request from user was: "

Progress = Callable[["ProgressEvent"], Any]


# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------


class ProgressEvent(BaseModel):
    """A step of a running compaction, for a progress display: `stage`, and part `part` of `parts` when staged."""

    stage: str
    part: int | None = None
    parts: int | None = None
    detail: str = ""


class ToolFailure(BaseModel):
    """A failed tool call in the summarized part (OpenClaw's collectToolFailures)."""

    toolCallId: str
    toolName: str
    summary: str
    meta: str | None = None


class ProposalDetails(BaseModel):
    """What the compaction entry's `details` carries, plus the tool failures found."""

    readFiles: list[str] = Field(default_factory=list)
    modifiedFiles: list[str] = Field(default_factory=list)
    toolFailures: list[ToolFailure] = Field(default_factory=list)
    latestUnresolvedUserRequest: str | None = None


class InjectedBlocks(BaseModel):
    """Text added around the summary: the last exchange kept verbatim, the recovery turn, the memory flush turn."""

    last_turn: str = ""
    recovery_turn: str | None = None
    memory_flush: MemoryFlushTurn | None = None


class Proposal(BaseModel):
    """A compaction ready for review: the summary, what it replaces, and the context the agent would see."""

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
    # the rule set whose summarization wrote it, and OpenClaw's quality guard's verdict on it
    rules: str = ""
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


# ---------------------------------------------------------------------------
# Appended sections
# ---------------------------------------------------------------------------


def _failure_meta(message: Message) -> str | None:
    details = (message.model_extra or {}).get("details")
    if not isinstance(details, dict):
        return None
    parts: list[str] = []
    if isinstance(details.get("status"), str):
        parts.append(f"status={details['status']}")
    code = details.get("exitCode")
    if isinstance(code, int | float) and not isinstance(code, bool) and math.isfinite(code):
        parts.append(f"exitCode={int(code) if float(code).is_integer() else code}")
    return " ".join(parts) or None


def collect_tool_failures(messages: list[Message]) -> list[ToolFailure]:
    """Every errored tool result once per call id, its text on one line and cut at 240 characters."""
    failures: list[ToolFailure] = []
    seen: set[str] = set()
    for message in messages:
        if message.role != "toolResult" or message.isError is not True:
            continue
        call_id = message.toolCallId or ""
        if not call_id or call_id in seen:
            continue
        seen.add(call_id)
        name = ((message.toolName or "").strip() and message.toolName) or "tool"
        text = "\n".join(b.text for b in message.content if isinstance(b, TextBlock))
        normalized = re.sub(r"\s+", " ", text).strip()
        meta = _failure_meta(message)
        summary = normalized or ("failed" if meta else "failed (no output)")
        if len(summary) > MAX_TOOL_FAILURE_CHARS:
            summary = summary[: MAX_TOOL_FAILURE_CHARS - 3] + "..."
        failures.append(ToolFailure(toolCallId=call_id, toolName=name, summary=summary, meta=meta))
    return failures


def format_tool_failures(failures: list[ToolFailure]) -> str:
    """OpenClaw's `## Tool Failures` section (at most 8 lines, then "...and N more"), led by a blank line."""
    if not failures:
        return ""
    lines = []
    for failure in failures[:MAX_TOOL_FAILURES]:
        meta = f" ({failure.meta})" if failure.meta else ""
        lines.append(f"- {failure.toolName}{meta}: {failure.summary}")
    if len(failures) > MAX_TOOL_FAILURES:
        lines.append(f"- ...and {len(failures) - MAX_TOOL_FAILURES} more")
    return "\n\n## Tool Failures\n" + "\n".join(lines)


def format_file_operations(read_files: list[str], modified_files: list[str]) -> str:
    """pi's `<read-files>` / `<modified-files>` blocks, led by a blank line ("" when both are empty)."""
    sections = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    if not sections:
        return ""
    return "\n\n" + "\n\n".join(sections)


# ---------------------------------------------------------------------------
# Summarization runs
# ---------------------------------------------------------------------------


class _PartialFailure(SummarizerError):
    """Some chunks of a sequential pass were summarized before one failed; the text so far is kept."""

    def __init__(self, message: str, partial: str) -> None:
        super().__init__(message)
        self.partial = partial


class _Run:
    """One compaction's summarization calls: builds requests, times them, reports progress, collects notes."""

    def __init__(
        self, summarizer: Summarizer, settings: CompactionSettings, progress: Progress | None, window: int
    ) -> None:
        self.summarizer = summarizer
        self.settings = settings
        self.progress = progress
        self.window = window
        self.timings: dict[str, float] = {}
        self.notes: list[str] = []
        self.degraded: Literal["none", "partial", "annotation"] = "none"
        self.style = "preview" if settings.previewStyle else "pi"
        self.prompt_name = settings.promptName
        self.max_tokens = math.floor(0.8 * settings.reserveTokens)

    def emit(self, stage: str, part: int | None = None, parts: int | None = None, detail: str = "") -> None:
        if self.progress is not None:
            try:
                self.progress(ProgressEvent(stage=stage, part=part, parts=parts, detail=detail))
            except Exception as exc:
                self.notes.append(f"progress callback failed: {type(exc).__name__}: {exc}")

    def degrade(self, level: Literal["partial", "annotation"]) -> None:
        order = {"none": 0, "partial": 1, "annotation": 2}
        if order[level] > order[self.degraded]:
            self.degraded = level

    async def call(self, stage: str, request: SummaryRequest) -> str:
        started = time.perf_counter()
        try:
            return await self.summarizer.summarize(request)
        finally:
            self.timings[stage] = self.timings.get(stage, 0.0) + time.perf_counter() - started

    def history_request(self, messages: list[Message], previous: str | None, custom: str | None) -> SummaryRequest:
        kind = "update" if previous else "history"
        text = build_prompt_text(
            "history" if not previous else "update",
            serialize_conversation(messages, self.style),
            previous_summary=previous,
            custom_instructions=custom,
            prompt_name=self.prompt_name,
        )
        return SummaryRequest(
            kind=kind,
            prompt_name=self.prompt_name,
            system_prompt=SUMMARIZATION_SYSTEM_PROMPT,
            prompt_text=text,
            messages=messages,
            previous_summary=previous,
            custom_instructions=custom,
            max_tokens=self.max_tokens,
        )

    def merge_request(self, partials: list[str], previous: str | None, custom: str | None) -> SummaryRequest:
        text = build_prompt_text(
            "merge",
            merge_conversation_text(partials),
            previous_summary=previous,
            custom_instructions=custom,
            prompt_name=self.prompt_name,
        )
        return SummaryRequest(
            kind="merge",
            prompt_name="merge",
            system_prompt=SUMMARIZATION_SYSTEM_PROMPT,
            prompt_text=text,
            previous_summary=previous,
            partial_summaries=partials,
            custom_instructions=custom,
            max_tokens=self.max_tokens,
        )

    def turn_prefix_request(self, messages: list[Message]) -> SummaryRequest:
        text = build_prompt_text("turn_prefix", serialize_conversation(messages, self.style))
        return SummaryRequest(
            kind="turn_prefix",
            prompt_name="pi-turn-prefix",
            system_prompt=SUMMARIZATION_SYSTEM_PROMPT,
            prompt_text=text,
            messages=messages,
            max_tokens=math.floor(0.5 * self.settings.reserveTokens),
        )

    # -- OpenClaw's summarizeChunks / summarizeWithFallback / summarizeInStages --

    async def chunks(
        self, stage: str, messages: list[Message], previous: str | None, custom: str | None, max_chunk: int
    ) -> str:
        """Summarize in chunks of at most `max_chunk` tokens, each chunk updating the summary of the ones before."""
        if not messages:
            return previous or NO_PRIOR_HISTORY
        pieces = chunk_by_max_tokens(messages, max_chunk, chars4_tokens)
        summary = previous
        for done, piece in enumerate(pieces):
            try:
                summary = await self.call(stage, self.history_request(piece, summary, custom))
            except SummarizerError as exc:
                if done == 0 or summary is None:
                    raise
                partial = (
                    f"{summary}\n\n[Partial summary: chunks 1-{done} of {len(pieces)} were summarized. "
                    f"Chunks {done + 1}-{len(pieces)} could not be processed.]"
                )
                raise _PartialFailure(str(exc), partial) from exc
        return summary or NO_PRIOR_HISTORY

    async def with_fallback(
        self, stage: str, messages: list[Message], previous: str | None, custom: str | None, max_chunk: int
    ) -> str:
        """Full summary; if that fails, one without oversized messages (noted); else only a note of what was there."""
        if not messages:
            return previous or NO_PRIOR_HISTORY
        partial_fallback: str | None = None
        try:
            return await self.chunks(stage, messages, previous, custom, max_chunk)
        except SummarizerError as exc:
            self.notes.append(f"{stage}: full summarization failed: {exc}")
            partial_fallback = getattr(exc, "partial", None)
        small = [m for m in messages if not is_oversized(m, self.window, chars4_tokens)]
        notes = [oversized_note(m, chars4_tokens) for m in messages if is_oversized(m, self.window, chars4_tokens)]
        suffix = "\n\n" + "\n".join(notes) if notes else ""
        if small and len(small) != len(messages):
            try:
                text = await self.chunks(stage, small, previous, custom, max_chunk)
                self.degrade("partial")
                self.notes.append(f"{stage}: summarized without {len(notes)} oversized message(s)")
                return text + suffix
            except SummarizerError as exc:
                self.notes.append(f"{stage}: partial summarization also failed: {exc}")
                if getattr(exc, "partial", None):
                    partial_fallback = exc.partial + suffix  # type: ignore[attr-defined]
        if partial_fallback:
            self.degrade("partial")
            return partial_fallback
        self.degrade("annotation")
        return (
            f"Context contained {len(messages)} messages ({len(notes)} oversized). "
            "Summary unavailable due to size limits."
        )

    def max_chunk(self, messages: list[Message]) -> int:
        if self.settings.maxChunkTokens:
            return self.settings.maxChunkTokens
        return max_chunk_tokens(messages, self.window, chars4_tokens)

    def needs_stages(self, messages: list[Message]) -> bool:
        return total_tokens(messages, chars4_tokens) > self.max_chunk(messages)

    async def staged(self, stage: str, messages: list[Message], previous: str | None, custom: str | None) -> str:
        """Split, summarize the parts concurrently, merge them; one pass when the input is small or short."""
        if not messages:
            return previous or NO_PRIOR_HISTORY
        max_chunk = self.max_chunk(messages)
        parts = normalize_parts(self.settings.parts, len(messages))
        total = total_tokens(messages, chars4_tokens)
        if (
            (parts <= 1 and not self.settings.maxChunkTokens)
            or len(messages) < MIN_MESSAGES_FOR_SPLIT
            or total <= max_chunk
        ):
            self.emit(stage, 1, 1)
            return await self.with_fallback(stage, messages, previous, custom, max_chunk)
        if self.settings.maxChunkTokens:
            splits = chunk_by_max_tokens(messages, max_chunk, chars4_tokens)
        else:
            splits = split_by_token_share(messages, parts, chars4_tokens)
        splits = [s for s in splits if s]
        if len(splits) <= 1:
            self.emit(stage, 1, 1)
            return await self.with_fallback(stage, messages, previous, custom, max_chunk)

        async def part(index: int, chunk: list[Message]) -> str:
            self.emit(stage, index + 1, len(splits), "summarizing part")
            return await self.with_fallback(f"{stage}.part{index + 1}", chunk, None, custom, max_chunk)

        partials = list(await asyncio.gather(*(part(i, c) for i, c in enumerate(splits))))
        self.emit(f"{stage}.merge", detail=f"merging {len(partials)} partial summaries")
        request = self.merge_request(partials, previous, custom)
        try:
            return await self.call(f"{stage}.merge", request)
        except SummarizerError as exc:
            self.notes.append(f"{stage}: merging the partial summaries failed: {exc}")
            self.degrade("partial")
            return "\n\n".join(partials)


# ---------------------------------------------------------------------------
# compact()
# ---------------------------------------------------------------------------


def _summarizable(entry: Entry) -> Message | None:
    """The message an entry contributes to a summary (a compaction's own summary is not re-summarized)."""
    if entry.type == "compaction" or entry.isSidechain or entry.isCompactSummary:
        return None
    return entry_message(entry)


def _messages_at(path: list[Entry], indices: list[int]) -> list[Message]:
    return [m for m in (_summarizable(path[i]) for i in indices if 0 <= i < len(path)) if m is not None]


def _count_tokens(messages: list[Message], counter: str, notes: list[str]) -> tuple[int, str]:
    try:
        return sum_context_tokens(messages, counter), counter
    except CutlineError as exc:
        notes.append(f"tokensAfter counted with chars4: the {counter} counter is not available here ({exc})")
        return sum_context_tokens(messages, "chars4"), "chars4"


def _pending_entry(path: list[Entry], record: CompactionRecord) -> Entry:
    parent = path[-1].id if path else None
    return Entry(id="(proposed)", parentId=parent, type="compaction", compaction=record)


def _settings_used(settings: CompactionSettings) -> dict[str, Any]:
    return settings.model_dump(mode="json")


async def compact(
    plan: CompactionPlan,
    session: Session,
    summarizer: Summarizer,
    settings: CompactionSettings,
    *,
    progress: Progress | None = None,
    hooks: HooksConfig | None = None,
    today: dt.date | None = None,
) -> Proposal:
    """Summarize what `plan` (a core.engine.plan.CompactionPlan of `session`'s active path) cuts away and build the Proposal.

    Raises CutlineError when the plan has nothing to compact. `progress` receives
    ProgressEvents; `hooks` run before and after (failures become notes).
    """
    if getattr(plan, "alreadyCompacted", False):
        raise CutlineError("the session already ends with a compaction: nothing to compact")
    if getattr(plan, "nothingToCompact", False):
        raise CutlineError("the plan has nothing to summarize")
    path = session.active_path()
    if plan.pathLength != len(path):
        raise CutlineError("the plan was made for another version of this session's path; plan again")
    mode = settings.mode
    if plan.mode != mode and {plan.mode, mode} != {"pi", "safeguard"}:
        raise CutlineError(f"the plan was made for mode {plan.mode}, the settings ask for {mode}; plan again")
    today = today or dt.datetime.now(dt.UTC).date()
    started = time.perf_counter()
    run = _Run(summarizer, settings, progress, plan.contextWindow)
    summarized = _messages_at(path, plan.summarize_indices())
    prefix = _messages_at(path, plan.turn_prefix_indices())
    outcomes: list[HookOutcome] = []

    run.emit("before_compaction")
    outcomes += await run_hooks(
        "before_compaction",
        BeforeCompactionEvent(messageCount=len(summarized) + len(prefix), tokenCount=plan.tokensBefore),
        hooks,
    )

    proposal = Proposal(
        id=new_proposal_id(),
        session_id=session.id,
        created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        mode=mode,
        summary="",
        tokensBefore=plan.tokensBefore,
        counter=plan.counter,
        firstKeptEntryId=plan.firstKeptEntryId,
        parentEntryId=path[-1].id if path else None,
        summarizedCount=len(summarized) + len(prefix),
        keptCount=plan.keptMessages,
        previousSummary=plan.previousSummary,
        summarizer=summarizer.name,
        model=summarizer.model,
        settings=_settings_used(settings),
    )
    proposal.details.readFiles = list(plan.readOnlyFiles)
    proposal.details.modifiedFiles = list(plan.modifiedFiles)

    if mode == "first-and-tail":
        await _first_and_tail(proposal, plan, path, summarized, run)
    elif mode == "system-and-summary":
        await _system_and_summary(proposal, plan, path, run)
    elif summary_rules(plan, settings) == RULES_OPENCLAW:
        await _openclaw_2026(proposal, plan, path, summarized=summarized, prefix=prefix, run=run, cwd=session.cwd)
    else:
        await _pi_or_safeguard(proposal, plan, path, summarized, prefix, run, settings)

    if settings.memoryFlush.enabled:
        proposal.injected.memory_flush = build_memory_flush_turn(settings.memoryFlush, today)
    if should_run_post_compaction(settings.postCompaction, compacted=True):
        proposal.injected.recovery_turn = build_post_compaction_turn(settings.postCompaction, today).text()

    proposal.rules = summary_rules(plan, settings)
    if proposal.quality is None:
        inputs = guard_inputs(proposal.rules, summarized + prefix, settings)
        proposal.quality = judge(proposal.summary, inputs, settings)
    proposal.tokensAfter, proposal.counter = _count_tokens(proposal.context, plan.counter, run.notes)
    proposal.validation = validate_proposal(proposal)

    run.emit("after_compaction")
    outcomes += await run_hooks(
        "after_compaction",
        AfterCompactionEvent(
            messageCount=len(proposal.context), tokenCount=proposal.tokensAfter, compactedCount=proposal.summarizedCount
        ),
        hooks,
    )
    run.notes.extend(o.note() for o in outcomes if not o.ok)
    proposal.notes = run.notes
    proposal.degraded = run.degraded
    proposal.timings = {**run.timings, "total": time.perf_counter() - started}
    run.emit("done")
    return proposal


async def _pi_or_safeguard(
    proposal: Proposal,
    plan: CompactionPlan,
    path: list[Entry],
    summarized: list[Message],
    prefix: list[Message],
    run: _Run,
    settings: CompactionSettings,
) -> None:
    """pi's compact(), with OpenClaw's safeguard pruning and staging when the mode or the input size asks for it."""
    custom = settings.customInstructions
    previous = plan.previousSummary
    history = summarized
    safeguard = settings.mode == "safeguard"
    window = plan.contextWindow
    proposal.prompt_name = run.prompt_name

    if safeguard and history:
        summarizable = total_tokens(history, chars4_tokens) + total_tokens(prefix, chars4_tokens)
        new_content = max(0, math.floor(plan.tokensBefore - summarizable))
        max_history = math.floor(window * settings.maxHistoryShare * SAFETY_MARGIN)
        if new_content > max_history:
            pruned = prune_history_for_context_share(history, window, settings.maxHistoryShare, 2, chars4_tokens)
            if pruned.dropped_chunks > 0:
                run.notes.append(
                    f"safeguard: new content uses {new_content / window * 100:.1f}% of the window; dropped "
                    f"{pruned.dropped_chunks} older chunk(s) ({pruned.dropped_messages} messages) to fit the history budget"
                )
                history = pruned.kept
                if pruned.dropped:
                    run.emit("dropped", detail=f"summarizing {len(pruned.dropped)} dropped messages")
                    try:
                        previous = await run.staged("dropped", pruned.dropped, plan.previousSummary, custom)
                    except SummarizerError as exc:
                        run.notes.append(f"safeguard: the dropped messages could not be summarized: {exc}")

    async def history_summary() -> str:
        run.emit("history")
        if safeguard or run.needs_stages(history):
            return await run.staged("history", history, previous, custom)
        if not history:
            return previous or NO_PRIOR_HISTORY
        return await run.with_fallback("history", history, previous, custom, run.max_chunk(history))

    async def prefix_summary() -> str:
        run.emit("turn_prefix")
        if safeguard:
            return await run.staged("turn_prefix", prefix, None, TURN_PREFIX_INSTRUCTIONS)
        try:
            return await run.call("turn_prefix", run.turn_prefix_request(prefix))
        except SummarizerError as exc:
            run.notes.append(f"turn_prefix: summarization failed: {exc}")
            run.degrade("annotation")
            return f"Context contained {len(prefix)} messages (0 oversized). Summary unavailable due to size limits."

    if summary_rules(plan, settings) == RULES_PI:
        model_max = model_max_output_tokens(run.summarizer.model)
        body = await current_pi_body(
            run,
            settings,
            summarized=history,
            prefix=prefix,
            previous=previous,
            split_turn=plan.isSplitTurn,
            model_max=model_max,
        )
    elif plan.isSplitTurn and prefix:
        history_text, prefix_text = await asyncio.gather(
            history_summary() if summarized else _constant(NO_PRIOR_HISTORY), prefix_summary()
        )
        body = f"{history_text}{TURN_CONTEXT_SEPARATOR}{prefix_text}"
    else:
        body = await history_summary()

    if settings.lastTurnInjection:
        section = last_turn_section(summarized + prefix, settings.lastTurnMaxTokens)
        if section:
            proposal.injected.last_turn = section
            body = f"{body}\n\n{section}"
    failures = collect_tool_failures(summarized + prefix)
    proposal.details.toolFailures = failures
    body += format_tool_failures(failures)
    body += format_file_operations(proposal.details.readFiles, proposal.details.modifiedFiles)
    proposal.summary = body

    _rebuild_pi_context(proposal, path)


def _rebuild_pi_context(proposal: Proposal, path: list[Entry]) -> None:
    """The context pi builds once the proposal's compaction entry is appended."""
    record = proposal.compaction_record()
    extended = [*path, _pending_entry(path, record)]
    indices = context_indices(extended)
    proposal.context = build_context(extended)
    proposal.context_entry_ids = [None if i == len(path) else extended[i].id for i in indices]
    proposal.summary_index = 0


def _agents_md_rules(cwd: str | None, sections: list[str]) -> str:
    """The workspace's critical rules from its AGENTS.md ("" when there is none)."""
    if not cwd:
        return ""
    try:
        text = (Path(cwd) / "AGENTS.md").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
    return workspace_critical_rules(text, sections)


async def _openclaw_2026(
    proposal: Proposal,
    plan: CompactionPlan,
    path: list[Entry],
    *,
    summarized: list[Message],
    prefix: list[Message],
    run: _Run,
    cwd: str | None,
) -> None:
    """OpenClaw 2026.9's safeguard (core.engine.openclaw_safeguard), the context rebuilt as pi's."""
    settings = run.settings
    proposal.prompt_name = "openclaw-safeguard"
    kept = _messages_at(path, plan.kept_indices())
    latest = getattr(plan, "latestUnresolvedUserRequest", None) or latest_unresolved_request(summarized + prefix + kept)
    failures = collect_tool_failures(summarized + prefix)
    proposal.details.toolFailures = failures
    appendix = (
        format_tool_failures(failures)
        + format_file_operations(proposal.details.readFiles, proposal.details.modifiedFiles)
        + _agents_md_rules(cwd, settings.postCompactionSections)
    )
    result = await openclaw_summary(
        run,
        settings,
        summarized=summarized,
        prefix=prefix,
        previous=plan.previousSummary,
        split_turn=plan.isSplitTurn,
        latest_request=latest,
        appendix=appendix,
        model_max=model_max_output_tokens(run.summarizer.model),
    )
    proposal.summary = result.summary
    proposal.quality = result.verdict
    proposal.details.latestUnresolvedUserRequest = result.latest_request
    _rebuild_pi_context(proposal, path)


async def _constant(text: str) -> str:
    return text


async def _first_and_tail(
    proposal: Proposal, plan: CompactionPlan, path: list[Entry], zone: list[Message], run: _Run
) -> None:
    """compaction-design-single-pass.md: summary merged into message 0, an acknowledgement only if alternation needs it."""
    run.prompt_name = "narrative"
    run.style = "preview"
    proposal.prompt_name = "narrative"
    run.emit("history")
    summary = await run.with_fallback("history", zone, None, run.settings.customInstructions, run.max_chunk(zone))
    proposal.summary = summary
    kept = plan.kept_indices()
    first_index, tail_indices = kept[0], kept[1:]
    first = entry_message(path[first_index])
    first_text = first.text() if first is not None else ""
    proposal.entry_prefix = f"{first_text}\n\n{SUMMARY_OPEN}\n"
    proposal.entry_suffix = f"\n{SUMMARY_CLOSE}"
    proposal.summary_role = "user"
    context: list[Message] = [summary_message("user", proposal.entry_summary())]
    ids: list[str | None] = [path[first_index].id]
    tail = [(i, entry_message(path[i])) for i in tail_indices]
    tail = [(i, m) for i, m in tail if m is not None]
    if tail and to_llm([tail[0][1]]) and to_llm([tail[0][1]])[0].role != "assistant":
        context.append(Message(role="assistant", content=[TextBlock(text=ACKNOWLEDGEMENT)]))
        ids.append(None)
    for i, message in tail:
        context.append(message)
        ids.append(path[i].id)
    proposal.context = context
    proposal.context_entry_ids = ids
    proposal.summary_index = 0
    proposal.keptCount = len(kept)


async def _system_and_summary(proposal: Proposal, plan: CompactionPlan, path: list[Entry], run: _Run) -> None:
    """context-compaction-go.md: clean the history, keep the system prompt and one user message."""
    run.prompt_name = "go-7-section"
    proposal.prompt_name = "go-7-section"
    system_indices = plan.kept_indices()
    everything = _messages_at(path, plan.summarize_indices())
    cleaned = clean_history(everything)
    run.emit("history")
    summary = await run.with_fallback("history", cleaned, None, run.settings.customInstructions, run.max_chunk(cleaned))
    proposal.summary = summary
    proposal.summarizedCount = len(cleaned)
    proposal.summary_role = "user"
    proposal.entry_suffix = f"{LAST_REQUEST_PREFIX}{plan.lastUserRequest}" if plan.lastUserRequest else ""
    context: list[Message] = []
    ids: list[str | None] = []
    for i in system_indices:
        message = entry_message(path[i])
        if message is not None:
            context.append(message)
            ids.append(path[i].id)
    if not context:
        run.notes.append("no system prompt in the transcript: the agent supplies its own")
    proposal.summary_index = len(context)
    context.append(summary_message("user", proposal.entry_summary()))
    ids.append(None)
    proposal.context = context
    proposal.context_entry_ids = ids
    proposal.firstKeptEntryId = None
