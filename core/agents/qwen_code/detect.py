"""Whether a parsed record is a Qwen Code chat record (`~/.qwen/projects/<cwd>/chats/<sessionId>.jsonl`)."""

from __future__ import annotations

from typing import Any

QWEN_TYPES = frozenset({"user", "assistant", "tool_result", "system"})


def is_qwen_code_record(value: dict[str, Any]) -> bool:
    """A chat record: Claude Code's record types and keys, but Gemini-style `parts` or a `systemPayload`.

    Claude Code's messages carry `content`, never `parts`, and it writes no `tool_result`
    records nor `systemPayload`; Qwen Code marks every record with a `provenance`.
    """
    kind = value.get("type")
    if kind not in QWEN_TYPES or "uuid" not in value or "sessionId" not in value:
        return False
    message = value.get("message")
    if isinstance(message, dict) and isinstance(message.get("parts"), list):
        return True
    return kind == "tool_result" or isinstance(value.get("systemPayload"), dict) or "provenance" in value
