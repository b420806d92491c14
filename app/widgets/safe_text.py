"""Turn untrusted session text into plain strings that a terminal shows literally.

Session text can hold ANSI escape sequences, control characters and Rich markup;
the desk never interprets any of them. Markup is harmless as long as text is built
with `Text(...)`/`Segment`s (never `from_markup`); control characters are replaced
by their visible Unicode "control picture" so an escape shows as `␛[31m`.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")
_CONTROL_WITH_NEWLINES = re.compile(r"[\x00-\x1f\x7f\x80-\x9f]")
_SPACES = re.compile(r"\s+")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return f"\\x{code:02x}"


def visible(text: str) -> str:
    """Multi-line text with every control character except newline and tab made visible."""
    return _CONTROL.sub(_picture, text.replace("\r\n", "\n"))


def one_line(text: str, limit: int = 400) -> str:
    """The text as one line: whitespace runs collapsed, control characters made visible."""
    head = text[: limit * 4] if len(text) > limit * 4 else text
    head = _SPACES.sub(" ", head.replace("\t", " ")).strip()
    head = _CONTROL_WITH_NEWLINES.sub(_picture, head)
    return head[:limit]


def short_path(path: str) -> str:
    """A path as a person wants to read it: relative to the working directory when inside it, else with ~ for home."""
    import os

    try:
        cwd = os.getcwd()
        if path.startswith(cwd + os.sep):
            return one_line(os.path.relpath(path, cwd), 400)
        home = os.path.expanduser("~")
        if home not in ("", "/") and path.startswith(home + os.sep):
            return one_line("~" + path[len(home) :], 400)
    except OSError:
        pass
    return one_line(path, 400)
