"""One compaction's summarization calls: OpenClaw's summarizeChunks, summarizeWithFallback and summarizeInStages.

A `SummaryRun` builds the requests in the style its mode asked for, times the calls,
reports progress and collects notes and the degradation level. Modes call its
methods; the engine reads what it collected.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.chunking import (
    chunk_by_max_tokens,
    is_oversized,
    iter_chunks_by_max_tokens,
    max_chunk_tokens,
    normalize_parts,
    oversized_note,
    split_by_token_share,
    total_tokens,
)
from cutline.core.errors import SummarizerError
from cutline.core.models import Message
from cutline.core.summarizers.base import Summarizer, SummaryRequest
from cutline.core.summarizers.prompts import SUMMARIZATION_SYSTEM_PROMPT, build_prompt_text, merge_conversation_text
from cutline.core.summarizers.qwen_prompt import qwen_summary_text
from cutline.core.summarizers.serialize import serialize_conversation
from cutline.core.tokens import chars4_tokens

NO_PRIOR_HISTORY = "No prior history."
MIN_MESSAGES_FOR_SPLIT = 4

Progress = Callable[["ProgressEvent"], Any]
Degraded = Literal["none", "partial", "annotation"]
SerializeStyle = Literal["pi", "preview"]


class ProgressEvent(BaseModel):
    """A step of a running compaction, for a progress display: `stage`, and part `part` of `parts` when staged."""

    model_config = ConfigDict(defer_build=True)

    stage: str
    part: int | None = None
    parts: int | None = None
    detail: str = ""


@dataclass(frozen=True)
class SummaryStyle:
    """How a mode's requests are written: the prompt's name and how the conversation is serialized."""

    prompt_name: str
    serialize: SerializeStyle


def settings_style(settings: CompactionSettings) -> SummaryStyle:
    """The style the settings ask for (the pi modes use it as is)."""
    return SummaryStyle(prompt_name=settings.promptName, serialize="preview" if settings.previewStyle else "pi")


class _PartialFailure(SummarizerError):
    """Some chunks of a sequential pass were summarized before one failed; the text so far is kept."""

    def __init__(self, message: str, partial: str) -> None:
        super().__init__(message)
        self.partial = partial


class SummaryRun:
    """One compaction's summarization calls: builds requests, times them, reports progress, collects notes."""

    def __init__(
        self,
        summarizer: Summarizer,
        settings: CompactionSettings,
        progress: Progress | None,
        window: int,
        style: SummaryStyle | None = None,
    ) -> None:
        self.summarizer = summarizer
        self.settings = settings
        self.progress = progress
        self.window = window
        self.timings: dict[str, float] = {}
        self.notes: list[str] = []
        self.degraded: Degraded = "none"
        self.style = style or settings_style(settings)
        self.prompt_name = self.style.prompt_name
        self.max_tokens = math.floor(0.8 * settings.reserveTokens)
        # whether the summarizer reads the request's prompt text (the extractive one reads the messages only)
        self.reads_text = summarizer.reads_text

    def note(self, text: str) -> None:
        """Add a note for the person reviewing the proposal."""
        self.notes.append(text)

    def emit(self, stage: str, part: int | None = None, parts: int | None = None, detail: str = "") -> None:
        """Report a step to the progress callback; a failing callback becomes a note."""
        if self.progress is not None:
            try:
                self.progress(ProgressEvent(stage=stage, part=part, parts=parts, detail=detail))
            except Exception as exc:
                self.notes.append(f"progress callback failed: {type(exc).__name__}: {exc}")

    def degrade(self, level: Literal["partial", "annotation"]) -> None:
        """Lower the proposal's quality level to `level` unless it is lower already."""
        order = {"none": 0, "partial": 1, "annotation": 2}
        if order[level] > order[self.degraded]:
            self.degraded = level

    async def call(self, stage: str, request: SummaryRequest) -> str:
        """One summarizer call, timed under `stage`."""
        started = time.perf_counter()
        try:
            text = await self.summarizer.summarize(request)
            # Qwen Code drops the <analysis> scratchpad its prompt asks for before the summary reaches the agent
            return qwen_summary_text(text) if request.prompt_name == "qwen-code" else text
        finally:
            self.timings[stage] = self.timings.get(stage, 0.0) + time.perf_counter() - started

    def history_request(self, messages: Sequence[Message], previous: str | None, custom: str | None) -> SummaryRequest:
        """A history (or, with a previous summary, an update) request for `messages` (its text only for a summarizer that reads it)."""
        kind: Literal["update", "history"] = "update" if previous else "history"
        text = (
            build_prompt_text(
                kind,
                serialize_conversation(messages, self.style.serialize),
                previous_summary=previous,
                custom_instructions=custom,
                prompt_name=self.prompt_name,
            )
            if self.reads_text
            else ""
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
        """A request merging partial summaries into one."""
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
        """pi's request for a split turn's prefix."""
        text = (
            build_prompt_text("turn_prefix", serialize_conversation(messages, self.style.serialize))
            if self.reads_text
            else ""
        )
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
        self, stage: str, messages: Sequence[Message], previous: str | None, custom: str | None, max_chunk: int
    ) -> str:
        """Summarize in chunks of at most `max_chunk` tokens, each chunk updating the summary of the ones before.

        The chunks are cut as they are summarized (one held at a time): a span read a slice
        at a time is not held whole.
        """
        if not messages:
            return previous or NO_PRIOR_HISTORY
        pieces = iter_chunks_by_max_tokens(messages, max_chunk, chars4_tokens)
        summary = previous
        for done, piece in enumerate(pieces):
            try:
                summary = await self.call(stage, self.history_request(piece, summary, custom))
            except SummarizerError as exc:
                if done == 0 or summary is None:
                    raise
                total = done + 1 + sum(1 for _ in pieces)
                partial = (
                    f"{summary}\n\n[Partial summary: chunks 1-{done} of {total} were summarized. "
                    f"Chunks {done + 1}-{total} could not be processed.]"
                )
                raise _PartialFailure(str(exc), partial) from exc
        return summary or NO_PRIOR_HISTORY

    async def with_fallback(
        self, stage: str, messages: Sequence[Message], previous: str | None, custom: str | None, max_chunk: int
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

    def max_chunk(self, messages: Sequence[Message]) -> int:
        """The configured chunk size, else OpenClaw's adaptive one for these messages and the window."""
        if self.settings.maxChunkTokens:
            return self.settings.maxChunkTokens
        return max_chunk_tokens(messages, self.window, chars4_tokens)

    def needs_stages(self, messages: Sequence[Message]) -> bool:
        """Whether the messages are too big for one pass."""
        return total_tokens(messages, chars4_tokens) > self.max_chunk(messages)

    async def staged(self, stage: str, messages: Sequence[Message], previous: str | None, custom: str | None) -> str:
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

        import asyncio  # here: a plan imports this module (its release's summary flow) but runs nothing

        partials = list(await asyncio.gather(*(part(i, c) for i, c in enumerate(splits))))
        self.emit(f"{stage}.merge", detail=f"merging {len(partials)} partial summaries")
        request = self.merge_request(partials, previous, custom)
        try:
            return await self.call(f"{stage}.merge", request)
        except SummarizerError as exc:
            self.notes.append(f"{stage}: merging the partial summaries failed: {exc}")
            self.degrade("partial")
            return "\n\n".join(partials)
