"""JavaScript's string length and JSON.stringify, exactly, because pi's figures are built on them.

pi measures text with `.length` (UTF-16 code units) and tool arguments with
`JSON.stringify`; matching pi to the entry means matching both to the character.
"""

from __future__ import annotations

import json
import math
import re
import sys
from decimal import Decimal
from typing import Any

import msgspec

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")


# CPython keeps a str of characters up to U+FFFF in 1 or 2 bytes each, and reports a compact non-ASCII one of n
# characters as this many bytes plus kind * (n + 1) (PEP 393; more when it caches its UTF-8, or is a subclass)
_COMPACT_BASE = sys.getsizeof("\u0100") - 2 * 2
_SIZES_TELL = sys.implementation.name == "cpython" and sys.getsizeof("\xe9") - 2 == _COMPACT_BASE


def js_length(text: str) -> int:
    """Length of `text` as JavaScript's `.length` reports it (UTF-16 code units).

    A str CPython stores in at most 2 bytes a character holds none beyond U+FFFF, so each
    is one code unit (a lone surrogate too): its size tells it without encoding it. Why:
    encoding every non-ASCII text to UTF-16 was ~0.05 s of a 100,000-entry pi import. A str
    of 4-byte characters is never that small; one reported bigger (a UTF-8 copy kept on it)
    is encoded, as before.
    """
    if text.isascii():
        return len(text)
    if _SIZES_TELL and sys.getsizeof(text) <= _COMPACT_BASE + 2 * (len(text) + 1):
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def js_slice(text: str, start: int, end: int | None = None) -> str:
    """`text.slice(start, end)` in UTF-16 units; a surrogate pair cut in half becomes U+FFFD.

    U+FFFD keeps the UTF-16 length pi would have while staying valid Unicode.
    """
    if text.isascii():
        return text[start:end]
    raw = text.encode("utf-16-le", "surrogatepass")
    stop = len(raw) if end is None else 2 * end
    piece = raw[2 * start : stop].decode("utf-16-le", "surrogatepass")
    return _LONE_SURROGATE.sub("\ufffd", piece)


def js_number(value: int | float) -> str:
    """A number formatted as JavaScript's `Number.prototype.toString` would (JSON.stringify uses it)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if -(2**53) <= value <= 2**53:
            return str(value)
        value = float(value)  # JSON.parse in JS rounds big integers to the nearest double
    if math.isnan(value) or math.isinf(value):
        return "null"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits_tuple, exponent = Decimal(repr(abs(value))).as_tuple()[1:]
    digits = "".join(str(d) for d in digits_tuple).lstrip("0")
    trailing = len(digits) - len(digits.rstrip("0"))
    digits = digits.rstrip("0")
    exponent = int(exponent) + trailing
    k = len(digits)
    n = exponent + k  # value = 0.digits * 10**n
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        body = f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + body


def js_string(text: str) -> str:
    """A JSON string literal as JavaScript writes it (non-ASCII kept, lone surrogates escaped)."""
    encoded = json.dumps(text, ensure_ascii=False)
    if not encoded.isascii() and _LONE_SURROGATE.search(encoded):
        # a Python str holds astral characters as one code point, so any surrogate left
        # is lone: JavaScript escapes those as \\udxxx where Python leaves them raw
        encoded = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", encoded)
    return encoded


def js_key_order(obj: dict[str, Any]) -> list[str]:
    """Keys in JavaScript property order: array-index keys ascending, then the rest as inserted."""
    keys = [str(k) for k in obj]
    index_keys = sorted((k for k in keys if _ARRAY_INDEX.fullmatch(k) and int(k) < 2**32 - 1), key=int)
    index_set = set(index_keys)
    return index_keys + [k for k in keys if k not in index_set]


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)
# an integer this large or larger may pass 2**53, past which JavaScript rounds it: the exact path decides
_SAFE_INT = 10**15
# values looked at before the walk gives up on a value (one that refers to itself would never end)
_WALK_BUDGET = 1_000_000


def _differs(value: Any) -> bool:
    """Whether `json`'s compact encoding of `value` may differ from JavaScript's `JSON.stringify`.

    It may where a float is (JavaScript writes `1` for `1.0`, `1e+21`, no NaN), an integer
    near or past 2**53, a key JavaScript orders first (an array index such as "0" or "12";
    any all-digit key is sent to the exact path), a key that is not a string, a lone
    surrogate, or anything but dict, list, str, int, bool and None. Walked over the value
    (with a stack, not recursion: a tool call's arguments may nest 900 levels deep), not
    searched for in its encoding: arguments are mostly long strings, which a pattern
    search had to scan character by character (~0.2 s per 100,000 entries).
    """
    stack = [value]
    budget = _WALK_BUDGET  # a value that refers to itself never ends the walk: the exact path decides
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            if not item.isascii() and _LONE_SURROGATE.search(item) is not None:
                return True
        elif kind is int:
            if not -_SAFE_INT < item < _SAFE_INT:
                return True
        elif kind is dict:
            for key in item:
                if type(key) is not str or key.isdigit() or (not key.isascii() and _LONE_SURROGATE.search(key)):
                    return True
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif item is not None and kind is not bool:
            return True
        budget -= 1
        if budget < 0:
            return True
    return False


def js_stringify(value: Any) -> str:
    """`JSON.stringify(value)` as JavaScript produces it (no spaces, JS number format, JS key order)."""
    if type(value) in (dict, list):
        try:
            if not _differs(value):
                return _COMPACT.encode(value)
        except RecursionError:
            pass
    return js_stringify_exact(value)


_msgspec_encode = msgspec.json.Encoder().encode


def js_stringify_length(value: Any) -> int:
    """`js_length(js_stringify(value))`, without building the string where msgspec writes the same JSON.

    Why: chars4 counts every tool call's arguments this way on import (~45,000 calls per
    100,000 pi entries); the general encoder's string was ~8% of the import's CPU.
    Where `_differs` finds nothing, msgspec writes what `json`'s compact encoder writes
    (the same escapes: a test compares them over every code point), as UTF-8 bytes: for
    ASCII their count is the length, else the UTF-16 length of their decoding.
    """
    if type(value) in (dict, list):
        try:
            if not _differs(value):
                encoded = _msgspec_encode(value)
                return len(encoded) if encoded.isascii() else js_length(encoded.decode("utf-8"))
        except (RecursionError, TypeError, ValueError, OverflowError, UnicodeError):
            pass
    return js_length(js_stringify(value))


def js_stringify_exact(value: Any) -> str:
    """The slow, always-exact path of `js_stringify` (the fast path defers to it when unsure).

    Walked with a stack (punctuation as `_Written` beside the values still to write), so a
    value nested deeper than Python recurses (a line 1,000+ levels deep) is written too.
    """
    out: list[str] = []
    todo: list[Any] = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, _Written):
            out.append(item.text)
        elif isinstance(item, (list, tuple)):
            parts: list[Any] = [_Written("[")]
            for i, child in enumerate(item):
                parts += [_Written(","), child] if i else [child]
            todo += reversed([*parts, _Written("]")])
        elif isinstance(item, dict):
            by_key = {str(k): v for k, v in item.items()}
            parts = [_Written("{")]
            for i, key in enumerate(js_key_order(by_key)):
                parts += [_Written(("," if i else "") + js_string(key) + ":"), by_key[key]]
            todo += reversed([*parts, _Written("}")])
        else:
            out.append(_js_scalar(item))
    return "".join(out)


class _Written:
    """Text already in JavaScript's form, on `js_stringify_exact`'s stack."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _js_scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, str):
        return js_string(value)
    return js_string(str(value))
