"""Whether a parsed record is a Codex rollout record."""

from __future__ import annotations

from typing import Any

CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
# response items as early Codex rollouts wrote them, without an envelope
_BARE_ITEMS = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
    }
)


def is_codex_record(value: dict[str, Any]) -> bool:
    """An enveloped rollout record, a bare response item of an early rollout, or an early rollout's first line."""
    kind = value.get("type")
    if not isinstance(kind, str):
        return isinstance(value.get("id"), str) and "instructions" in value and "timestamp" in value
    if "payload" in value and kind in CODEX_TYPES:
        return True
    return (
        kind in _BARE_ITEMS
        and "payload" not in value
        and ("role" in value or kind != "message")
        and "message" not in value
    )
