"""Markdown for session text: rendered, but a link shows where it goes.

Why: Rich turns `[text](url)` into a clickable hyperlink that shows only `text`; in a
summary written from untrusted session text that hides the real destination behind
harmless words. Every link is shown as `text (url)` and nothing is clickable.
"""

from __future__ import annotations

from rich.markdown import Markdown


def plain_markdown(text: str) -> Markdown:
    """Markdown whose links print their URL next to their text instead of becoming hyperlinks."""
    return Markdown(text, hyperlinks=False)
