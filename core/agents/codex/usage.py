"""Codex's recorded usage (a `token_count` event's `last_token_usage`) in the neutral model's names."""

from __future__ import annotations

from typing import Any

from cutline.core.models import Usage


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def usage_from_last(last: dict[str, Any]) -> Usage:
    """OpenAI usage in pi's names: cached input is cacheRead, input written to the cache cacheWrite, the rest input.

    `input_tokens` counts all three (OpenAI's convention), so the parts are taken out of it.
    """
    cached = _int(last.get("cached_input_tokens"))
    written = _int(last.get("cache_write_input_tokens"))
    total_input = _int(last.get("input_tokens"))
    output = _int(last.get("output_tokens"))
    total = _int(last.get("total_tokens")) or total_input + output
    return Usage(
        input=max(total_input - cached - written, 0),
        output=output,
        cacheRead=cached,
        cacheWrite=written,
        totalTokens=total,
    )
