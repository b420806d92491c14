"""Turns around a compaction: OpenClaw's pre-compaction memory flush and the post-compaction recovery turn.

The memory flush gives the agent one silent turn to write durable notes to disk
before history is summarized; the recovery turn (OpenClaw issue #3452,
`memory.postCompaction`) tells it afterwards to read them back. Both are optional
parts of a proposal: cutline shows them, the agent runs them.
"""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict

from cutline.core.config.settings import (
    DEFAULT_MEMORY_FLUSH_PROMPT,
    DEFAULT_MEMORY_FLUSH_SYSTEM_PROMPT,
    DEFAULT_POST_COMPACTION_PROMPT,
    MemoryFlushSettings,
    PostCompactionSettings,
)
from cutline.core.models import Message, TextBlock

DATE_PLACEHOLDER = "YYYY-MM-DD"


def with_date(prompt: str, date: dt.date) -> str:
    """Every `YYYY-MM-DD` replaced by the date, trailing whitespace removed (OpenClaw's prompt resolution)."""
    return prompt.replace(DATE_PLACEHOLDER, date.isoformat()).rstrip()


class MemoryFlushTurn(BaseModel):
    """The flush turn the agent runs before the compaction: a user prompt and a system prompt addition."""

    model_config = ConfigDict(defer_build=True)

    prompt: str
    system_prompt: str


def should_run_post_compaction(settings: PostCompactionSettings, compacted: bool) -> bool:
    """Run the recovery turn only when it is enabled, has a prompt, and a compaction really happened."""
    return settings.enabled and compacted and bool(settings.prompt.strip())


def build_post_compaction_turn(settings: PostCompactionSettings, date: dt.date) -> Message:
    """The recovery turn, a user message with the configured prompt and today's date filled in."""
    prompt = settings.prompt.strip() or DEFAULT_POST_COMPACTION_PROMPT
    return Message(role="user", content=[TextBlock(text=with_date(prompt, date))])


def build_memory_flush_turn(settings: MemoryFlushSettings, date: dt.date) -> MemoryFlushTurn:
    """The flush prompts with the date filled in; blank configured prompts fall back to OpenClaw's defaults."""
    prompt = settings.prompt.strip() or DEFAULT_MEMORY_FLUSH_PROMPT
    system_prompt = settings.systemPrompt.strip() or DEFAULT_MEMORY_FLUSH_SYSTEM_PROMPT
    return MemoryFlushTurn(prompt=with_date(prompt, date), system_prompt=with_date(system_prompt, date))
