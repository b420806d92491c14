"""Which agent wrote a parsed record: one cheap test per agent, with nothing imported but the standard library.

`registry.detect` asks these tests in this order and hands back the agent's adapter;
`head_format` tells a file's format from its head without importing any agent's
package (its reader, writer, context), so a command on one agent's file imports only
that agent. Each agent's `detect` module re-exports its test from here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cutline.core.agents.peek import head_records, head_text

# --- Codex -----------------------------------------------------------------

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


# --- Qwen Code -------------------------------------------------------------

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


# --- Claude Code -----------------------------------------------------------

CLAUDE_CODE_TYPES = frozenset(
    {"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation", "progress", "attachment"}
)
_IDENTITY_KEYS = ("uuid", "sessionId", "leafUuid", "messageId")


def is_claude_code_record(value: dict[str, Any]) -> bool:
    """A record of a type Claude Code writes that carries one of its identity keys."""
    return value.get("type") in CLAUDE_CODE_TYPES and any(key in value for key in _IDENTITY_KEYS)


# --- OpenClaw --------------------------------------------------------------

# the first session-header version OpenClaw writes and pi does not
FIRST_OPENCLAW_VERSION = 4


def is_openclaw_record(value: dict[str, Any]) -> bool:
    """A pi-style session header of version 4 or later (OpenClaw's JSONL transcripts)."""
    version = value.get("version")
    return (
        value.get("type") == "session"
        and isinstance(version, int)
        and not isinstance(version, bool)
        and version >= FIRST_OPENCLAW_VERSION
    )


# --- pi --------------------------------------------------------------------

# every pi entry type the model knows (`models.EntryType` but "other", which is ours for records
# of no known type; a test keeps the two the same)
PI_ENTRY_TYPES = frozenset(
    {
        "message",
        "thinking_level_change",
        "model_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
        "context_edit",
        "usage",
    }
)


def is_pi_record(value: dict[str, Any]) -> bool:
    """A pi session header, or a pi entry (no Claude Code `uuid`, no Codex `payload`)."""
    kind = value.get("type")
    if kind == "session":
        return True
    return kind in PI_ENTRY_TYPES and "uuid" not in value and "payload" not in value


def _never(value: dict[str, Any]) -> bool:
    return False


# Codex before Qwen Code before Claude Code before pi: their record types overlap ("message", "user");
# OpenClaw before pi: its header is pi's with a newer version. opencode is a SQLite store only: it
# claims no JSONL record. The order of `registry.ADAPTERS` (a test keeps the two the same).
DETECTORS = (
    ("codex", is_codex_record),
    ("qwen_code", is_qwen_code_record),
    ("claude_code", is_claude_code_record),
    ("openclaw", is_openclaw_record),
    ("pi", is_pi_record),
    ("opencode", _never),
)


def detect_format(record: dict[str, Any]) -> str | None:
    """The format of one parsed record, or None when its shape is not known."""
    for fmt, test in DETECTORS:
        if test(record):
            return fmt
    return None


def head_format(path: Path) -> str | None:
    """The format of the first record at the head of the file an agent knows (None: none does, or no record)."""
    for record in head_records(head_text(path)):
        fmt = detect_format(record)
        if fmt is not None:
            return fmt
    return None
