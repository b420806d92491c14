"""JSON read and written with an explicit stack, for values nested deeper than `json` recurses (about 1,000 levels).

Why: the agents' own readers (JavaScript's `JSON.parse` in pi and Claude Code) read a line
nested 100,000 levels deep; `json.loads` and `json.dumps` raise RecursionError past Python's
recursion limit. `loads` and `dumps` take the fast C path first and this walk only when it
fails, so their results are exactly `json`'s: the same values (constants such as NaN refused
as the readers refuse them), the same text (`ensure_ascii=False`, no spaces).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = {"null": None, "true": True, "false": False}
_PENDING = object()  # an object's key read, its value not yet
# json's own string reader (C), not in its typed interface: the same strings, escapes and errors as json.loads
scanstring: Callable[[str, int, bool], tuple[str, int]] = vars(json.decoder)["scanstring"]


def loads(text: str, decode: Callable[[str], Any] = json.loads) -> Any:
    """`decode(text)` (json.loads by default); past its recursion, the same value read with a stack."""
    try:
        return decode(text)
    except RecursionError:
        return _loads_iteratively(text)


def _error(message: str, text: str, at: int) -> json.JSONDecodeError:
    return json.JSONDecodeError(message, text, at)


def _loads_iteratively(text: str) -> Any:  # noqa: C901 - one state machine, kept whole
    stack: list[tuple[list[Any] | dict[str, Any], Any]] = []  # (container, key awaiting its value or None)
    at = _WHITESPACE.match(text, 0).end()  # type: ignore[union-attr]
    while True:
        if at >= len(text):
            raise _error("Expecting value", text, at)
        char = text[at]
        value: Any = _PENDING
        if char == "{" or char == "[":
            at = _WHITESPACE.match(text, at + 1).end()  # type: ignore[union-attr]
            closing = "}" if char == "{" else "]"
            if at < len(text) and text[at] == closing:
                value, at = ({} if char == "{" else []), at + 1
            else:
                stack.append(({} if char == "{" else [], None))
                if char == "{":
                    at = _read_key(text, at, stack)
                continue
        elif char == '"':
            value, at = scanstring(text, at + 1, True)
        else:
            number = _NUMBER.match(text, at)
            if number is not None:
                whole, fraction, exponent = number.groups()
                value = float(whole + (fraction or "") + (exponent or "")) if fraction or exponent else int(whole)
                at = number.end()
            else:
                word = next((w for w in _LITERALS if text.startswith(w, at)), None)
                if word is None:
                    raise _error("Expecting value", text, at)
                value, at = _LITERALS[word], at + len(word)
        # a value is complete: put it in its container, closing every container it completes
        while True:
            if not stack:
                end = _WHITESPACE.match(text, at).end()  # type: ignore[union-attr]
                if end != len(text):
                    raise _error("Extra data", text, end)
                return value
            container, key = stack[-1]
            if isinstance(container, dict):
                container[key] = value
            else:
                container.append(value)
            at = _WHITESPACE.match(text, at).end()  # type: ignore[union-attr]
            closing = "}" if isinstance(container, dict) else "]"
            if at < len(text) and text[at] == ",":
                at = _WHITESPACE.match(text, at + 1).end()  # type: ignore[union-attr]
                if isinstance(container, dict):
                    at = _read_key(text, at, stack)
                break
            if at < len(text) and text[at] == closing:
                stack.pop()
                value, at = container, at + 1
                continue
            raise _error(f"Expecting ',' delimiter or '{closing}'", text, at)


def _read_key(text: str, at: int, stack: list[tuple[list[Any] | dict[str, Any], Any]]) -> int:
    """Read `"key" :` at `at` for the object on top of the stack; the index of its value."""
    if at >= len(text) or text[at] != '"':
        raise _error("Expecting property name enclosed in double quotes", text, at)
    key, at = scanstring(text, at + 1, True)
    at = _WHITESPACE.match(text, at).end()  # type: ignore[union-attr]
    if at >= len(text) or text[at] != ":":
        raise _error("Expecting ':' delimiter", text, at)
    stack[-1] = (stack[-1][0], key)
    return _WHITESPACE.match(text, at + 1).end()  # type: ignore[union-attr]


def dumps(value: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, separators=(",", ":"))`, with a stack past its recursion."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except RecursionError:
        return _dumps_iteratively(value)


def _dumps_iteratively(value: Any) -> str:
    out: list[str] = []
    # each item: a value to write, or a str already written out (punctuation)
    todo: list[Any] = [value]
    marker = _Text
    while todo:
        item = todo.pop()
        if isinstance(item, marker):
            out.append(item.text)
        elif isinstance(item, dict):
            parts: list[Any] = [marker("{")]
            for i, (key, child) in enumerate(item.items()):
                if not isinstance(key, str):
                    key = json.dumps(key)
                    key = key if key.startswith('"') else f'"{key}"'
                    parts.append(marker(("," if i else "") + key + ":"))
                else:
                    parts.append(marker(("," if i else "") + json.dumps(key, ensure_ascii=False) + ":"))
                parts.append(child)
            parts.append(marker("}"))
            todo.extend(reversed(parts))
        elif isinstance(item, (list, tuple)):
            parts = [marker("[")]
            for i, child in enumerate(item):
                if i:
                    parts.append(marker(","))
                parts.append(child)
            parts.append(marker("]"))
            todo.extend(reversed(parts))
        else:
            out.append(json.dumps(item, ensure_ascii=False))
    return "".join(out)


class _Text:
    """Punctuation already written out, on the dump's stack beside the values still to write."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text
