"""Summarizers: anything that turns a summarization request into text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cutline.core import choices
from cutline.core.errors import CutlineError
from cutline.core.summarizers.base import Summarizer, SummaryRequest

if TYPE_CHECKING:
    from cutline.core.config.settings import CompactionSettings

SUMMARIZERS = choices.SUMMARIZERS  # listed once, in core.choices


def get_summarizer(name: str = "extractive", **kwargs: Any) -> Summarizer:
    """The summarizer called `name`, built with `kwargs` (e.g. model=, timeout= for anthropic).

    Options given as None are ignored so a CLI can pass its flags straight through.
    """
    options = {k: v for k, v in kwargs.items() if v is not None}
    if name == "extractive":
        from cutline.core.summarizers.extractive import ExtractiveSummarizer

        options.pop("model", None)
        if options:
            raise CutlineError(f"the extractive summarizer takes no options (got {', '.join(sorted(options))})")
        return ExtractiveSummarizer()
    if name == "anthropic":
        from cutline.core.summarizers.anthropic import AnthropicSummarizer

        try:
            return AnthropicSummarizer(**options)
        except TypeError:
            raise CutlineError(
                f"unknown option for the anthropic summarizer (got {', '.join(sorted(options))})"
            ) from None
    if name == "openai":
        from cutline.core.summarizers.openai_api import OpenAISummarizer

        try:
            return OpenAISummarizer(**options)
        except TypeError:
            raise CutlineError(f"unknown option for the openai summarizer (got {', '.join(sorted(options))})") from None
    raise CutlineError(f"unknown summarizer {name!r} (known: {', '.join(SUMMARIZERS)})")


def summarizer_for(settings: CompactionSettings) -> Summarizer:
    """The summarizer the settings name, with their model, per-request timeout and retries where it takes them."""
    if settings.summarizer == "anthropic":
        return get_summarizer(
            settings.summarizer,
            model=settings.model,
            timeout=settings.requestTimeoutSeconds,
            max_retries=settings.maxRetries,
        )
    if settings.summarizer == "openai":
        return get_summarizer(
            "openai",
            model=settings.model,
            base_url=settings.baseUrl,
            api=settings.api,
            timeout=settings.requestTimeoutSeconds,
            max_retries=settings.maxRetries,
        )
    return get_summarizer(settings.summarizer, model=settings.model)


__all__ = ["SUMMARIZERS", "Summarizer", "SummaryRequest", "get_summarizer", "summarizer_for"]
