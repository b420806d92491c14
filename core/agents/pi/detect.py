"""Whether a parsed record is a pi session record."""

from __future__ import annotations

from typing import Any, get_args

from cutline.core.models import EntryType

# every pi entry type the model knows; "other" is ours, for records of no known type
PI_ENTRY_TYPES = frozenset(get_args(EntryType)) - {"other"}


def is_pi_record(value: dict[str, Any]) -> bool:
    """A pi session header, or a pi entry (no Claude Code `uuid`, no Codex `payload`)."""
    kind = value.get("type")
    if kind == "session":
        return True
    return kind in PI_ENTRY_TYPES and "uuid" not in value and "payload" not in value
