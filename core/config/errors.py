"""Validation problems in words a person can act on, for one-line errors that name the key."""

from __future__ import annotations

from typing import Any

_BOUNDS = {"greater_than_equal": ">=", "greater_than": ">", "less_than_equal": "<=", "less_than": "<"}
_PREFIXES = (
    ("int_", "must be a whole number"),
    ("float_", "must be a number"),
    ("bool_", "must be true or false"),
    ("list_", "must be a list"),
    ("string_", "must be a string"),
)


def _choices(expected: str) -> str:
    """pydantic's `'a', 'b' or 'c'` as `a, b, c`."""
    return expected.replace("'", "").replace(" or ", ", ")


def describe(error: Any) -> str:
    """What is wrong with the value of one pydantic error (its key is named by the caller)."""
    kind = str(error.get("type", ""))
    ctx = error.get("ctx") or {}
    if kind in _BOUNDS:
        bound = next(iter(ctx.values()), "?")
        shown = f"{bound:g}" if isinstance(bound, int | float) else str(bound)
        return f"must be {_BOUNDS[kind]} {shown}"
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "literal_error":
        return f"must be one of {_choices(str(ctx.get('expected', '')))}"
    if kind == "value_error":
        return str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    if kind == "string_too_short":
        return "must not be empty"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return "must be a table of settings"
    for prefix, text in _PREFIXES:
        if kind.startswith(prefix):
            return text
    return str(error.get("msg", "invalid value"))
