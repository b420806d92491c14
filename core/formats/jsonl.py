"""Splitting a JSON Lines file into parsed records, reporting every bad line instead of failing.

Every reader shares this so that line numbers, newline handling and the wording of
problems are the same for pi, Claude Code and Codex files.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from core.models import Problem


class Record(NamedTuple):
    """One line that parsed as a JSON object."""

    line: int  # 1-based line number in the file
    text: str  # the exact line text, without its newline
    value: dict[str, Any]
    index: int  # position among all lines that parsed as JSON (pi's `entries` array index)


class JsonLines(NamedTuple):
    """A file split into records, with the problems found and its newline convention."""

    records: list[Record]
    problems: list[Problem]
    newline: str
    trailing_newline: bool
    line_count: int


def _decode_lines(data: bytes, file: str, problems: list[Problem]) -> list[str | None]:
    """Decode the file as UTF-8 line by line; an undecodable line becomes None and a problem."""
    try:
        return list(data.decode("utf-8").split("\n"))
    except UnicodeDecodeError:
        pass
    out: list[str | None] = []
    for number, chunk in enumerate(data.split(b"\n"), start=1):
        try:
            out.append(chunk.decode("utf-8"))
        except UnicodeDecodeError as exc:
            problems.append(
                Problem(
                    file=file,
                    line=number,
                    message=f"invalid UTF-8 (byte 0x{chunk[exc.start]:02x} at column {exc.start + 1}); line skipped",
                )
            )
            out.append(None)
    return out


def split_records(data: bytes, file: str) -> JsonLines:
    """Parse every line of `data` with `json.loads` once; bad lines become problems, never exceptions."""
    problems: list[Problem] = []
    lines = _decode_lines(data, file, problems)
    trailing_newline = data.endswith(b"\n")
    if trailing_newline:
        lines.pop()
    first = lines[0] if lines else None
    newline = "\r\n" if first is not None and first.endswith("\r") else "\n"
    crlf = newline == "\r\n"
    records: list[Record] = []
    loads = json.loads
    last = len(lines)
    index = 0
    for number, text in enumerate(lines, start=1):
        if text is None:
            continue
        if crlf and text.endswith("\r"):
            text = text[:-1]
        if not text.strip():
            problems.append(Problem(file=file, line=number, message="blank line (skipped)", severity="warning"))
            continue
        try:
            value = loads(text)
        except (ValueError, RecursionError) as exc:
            if number == last and not trailing_newline:
                message = "truncated last line (no newline at end and not valid JSON); line skipped"
            elif isinstance(exc, json.JSONDecodeError):
                message = f"malformed JSON ({exc.msg} at column {exc.colno}); line skipped"
            else:
                message = "malformed JSON (nested too deeply); line skipped"
            problems.append(Problem(file=file, line=number, message=message))
            continue
        if type(value) is not dict:
            problems.append(
                Problem(file=file, line=number, message=f"not a JSON object (a JSON {_json_kind(value)}); line skipped")
            )
            index += 1
            continue
        records.append(Record(number, text, value, index))
        index += 1
    return JsonLines(records, problems, newline, trailing_newline, last)


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"
