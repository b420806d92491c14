"""Markdown for session text: rendered, but a link shows where it goes, and a heading is not dressed as an error.

Why: Rich turns `[text](url)` into a clickable hyperlink that shows only `text`; in a
summary written from untrusted session text that hides the real destination behind
harmless words. Every link is shown as `text (url)` and nothing is clickable.
Rich's headings are underlined and magenta, which the desk's palette shows as red: a
summary's "## Goal" read like an error. Headings are bold, nothing more.
"""

from __future__ import annotations

from typing import ClassVar

from rich.markdown import Heading, Markdown, MarkdownContext, MarkdownElement
from rich.style import Style

HEADING_STYLES = {"h1": Style(bold=True), "h2": Style(bold=True), "h3": Style(bold=True, italic=True)}


class _PlainHeading(Heading):
    """A heading in bold (italic below level 2), neither coloured nor underlined."""

    def on_enter(self, context: MarkdownContext) -> None:
        super().on_enter(context)
        context.style_stack.pop()  # the theme's heading style, replaced by a plain one
        context.enter_style(HEADING_STYLES.get(self.tag, Style(italic=True)))


class _PlainMarkdown(Markdown):
    elements: ClassVar[dict[str, type[MarkdownElement]]] = {**Markdown.elements, "heading_open": _PlainHeading}


def plain_markdown(text: str) -> Markdown:
    """Markdown whose links print their URL next to their text instead of becoming hyperlinks."""
    return _PlainMarkdown(text, hyperlinks=False)
