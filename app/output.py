"""Everything the command line prints goes through here, so session text never drives the terminal.

A session holds whatever an agent's tools read (web pages, files), and its text reaches
the terminal in summaries, previews, names and error messages. Escape sequences there
could set the window title, write the clipboard (OSC 52), plant hyperlinks or clear the
screen; so text output shows every control character as a visible picture, as the desk
does, and JSON output escapes the ones JSON leaves raw (DEL and C1), staying exact JSON.
"""

from __future__ import annotations

import re
from typing import Any

import click

from cutline.app.widgets.safe_text import visible

# json.dumps and pydantic escape C0 controls inside strings but leave DEL and C1 raw;
# outside strings JSON holds only ASCII punctuation, spaces and newlines.
_JSON_RAW_CONTROLS = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def terminal_text(text: str) -> str:
    """Text fit for a terminal: control characters other than newline and tab shown as pictures or escapes."""
    return visible(text)


# the ASCII characters `_JSON_RAW_CONTROLS` leaves alone: newline and the printable ones
_ASCII_KEPT = bytes([0x0A, *range(0x20, 0x7F)])


def terminal_json(text: str) -> str:
    """Serialized JSON fit for a terminal: every control character left raw becomes a \\u escape (same JSON value).

    ASCII text holding none is returned as it is, found so by deleting the characters it
    keeps from its bytes (a third of the regular expression's scan of a 30 MB report).
    """
    if text.isascii() and not text.encode("ascii").translate(None, _ASCII_KEPT):
        return text
    return _JSON_RAW_CONTROLS.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def indented_json(data: Any, *, ensure_ascii: bool = True) -> str:
    """`json.dumps(data, indent=2, ensure_ascii=...)`, the same text, made by the C encoders.

    Why: with `indent` the standard library falls back to its pure-Python encoder, which
    took 1.7 s for `timeline --json` of a 100k-entry session; compact C encoding plus
    msgspec's re-indenting (which keeps every string's escapes as they are) gives the
    same bytes in a tenth of the time.
    """
    import json

    import msgspec

    # one expression: each copy (compact text, its bytes, the indented bytes) is let go once the next step has made its
    # own, not held to the end (an 11 MB report held all four at once)
    return msgspec.json.format(
        json.dumps(data, ensure_ascii=ensure_ascii, separators=(",", ":")).encode("utf-8"), indent=2
    ).decode("utf-8")


def say(text: object = "", *, err: bool = False) -> None:
    """Print one line (or several) of text for a person."""
    click.echo(terminal_text(str(text)), err=err)


def say_json(text: str) -> None:
    """Print serialized JSON for a program."""
    click.echo(terminal_json(text))
