"""SQL LIKE patterns that match a person's text literally (`_` and `%` are wildcards to SQL, not to people)."""

from __future__ import annotations

LIKE_ESCAPE = "\\"


def like_prefix(text: str) -> str:
    """A LIKE pattern matching values that start with `text` exactly; use it with `ESCAPE '\\'`."""
    escaped = text.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2).replace("%", LIKE_ESCAPE + "%").replace("_", LIKE_ESCAPE + "_")
    return escaped + "%"
