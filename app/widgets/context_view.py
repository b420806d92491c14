"""The Context tab: what the agent sends next, now and once the open proposal is written back.

Both are the text `cutline context` prints (`context_text` of the agent's own context), so
the desk and the command line can never disagree.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from cutline.app.widgets.safe_text import visible


class ContextView(VerticalScroll):
    """Two blocks of text: the context after accepting the open proposal (when there is one) and the context now."""

    def compose(self) -> ComposeResult:
        yield Static(Text("working out the context…", style="dim"), id="context-after")
        yield Static("", id="context-now")

    def show(self, now: str, after: str | None, after_note: str) -> None:
        """`now` / `after` as `context_text` renders them; `after_note` says why there is no `after`."""
        after_part = Text()
        if after is not None:
            after_part.append("After accepting the proposal with write-back\n", style="bold")
            after_part.append(visible(after))
        elif after_note:
            after_part.append(after_note, style="dim")
        self.query_one("#context-after", Static).update(after_part)
        now_part = Text("\nNow (cutline context)\n", style="bold")
        now_part.append(visible(now))
        self.query_one("#context-now", Static).update(now_part)
