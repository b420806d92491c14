"""The review screen's write-back line: whether this session can take an accepted compaction, how, or why not.

Shown from the moment the session is loaded, before anything is run (issue 15, item 9), so
nobody learns at the confirmation that accepting will only record the compaction.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from cutline.core.agents.writeback import WriteBackPlan

_HOW = {"append": "append", "migrate-and-append": "migrate, then append"}


def write_back_text(plan: WriteBackPlan | None) -> Text:
    """`write-back: pi v3 · append — <what happens>`, or `write-back: no — <why not>`."""
    line = Text("write-back: ", style="dim")
    if plan is None:
        line.append("…", style="dim")
    elif plan.possible:
        style = plan.style.split(" (", 1)[0]
        line.append(f"{style} · " if style else "", style="bold green")
        line.append(_HOW.get(plan.how, plan.how), style="bold green")
        line.append(f" — {plan.reason}", style="dim")
    else:
        line.append("no", style="bold yellow")
        line.append(f" — {plan.reason}")
    line.no_wrap = True
    line.overflow = "ellipsis"
    return line


class WriteBackLine(Static):
    """One line under the budget gauge (see the module doc)."""

    DEFAULT_CSS = """
    WriteBackLine { height: 1; width: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(write_back_text(None), id=id)
        self.plan: WriteBackPlan | None = None

    def show(self, plan: WriteBackPlan | None) -> None:
        self.plan = plan
        self.update(write_back_text(plan), layout=False)
