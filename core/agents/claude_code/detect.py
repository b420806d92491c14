"""Whether a parsed record is a Claude Code transcript record."""

from __future__ import annotations

from typing import Any

CLAUDE_CODE_TYPES = frozenset(
    {"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation", "progress", "attachment"}
)
_IDENTITY_KEYS = ("uuid", "sessionId", "leafUuid", "messageId")


def is_claude_code_record(value: dict[str, Any]) -> bool:
    """A record of a type Claude Code writes that carries one of its identity keys."""
    return value.get("type") in CLAUDE_CODE_TYPES and any(key in value for key in _IDENTITY_KEYS)
