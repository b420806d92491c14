"""A summary's headings read as headings, not errors (issue 27, item 12): bold, never coloured or underlined."""

from __future__ import annotations

from rich.console import Console

from cutline.app.widgets.plain_markdown import plain_markdown


def test_summary_headings_are_bold_and_neither_coloured_nor_underlined() -> None:
    console = Console(width=60, color_system="truecolor", force_terminal=True)
    segments = list(console.render(plain_markdown("# Summary\n\n## Goal\n\nShip it.\n\n### Done\n\n- one\n")))
    for heading in ("Summary", "Goal", "Done"):
        [segment] = [s for s in segments if s.text == heading]
        assert segment.style is not None and segment.style.bold
        assert not segment.style.underline and segment.style.color is None, (heading, segment.style)
