"""Codex's recorded usage (a `token_count` event's `last_token_usage`) in the neutral model's names."""

from __future__ import annotations

from typing import Any

from cutline.core.models import Usage


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def usage_from_last(last: dict[str, Any]) -> Usage:
    """OpenAI usage in pi's names: cached input is cacheRead, the rest of the input is input."""
    cached = _int(last.get("cached_input_tokens"))
    total_input = _int(last.get("input_tokens"))
    output = _int(last.get("output_tokens"))
    total = _int(last.get("total_tokens")) or total_input + output
    return Usage(input=max(total_input - cached, 0), output=output, cacheRead=cached, cacheWrite=0, totalTokens=total)
