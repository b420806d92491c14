"""Claude Code's recorded usage (Anthropic's fields) in the neutral model's names."""

from __future__ import annotations

from typing import Any

from cutline.core.models import Usage


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def usage_fields(usage: dict[str, Any]) -> dict[str, int]:
    """Anthropic usage in pi's names; totalTokens is their sum (what the context held)."""
    fields = {
        "input": _int(usage.get("input_tokens")),
        "output": _int(usage.get("output_tokens")),
        "cacheWrite": _int(usage.get("cache_creation_input_tokens")),
        "cacheRead": _int(usage.get("cache_read_input_tokens")),
    }
    fields["totalTokens"] = sum(fields.values())
    return Usage.model_validate(fields).model_dump()
