"""When a compaction (or the memory flush before it) should run, and how big the context window is.

Constants and comparisons follow pi (`shouldCompact` is strictly greater) and
OpenClaw (window guard, reserve floor, memory-flush threshold, overflow errors).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from cutline.core.config.settings import CompactionSettings
from cutline.core.models import Entry, Message

DEFAULT_CONTEXT_WINDOW = 200_000
CONTEXT_WINDOW_HARD_MIN_TOKENS = 16_000
CONTEXT_WINDOW_WARN_BELOW_TOKENS = 32_000
DEFAULT_RESERVE_TOKENS_FLOOR = 20_000

# Known context windows by model-id prefix (longest prefix wins).
KNOWN_CONTEXT_WINDOWS: dict[str, int] = {
    "claude-": 200_000,
    "claude-sonnet-4-5": 200_000,
    "claude-sonnet-4": 200_000,
    "claude-opus-4": 200_000,
    "claude-haiku-4": 200_000,
    "claude-3": 200_000,
    "gpt-4o": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-4-turbo": 128_000,
    "gpt-4": 8_192,
    "gpt-3.5-turbo": 16_385,
    "gpt-5": 400_000,
    "o1": 200_000,
    "o3": 200_000,
    "o4-mini": 200_000,
    "codex-mini": 200_000,
    "gemini-1.5-pro": 2_097_152,
    "gemini-1.5-flash": 1_048_576,
    "gemini-2.0": 1_048_576,
    "gemini-2.5": 1_048_576,
    "deepseek": 128_000,
}

WindowSource = Literal["config", "model", "default"]


def should_compact(context_tokens: int, context_window: int, reserve_tokens: int, enabled: bool = True) -> bool:
    """pi's trigger: the context is strictly greater than window minus reserve."""
    return enabled and context_tokens > context_window - reserve_tokens


def effective_reserve_tokens(reserve_tokens: int, reserve_tokens_floor: int = DEFAULT_RESERVE_TOKENS_FLOOR) -> int:
    """OpenClaw raises pi's reserve to at least the floor; a floor of 0 turns that off."""
    if reserve_tokens_floor <= 0:
        return reserve_tokens
    return max(reserve_tokens, reserve_tokens_floor)


def context_window_for_model(model: str | None) -> int | None:
    """The context window of a known model id (provider prefixes like `anthropic/` are ignored)."""
    if not model:
        return None
    name = model.split("/")[-1].lower()
    best: str | None = None
    for prefix in KNOWN_CONTEXT_WINDOWS:
        if name.startswith(prefix) and (best is None or len(prefix) > len(best)):
            best = prefix
    return KNOWN_CONTEXT_WINDOWS[best] if best else None


class ContextWindow(BaseModel):
    """A resolved context window, where it came from and what OpenClaw's guard says about it."""

    model_config = ConfigDict(defer_build=True)

    tokens: int
    source: WindowSource
    shouldWarn: bool
    shouldBlock: bool


def guard_context_window(tokens: int, source: WindowSource = "default") -> ContextWindow:
    """OpenClaw's context-window guard: block below 16000 tokens, warn below 32000."""
    return ContextWindow(
        tokens=tokens,
        source=source,
        shouldWarn=0 < tokens < CONTEXT_WINDOW_WARN_BELOW_TOKENS,
        shouldBlock=0 < tokens < CONTEXT_WINDOW_HARD_MIN_TOKENS,
    )


def resolve_context_window(settings: CompactionSettings | None = None, model: str | None = None) -> ContextWindow:
    """The window from an explicitly configured value, else the model's known window, else 200000."""
    if settings is not None and "contextWindow" in settings.model_fields_set:
        return guard_context_window(settings.contextWindow, "config")
    known = context_window_for_model(model)
    if known is not None:
        return guard_context_window(known, "model")
    fallback = settings.contextWindow if settings is not None else DEFAULT_CONTEXT_WINDOW
    return guard_context_window(fallback, "default")


def memory_flush_threshold(context_window: int, reserve_tokens_floor: int, soft_threshold_tokens: int) -> int:
    """Tokens at which OpenClaw runs its pre-compaction memory flush: window − reserve floor − soft threshold."""
    window = max(1, int(context_window))
    return max(0, window - max(0, int(reserve_tokens_floor)) - max(0, int(soft_threshold_tokens)))


def should_run_memory_flush(
    total_tokens: int | None,
    context_window: int,
    reserve_tokens_floor: int,
    soft_threshold_tokens: int,
    *,
    compaction_count: int = 0,
    memory_flush_compaction_count: int | None = None,
) -> bool:
    """OpenClaw's shouldRunMemoryFlush: at or past the threshold, once per compaction count."""
    if not total_tokens or total_tokens <= 0:
        return False
    threshold = memory_flush_threshold(context_window, reserve_tokens_floor, soft_threshold_tokens)
    if threshold <= 0 or total_tokens < threshold:
        return False
    return memory_flush_compaction_count is None or memory_flush_compaction_count != compaction_count


# Substrings (lower-case) that mark a provider's "your input is bigger than the window" error.
_OVERFLOW_PHRASES = (
    "prompt is too long",
    "prompt too long",
    "input is too long",
    "input too long",
    "exceeds the context window",
    "exceeds model context window",
    "exceeds the model's maximum context",
    "context_length_exceeded",
    "context length exceeded",
    "maximum context length",
    "request_too_large",
    "context_window_exceeded",
    "model token limit",
    "exceed context limit",
    "context overflow:",
)
_OVERFLOW_COMBINED = (
    re.compile(r"input exceeds.*maximum number of tokens"),
    re.compile(r"input length.*exceed.*context"),
    re.compile(r"max_tokens.*exceed.*context"),
    re.compile(r"request size exceeds.*context (?:window|length)"),
)
_RATE_LIMIT_HINT = re.compile(r"\btpm\b|tokens per minute")


def is_context_overflow_error(text: str | None) -> bool:
    """Whether an error text says the prompt did not fit the model's context window."""
    if not text:
        return False
    lower = text.lower()
    if _RATE_LIMIT_HINT.search(lower):
        return False  # Groq reports tokens-per-minute limits with overflow-like wording
    if any(phrase in lower for phrase in _OVERFLOW_PHRASES):
        return True
    return any(pattern.search(lower) for pattern in _OVERFLOW_COMBINED)


def is_overflow_message(message: Message | None) -> bool:
    """An assistant message that ended in a context-overflow error."""
    return (
        message is not None
        and message.role == "assistant"
        and message.stopReason == "error"
        and is_context_overflow_error(message.errorMessage)
    )


def overflow_errors(path: list[Entry]) -> list[int]:
    """Path indices of assistant messages that failed with a context overflow."""
    return [i for i, e in enumerate(path) if e.type == "message" and is_overflow_message(e.message)]


class HistoryShare(BaseModel):
    """OpenClaw's safeguard budget: history may use at most maxHistoryShare of the window."""

    model_config = ConfigDict(defer_build=True)

    historyTokens: int
    budgetTokens: int
    maxHistoryShare: float
    exceeds: bool


def history_share(history_tokens: int, context_window: int, max_history_share: float = 0.5) -> HistoryShare:
    """Whether the history is over its share of the window (OpenClaw prunes the oldest chunks when it is)."""
    budget = max(1, int(context_window * max_history_share))
    return HistoryShare(
        historyTokens=history_tokens,
        budgetTokens=budget,
        maxHistoryShare=max_history_share,
        exceeds=history_tokens > budget,
    )
