"""Triggers at their boundaries: shouldCompact, window guard, reserve floor, memory flush, overflow errors, history share."""

from __future__ import annotations

import pytest

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.modes import reserve_for
from cutline.core.engine.triggers import (
    context_window_for_model,
    effective_reserve_tokens,
    guard_context_window,
    history_share,
    is_context_overflow_error,
    memory_flush_threshold,
    overflow_errors,
    resolve_context_window,
    should_compact,
    should_run_memory_flush,
)
from cutline.core.models import Entry, Message


def test_should_compact_is_strictly_greater() -> None:
    threshold = 200000 - 16384
    assert not should_compact(threshold, 200000, 16384)
    assert should_compact(threshold + 1, 200000, 16384)
    assert not should_compact(threshold + 1, 200000, 16384, enabled=False)


def test_context_window_guard_limits() -> None:
    assert guard_context_window(15999).shouldBlock
    assert not guard_context_window(16000).shouldBlock and guard_context_window(16000).shouldWarn
    assert guard_context_window(31999).shouldWarn
    assert not guard_context_window(32000).shouldWarn
    assert not guard_context_window(0).shouldBlock  # unknown, not tiny


def test_window_from_config_then_model_then_default() -> None:
    assert resolve_context_window(CompactionSettings(contextWindow=50000), "claude-sonnet-4-5").source == "config"
    resolved = resolve_context_window(CompactionSettings(), "anthropic/claude-sonnet-4-5-20250929")
    assert (resolved.tokens, resolved.source) == (200000, "model")
    assert resolve_context_window(CompactionSettings(), "gpt-4o").tokens == 128000
    fallback = resolve_context_window(CompactionSettings(), "some-local-model")
    assert (fallback.tokens, fallback.source) == (200000, "default")
    assert context_window_for_model(None) is None


def test_reserve_floor() -> None:
    assert effective_reserve_tokens(16384, 20000) == 20000
    assert effective_reserve_tokens(30000, 20000) == 30000
    assert effective_reserve_tokens(16384, 0) == 16384  # floor 0 disables
    assert reserve_for(CompactionSettings(mode="pi")) == 16384  # pi alone has no floor
    assert reserve_for(CompactionSettings(mode="safeguard")) == 20000


def test_memory_flush_threshold_and_once_per_compaction() -> None:
    assert memory_flush_threshold(200000, 20000, 4000) == 176000
    assert not should_run_memory_flush(175999, 200000, 20000, 4000)
    assert should_run_memory_flush(176000, 200000, 20000, 4000)
    assert not should_run_memory_flush(180000, 200000, 20000, 4000, compaction_count=2, memory_flush_compaction_count=2)
    assert should_run_memory_flush(180000, 200000, 20000, 4000, compaction_count=3, memory_flush_compaction_count=2)
    assert not should_run_memory_flush(0, 200000, 20000, 4000)
    assert not should_run_memory_flush(None, 200000, 20000, 4000)
    assert not should_run_memory_flush(10**6, 20000, 20000, 4000)  # threshold <= 0


@pytest.mark.parametrize(
    "text",
    [
        "prompt is too long: 210000 tokens > 200000 maximum",
        "Your input exceeds the context window of this model",
        "Error code: 400 - {'error': {'code': 'context_length_exceeded'}}",
        "This model's maximum context length is 128000 tokens",
        "Input is too long for requested model.",
        "413 request_too_large",
    ],
)
def test_overflow_errors_are_recognized(text: str) -> None:
    assert is_context_overflow_error(text)


@pytest.mark.parametrize(
    "text", ["", None, "rate limit exceeded", "overloaded_error", "413 too large: tokens per minute (TPM)"]
)
def test_other_errors_are_not_overflow(text: str | None) -> None:
    assert not is_context_overflow_error(text)


def test_overflow_errors_in_a_path_need_an_error_stop_reason() -> None:
    def entry(i: int, **message: object) -> Entry:
        return Entry(id=f"e{i}", type="message", message=Message.model_validate({"role": "assistant", **message}))

    path = [
        entry(0, stopReason="error", errorMessage="prompt is too long"),
        entry(1, stopReason="stop", errorMessage="prompt is too long"),
        entry(2, stopReason="error", errorMessage="overloaded"),
    ]
    assert overflow_errors(path) == [0]


def test_history_share_boundary() -> None:
    assert history_share(100000, 200000, 0.5).budgetTokens == 100000
    assert not history_share(100000, 200000, 0.5).exceeds
    assert history_share(100001, 200000, 0.5).exceeds
