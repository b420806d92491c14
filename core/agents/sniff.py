"""Recognizing a session file's agent from its first records that parse, wherever they are in the file.

Lines that do not parse (noise, a flipped byte, binary garbage, blank lines) are passed
over, not held against the file: the reader reports each of them. Only a file in which
no line is a record of a known shape is refused, with one line saying what it is instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cutline.core.agents.adapter import AgentAdapter
from cutline.core.agents.jsonl import Lines, decode_text, split_lines
from cutline.core.agents.registry import detect
from cutline.core.errors import FormatError
from cutline.core.models import SessionFormat

# JSON objects of no known shape read before the file is taken for something else
_MAX_UNKNOWN_OBJECTS = 100
# how much of the text that does not parse is looked at to call a file binary
_BINARY_SAMPLE = 64 * 1024


def sniff_lines(lines: Lines, file: str) -> AgentAdapter:
    """The adapter for a file split into `lines`; FormatError when no line is a record of a known shape."""
    if not lines.lines:
        raise FormatError(f"{file}: empty file")
    first_object: dict[str, Any] | None = None
    first_error: int | None = None
    unknown = 0
    sample: list[str] = []
    sampled = 0
    for number, text in lines.lines:
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            if first_error is None:
                first_error = number
            if sampled < _BINARY_SAMPLE:
                sample.append(text[: _BINARY_SAMPLE - sampled])
                sampled += len(sample[-1])
            continue
        if type(value) is not dict:
            continue
        adapter = detect(value)
        if adapter is not None:
            return adapter
        if first_object is None:
            first_object = value
        unknown += 1
        if unknown >= _MAX_UNKNOWN_OBJECTS:
            break
    if first_object is not None:
        kind = first_object.get("type")
        keys = ", ".join(sorted(first_object)[:8])
        shown = f"type {kind!r}" if isinstance(kind, str) else "no 'type'"
        raise FormatError(f"{file}: JSON of no known session format (first record has {shown}; keys: {keys})")
    text = "".join(sample)
    if "\x00" in text:
        raise FormatError(f"{file}: binary file (contains NUL bytes), not a session transcript")
    if text.count("\ufffd") > max(8, len(text) // 10):
        raise FormatError(f"{file}: binary file (mostly not UTF-8 text), not a session transcript")
    if first_error is not None:
        raise FormatError(f"{file}: not a JSON Lines session transcript (line {first_error} is not JSON)")
    raise FormatError(f"{file}: no JSON objects, not a session transcript")


def sniff(path: str | Path) -> SessionFormat:
    """The format of the session file at `path` ("pi", "claude_code", "codex", "openclaw" or "qwen_code").

    Raises FormatError for an unreadable, empty or binary file, or one with no record of a known shape.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FormatError(f"{path}: cannot read ({exc.strerror or exc})") from None
    text, _ = decode_text(data)
    return sniff_lines(split_lines(text, str(path)), str(path)).format
