"""The budget gauge: context window, reserve, threshold, tokens before → after, keepRecentTokens."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby

from rich.text import Text
from textual.color import Color
from textual.widgets import Static


@dataclass(frozen=True)
class Budget:
    """The numbers the gauge draws, all under one counter."""

    counter: str
    window: int
    reserve: int
    keep_recent: int
    tokens_before: int
    kept: int
    tokens_after: int | None
    should_compact: bool
    threshold: int
    summarized: int = 0
    prefix: int = 0
    after_is_estimate: bool = True
    context_note: str = ""  # how the context figure was made when not from the agent's usage
    rules: str = ""  # the planner rule set that made the plan
    after_source: str = "proposal"  # where an exact "after" comes from: the proposal, or its summary as edited
    after_note: str = ""  # said instead of "after —" when there is no figure for a reason (e.g. compacted just now)


def _bar(budget: Budget, width: int, colour: dict[str, str]) -> Text:
    """One line: summarized part, kept part, free space, the threshold marker and the reserve."""
    width = max(10, width)
    scale = max(budget.window, budget.tokens_before, 1)

    def cells(tokens: int) -> int:
        return max(0, min(width, round(tokens / scale * width)))

    kept = cells(min(budget.kept, budget.tokens_before))
    used = cells(budget.tokens_before)
    threshold = cells(budget.threshold)
    window = cells(budget.window)
    cells_drawn: list[tuple[str, str]] = []
    for x in range(width):
        if x == threshold and threshold < width:
            cells_drawn.append(("┃", f"bold {colour['warning']}"))
        elif x < used - kept:
            cells_drawn.append(("█", colour["error"] if x >= threshold else colour["summarized"]))
        elif x < used:
            cells_drawn.append(("█", colour["error"] if x >= threshold else colour["success"]))
        elif x < window:
            cells_drawn.append(("░", colour["free"] if x < threshold else colour["warning"]))
        else:
            cells_drawn.append((" ", ""))
    # one span per run of equal cells (a handful), not one per cell: the gauge is drawn on every re-plan, and
    # a span a cell made it the costliest widget of a re-plan's frame (~9 ms of ~50 at load 8, and ~5 ms to set)
    line = Text()
    for (char, style), run in groupby(cells_drawn):
        line.append(char * len(list(run)), style=style or None)
    return line


class BudgetGauge(Static):
    """Where the context stands against the window, and what the plan would leave."""

    DEFAULT_CSS = """
    BudgetGauge { height: 3; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.budget: Budget | None = None
        self.waiting = ""  # what the plan waits for, shown until it comes ("plan pending · …")

    def show(self, budget: Budget | None) -> None:
        self.budget = budget
        self.waiting = ""
        self.update(self._content(), layout=False)  # fixed height: no layout pass needed

    def pending(self, text: str) -> None:
        """Say what the plan waits for until `show` draws one: a long session's loading step, or a re-plan.

        A re-plan keeps the last plan's bar and context line (the context does not depend on
        the settings a re-plan changes) and says it is pending on the plan's line.
        """
        self.waiting = text
        self.update(self._content(), layout=False)

    def on_mount(self) -> None:
        self.watch(self.app, "theme", lambda: self.show(self.budget), init=False)

    def _colours(self) -> dict[str, str]:
        variables = self.app.theme_variables
        background = Color.parse(variables.get("background", "#000000"))

        def solid(name: str, default: str) -> str:
            try:
                colour = Color.parse(variables.get(name, default))
            except Exception:
                colour = Color.parse(default)
            return (background + colour).hex if colour.a < 1 else colour.hex

        return {
            "warning": solid("warning", "#d7af5f"),
            "error": solid("error", "#e0616b"),
            "success": solid("success", "#87c97a"),
            "summarized": solid("foreground-muted", "#808080"),
            "free": solid("surface-lighten-2", "#3a3a3a"),
            "muted": solid("foreground-muted", "#808080"),
        }

    def on_resize(self) -> None:
        if self.budget is not None:
            self.update(self._content(), layout=False)

    def _content(self) -> Text:
        budget = self.budget
        if budget is None:
            return Text(self.waiting or "no plan yet", style="dim")
        width = max(10, self.size.width - 2 if self.size.width else 60)
        colour = self._colours()
        line = _bar(budget, width, colour)
        facts = _facts(budget, colour, short=False)
        if facts.cell_len > width:
            facts = _facts(budget, colour, short=True)
        if self.waiting:
            plan = Text(self.waiting, style=colour["muted"])
        else:
            plan = _plan_line(budget, colour, short=False)
            if plan.cell_len > width:
                plan = _plan_line(budget, colour, short=True)
        for part in (facts, plan):  # three lines, never more: a narrow terminal loses the line's end, not a line
            part.no_wrap = True
            part.overflow = "ellipsis"
            part.truncate(width + 2, overflow="ellipsis")
        return Text("\n").join([line, facts, plan])


def _facts(budget: Budget, colour: dict[str, str], *, short: bool) -> Text:
    """Window, reserve, threshold and the context now; `short` for a narrow terminal."""
    facts = Text()
    facts.append(f"[{budget.counter}] ", style="bold")
    if short:
        facts.append(f"win {budget.window:,} · res {budget.reserve:,} · thr ")
    else:
        facts.append(f"window {budget.window:,} · reserve {budget.reserve:,} · threshold ")
    facts.append(f"{budget.threshold:,}", style=colour["warning"])
    facts.append(" · context ")
    facts.append(f"{budget.tokens_before:,}", style=f"bold {colour['error']}" if budget.should_compact else "bold")
    if budget.context_note:
        facts.append(f" ({budget.context_note})", style=colour["muted"])
    if budget.should_compact:
        facts.append(" due" if short else "  over threshold: compaction due", style=colour["error"])
    else:
        facts.append(" ok" if short else "  under threshold", style=colour["muted"])
    return facts


def _plan_line(budget: Budget, colour: dict[str, str], *, short: bool) -> Text:
    """keepRecentTokens, what the plan summarizes and what it would leave; `short` for a narrow terminal."""
    plan = Text()
    if budget.rules:
        plan.append(f"{budget.rules} · " if short else f"rules {budget.rules} · ")
    plan.append(f"keep {budget.keep_recent:,}" if short else f"keepRecentTokens {budget.keep_recent:,}")
    if budget.summarized or budget.prefix:
        plan.append(f" · summarize {budget.summarized:,}")
        if budget.prefix:
            plan.append(f" + prefix {budget.prefix:,}" if short else f" + split-turn prefix {budget.prefix:,}")
    if budget.tokens_after is None and budget.after_note:
        plan.append(f" · {budget.after_note}", style=colour["muted"])
        return plan
    plan.append(" · after ")
    if budget.tokens_after is None:
        plan.append("—", style=colour["muted"])
    elif budget.after_is_estimate:
        plan.append("kept ")
        plan.append(f"{budget.tokens_after:,}", style=f"bold {colour['success']}")
        plan.append(" + summary")
    else:
        plan.append(f"{budget.tokens_after:,}", style=f"bold {colour['success']}")
        plan.append(f" ({budget.after_source})", style=colour["muted"])
    return plan
