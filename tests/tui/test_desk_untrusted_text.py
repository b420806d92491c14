"""The desk shows session text as text: tool names without escapes, summary links with their URL and not clickable."""

from __future__ import annotations

import re
from pathlib import Path

from rich.console import Console

from cutline.app.widgets.plain_markdown import plain_markdown
from cutline.app.widgets.rows import entry_row
from cutline.core.models import Entry, Message, TextBlock

ROOT = Path(__file__).resolve().parent.parent
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
EVIL = "\x1b]0;TITLE\x07\x1b[2J\x9b31m"


def test_the_tool_name_column_shows_escapes_as_pictures() -> None:
    message = Message(role="toolResult", toolCallId="c1", toolName=f"read{EVIL}", content=[TextBlock(text="ok")])
    row = entry_row(Entry(id="e1", type="message", message=message))
    assert not RAW.search(row.label)
    assert row.label.startswith("read␛]0;T") and row.label.endswith("…")  # the label column fits 10 cells


def _render(markdown_text: str) -> tuple[str, list[str]]:
    console = Console(width=100, record=True, color_system="truecolor", force_terminal=True)
    segments = list(console.render(plain_markdown(markdown_text)))
    links = [s.style.link for s in segments if s.style is not None and s.style.link]
    return "".join(s.text for s in segments), links


def test_a_summary_link_shows_its_url_and_is_no_hyperlink() -> None:
    text, links = _render("Fixed, see [the harmless docs](https://evil.example/pwn) for details.")
    assert "the harmless docs (https://evil.example/pwn)" in text
    assert links == []


def test_the_desk_renders_session_markdown_only_through_plain_markdown() -> None:
    offenders = []
    for path in (ROOT / "app").rglob("*.py"):
        if path.name == "plain_markdown.py":
            continue
        source = path.read_text(encoding="utf-8")
        if re.search(r"\bMarkdown\(", source) or "rich.markdown" in source:
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
