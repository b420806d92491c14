"""The summarizer interface: one async call from a request to summary text."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Literal

from pydantic import BaseModel, Field

from cutline.core.models import Message

RequestKind = Literal["history", "update", "turn_prefix", "merge"]


class SummaryRequest(BaseModel):
    """Everything a summarizer may use; LLM summarizers send `system_prompt` + `prompt_text`,
    the extractive one reads `messages`, `previous_summary` and `partial_summaries` directly."""

    kind: RequestKind = "history"
    prompt_name: str = "pi-checkpoint"
    system_prompt: str = ""
    prompt_text: str = ""
    messages: list[Message] = Field(default_factory=list)
    previous_summary: str | None = None
    partial_summaries: list[str] = Field(default_factory=list)
    custom_instructions: str | None = None
    max_tokens: int = 13107


class Summarizer(ABC):
    """Turns a request into summary text. Cancel by cancelling the awaiting task."""

    name: str = "summarizer"
    model: str | None = None

    @abstractmethod
    async def summarize(self, request: SummaryRequest) -> str:
        """Return the summary text or raise core.errors.SummarizerError."""
