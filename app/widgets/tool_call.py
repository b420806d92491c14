"""A tool call's arguments as a person reads them: text as text, an edit as a diff.

Why: the detail pane showed arguments as JSON with their strings escaped, so an `edit`'s
oldText/newText was a wall of `\\n\\t\\t\\t`. Multi-line strings are shown as the text they
are, under their key; an edit (old -> new, pi's `oldText`/`newText`, Claude Code's
`old_string`/`new_string`, one or a list of them) as a unified diff.
"""

from __future__ import annotations

import difflib
import json
from typing import Any, Literal, NamedTuple

# the argument names of one replacement, as pi and Claude Code call them
_EDIT_KEYS = (("oldText", "newText"), ("old_string", "new_string"))


class Piece(NamedTuple):
    """One part of the arguments' display: a `key: value` line, a block of text under its key, JSON, or a diff."""

    kind: Literal["line", "text", "json", "diff"]
    label: str
    body: str


def _edit_pair(value: Any) -> tuple[str, str] | None:
    if not isinstance(value, dict):
        return None
    for old_key, new_key in _EDIT_KEYS:
        old, new = value.get(old_key), value.get(new_key)
        if isinstance(old, str) and isinstance(new, str):
            return old, new
    return None


def edit_diff(old: str, new: str, name: str = "") -> str:
    """A unified diff of one replacement (old -> new), without the file header lines."""
    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3)
    return "\n".join(line for line in lines if not line.startswith(("---", "+++")))


def tool_call_pieces(arguments: Any) -> list[Piece]:
    """The arguments of a tool call as pieces to show, in their order."""
    if not isinstance(arguments, dict):
        return [Piece("json", "", _json(arguments))]
    pieces: list[Piece] = []
    edit = _edit_pair(arguments)
    edit_keys = {key for pair in _EDIT_KEYS for key in pair} if edit is not None else set()
    for key, value in arguments.items():
        if key in edit_keys:
            continue
        edits = value if key == "edits" and isinstance(value, list) else None
        if edits and all(_edit_pair(item) is not None for item in edits):
            for n, item in enumerate(edits, start=1):
                old, new = _edit_pair(item) or ("", "")
                pieces.append(Piece("diff", f"edit {n} of {len(edits)}", edit_diff(old, new)))
        elif isinstance(value, str) and "\n" in value:
            pieces.append(Piece("text", key, value))
        elif isinstance(value, str | int | float | bool) or value is None:
            pieces.append(Piece("line", key, value if isinstance(value, str) else json.dumps(value)))
        else:
            pieces.append(Piece("json", key, _json(value)))
    if edit is not None:
        pieces.append(Piece("diff", "edit", edit_diff(*edit)))
    return pieces


def _json(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)
