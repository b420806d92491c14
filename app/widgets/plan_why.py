"""The review screen's "why" view: the plan's explanation, as `cutline plan` prints it, redrawn on every re-plan.

Why: the cut's reasons (where the walk back stopped, which entry was not a valid cut
point, what the threshold says) are what a person needs before running anything.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from cutline.app.widgets.safe_text import visible


class PlanWhy(VerticalScroll, can_focus=True):
    """The current plan's text: settings, cut, figures and each step of the explanation, then the files (one line each).

    A Tab stop of its own, scrolled by the keys of a list (j/k, arrows, page keys, home/end).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "scroll_down", "Down", show=False),
        Binding("k", "scroll_up", "Up", show=False),
        Binding("space", "page_down", "Page down", show=False),
    ]

    DEFAULT_CSS = """
    PlanWhy { height: 1fr; }
    PlanWhy > #why-text { width: 1fr; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: list[str] = []
        self.waiting = ""  # a re-plan pending: said above the last plan's text until the new one is drawn
        self._drawn = True  # whether the text shows `lines`

    def compose(self) -> ComposeResult:
        yield Static(Text("no plan yet", style="dim"), id="why-text")

    def show(self, plan: Any) -> None:
        """Draw this plan's explanation (a `CompactionPlan`), at once when the view is shown, else when it is next shown.

        Why: new text is a layout pass of the whole screen; while another tab is open, a
        settings change would pay it for nothing on every keystroke.
        """
        from cutline.core.engine.plan_text import plan_lines

        self.lines = plan_lines(plan)
        self.waiting = ""
        self._drawn = False
        if all(node.display for node in self.ancestors_with_self if isinstance(node, Widget)):
            self._draw()

    def pending(self, text: str) -> None:
        """Say what the plan waits for: a long session's loading step, or a re-plan (above the last plan's text).

        `""` says nothing is pending any more (the last plan's text alone). Drawn at once
        when the view is shown, else when it is next shown, as `show` does.
        """
        if not self.lines:
            self.query_one("#why-text", Static).update(Text(text, style="dim"))
            return
        if text == self.waiting:
            return
        self.waiting = text
        self._drawn = False
        if all(node.display for node in self.ancestors_with_self if isinstance(node, Widget)):
            self._draw()

    def on_show(self) -> None:
        if not self._drawn:
            self._draw()

    def _draw(self) -> None:
        self._drawn = True
        parts: list[Text] = [Text(self.waiting, style="bold")] if self.waiting else []
        for line in why_first(self.lines):
            if line == "why:" or line.startswith(("cut:", "refused:")):
                parts.append(Text(visible(line), style="bold"))
            elif line.startswith("  - "):
                bullet = Text("  • ", style="dim")
                bullet.append(visible(line[4:]))
                parts.append(bullet)
            elif line.startswith(FILE_LISTS):
                # one line each, cut at the pane's edge: ~30 lines of paths sat before the explanation
                parts.append(Text(visible(folded(line)), style="dim", no_wrap=True, overflow="ellipsis"))
            else:
                parts.append(Text(visible(line)))
        self.query_one("#why-text", Static).update(Group(*parts))


FILE_LISTS = ("read files: ", "modified files: ")


def folded(line: str) -> str:
    """A file list as one line: how many, then the names ("read files (12): a.py, b.py, …")."""
    label, _, names = line.partition(": ")
    count = len(names.split(", ")) if names else 0
    return f"{label} ({count:,}): {names}"


def why_first(lines: list[str]) -> list[str]:
    """The plan's lines with the explanation ("why:" and its bullets) before the file lists, which come last."""
    files = [line for line in lines if line.startswith(FILE_LISTS)]
    rest = [line for line in lines if not line.startswith(FILE_LISTS)]
    while rest and rest[-1] == "":
        rest.pop()
    return [*rest, "", *files] if files else rest
