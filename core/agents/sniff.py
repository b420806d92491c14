"""Recognizing a session file's format from its first meaningful lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

from cutline.core.errors import FormatError
from cutline.core.models import EntryType, SessionFormat

# every pi entry type the model knows; "other" is ours, for records of no known type
PI_ENTRY_TYPES = frozenset(get_args(EntryType)) - {"other"}
CLAUDE_CODE_TYPES = frozenset(
    {"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation", "progress", "attachment"}
)
CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
# response items as early Codex rollouts wrote them, without an envelope
_BARE_CODEX_ITEMS = frozenset(
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

# how much of a file sniffing looks at
_MAX_LINES = 50
_MAX_BYTES = 8 * 1024 * 1024


def record_format(value: dict[str, Any]) -> SessionFormat | None:
    """The format a single parsed record belongs to, or None when its shape is not known."""
    kind = value.get("type")
    if not isinstance(kind, str):
        # the first line of an early Codex rollout (before records had an envelope)
        if isinstance(value.get("id"), str) and "instructions" in value and "timestamp" in value:
            return "codex"
        return None
    if "payload" in value and kind in CODEX_TYPES:
        return "codex"
    if (
        kind in _BARE_CODEX_ITEMS
        and "payload" not in value
        and ("role" in value or kind != "message")
        and "message" not in value
    ):
        return "codex"
    if kind in CLAUDE_CODE_TYPES and (
        "uuid" in value or "sessionId" in value or "leafUuid" in value or "messageId" in value
    ):
        return "claude_code"
    if kind == "session":
        return "pi"
    if kind in PI_ENTRY_TYPES and "uuid" not in value and "payload" not in value:
        return "pi"
    return None


def sniff_bytes(head: bytes, file: str) -> SessionFormat:
    """The format of a file whose first bytes (whole lines) are `head`; FormatError when there is none."""
    if not head.strip():
        raise FormatError(f"{file}: empty file")
    if b"\x00" in head:
        raise FormatError(f"{file}: binary file (contains NUL bytes), not a session transcript")
    text = head.decode("utf-8", errors="replace")
    if text.count("\ufffd") > max(8, len(text) // 10):
        raise FormatError(f"{file}: binary file (mostly not UTF-8 text), not a session transcript")
    first_object: dict[str, Any] | None = None
    first_error: str | None = None
    seen = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        seen += 1
        if seen > _MAX_LINES:
            break
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            if first_error is None:
                first_error = f"line {number} is not JSON"
            continue
        if not isinstance(value, dict):
            continue
        found = record_format(value)
        if found is not None:
            return found
        if first_object is None:
            first_object = value
    if first_object is not None:
        kind = first_object.get("type")
        keys = ", ".join(sorted(first_object)[:8])
        shown = f"type {kind!r}" if isinstance(kind, str) else "no 'type'"
        raise FormatError(f"{file}: JSON of no known session format (first record has {shown}; keys: {keys})")
    if first_error is not None:
        raise FormatError(f"{file}: not a JSON Lines session transcript ({first_error})")
    raise FormatError(f"{file}: no JSON objects in the first lines, not a session transcript")


def read_head(path: Path) -> bytes:
    """The first whole lines of a file (up to ~50 lines or 8 MiB), enough to sniff it."""
    chunks: list[bytes] = []
    total = 0
    with path.open("rb") as handle:
        for _ in range(_MAX_LINES * 2):
            line = handle.readline()
            if not line:
                break
            chunks.append(line)
            total += len(line)
            if total >= _MAX_BYTES:
                break
    return b"".join(chunks)


def sniff(path: str | Path) -> SessionFormat:
    """The format of the session file at `path`: "pi", "claude_code" or "codex".

    Raises FormatError for an empty, binary or non-JSON file, or JSON of no known shape.
    """
    path = Path(path)
    try:
        head = read_head(path)
    except OSError as exc:
        raise FormatError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return sniff_bytes(head, str(path))
