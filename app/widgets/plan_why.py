"""The review screen's "why" view: the plan's explanation, as `cutline plan` prints it, redrawn on every re-plan.

Why: the cut's reasons (where the walk back stopped, which entry was not a valid cut
point, what the threshold says) are what a person needs before running anything.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from cutline.app.widgets.safe_text import visible


class PlanWhy(VerticalScroll):
    """The current plan's text: settings, cut, figures and each step of the explanation."""

    DEFAULT_CSS = """
    PlanWhy { height: 1fr; }
    PlanWhy > #why-text { width: 1fr; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: list[str] = []
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
        self._drawn = False
        if all(node.display for node in self.ancestors_with_self if isinstance(node, Widget)):
            self._draw()

    def on_show(self) -> None:
        if not self._drawn:
            self._draw()

    def _draw(self) -> None:
        self._drawn = True
        text = Text()
        for line in self.lines:
            if line == "why:" or line.startswith(("cut:", "refused:")):
                text.append(visible(line) + "\n", style="bold")
            elif line.startswith("  - "):
                text.append("  • ", style="dim")
                text.append(visible(line[4:]) + "\n")
            else:
                text.append(visible(line) + "\n")
        self.query_one("#why-text", Static).update(text)
