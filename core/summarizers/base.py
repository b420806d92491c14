"""The summarizer interface: one async call from a request to summary text."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidatorFunctionWrapHandler, WrapValidator

from cutline.core.models import Message

RequestKind = Literal["history", "update", "turn_prefix", "merge"]


def _lazy_as_given(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """A lazy sequence of messages (core.engine.span's `MessageSpan`) as given; a list (or dicts) validated."""
    if isinstance(value, Sequence) and not isinstance(value, list | tuple | str | bytes):
        return value
    return handler(value)


class SummaryRequest(BaseModel):
    """Everything a summarizer may use; LLM summarizers send `system_prompt` + `prompt_text`,
    the extractive one reads `messages`, `previous_summary` and `partial_summaries` directly.

    A lazy `messages` sequence is taken as given, not validated into a list: the summarized
    span of a long session is a `MessageSpan` read a slice at a time (core.engine.span),
    and a list of its 100,000 messages is what it avoids. A summarizer that does not read `prompt_text`
    (`reads_text` False) gets it empty.
    """

    model_config = ConfigDict(defer_build=True)  # built by the first request, not by every command importing the engine

    kind: RequestKind = "history"
    prompt_name: str = "pi-checkpoint"
    system_prompt: str = ""
    prompt_text: str = ""
    messages: Annotated[Sequence[Message], WrapValidator(_lazy_as_given)] = Field(default_factory=list)
    previous_summary: str | None = None
    partial_summaries: list[str] = Field(default_factory=list)
    custom_instructions: str | None = None
    max_tokens: int = 13107


class Summarizer(ABC):
    """Turns a request into summary text. Cancel by cancelling the awaiting task."""

    name: str = "summarizer"
    model: str | None = None
    # whether it reads the request's `prompt_text` (else the engine does not serialize the conversation for it)
    reads_text: bool = True

    @abstractmethod
    async def summarize(self, request: SummaryRequest) -> str:
        """Return the summary text or raise core.errors.SummarizerError."""
