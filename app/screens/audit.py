"""The audit screen: what a compaction lost (facts by kind, retention), the warnings, why the cut fell there, and the timeline.

Push it with `AuditScreen(store_or_path, session_id, compaction_entry_id=None, proposal_id=None)`
or, inside the cutline app (which owns a store), `AuditScreen(session_id)`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from cutline.app.screens.modals import ConfirmScreen
from cutline.app.widgets.desk_footer import DeskFooter
from cutline.app.widgets.labels import plural
from cutline.app.widgets.safe_text import one_line, visible

SERIES_STYLES = {
    "usage": "bold white",
    "chars4": "#5fafd7",
    "calibrated": "#ffaf5f",
    "tiktoken": "#87c97a",
    "replay": "#af87d7",
}
KIND_TITLES = {
    "instruction": "Instructions & constraints",
    "request": "Requests",
    "identifier": "Identifiers",
    "error": "Errors",
    "decision": "Decisions",
}

# braille dot bits by (x % 2, y % 4)
_DOTS = {(0, 0): 0x01, (0, 1): 0x02, (0, 2): 0x04, (1, 0): 0x08, (1, 1): 0x10, (1, 2): 0x20, (0, 3): 0x40, (1, 3): 0x80}


def _k(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 1000:
        return f"{value / 1000:.0f}k"
    return f"{value:.0f}"


Series = list[tuple[str, list[tuple[int, float]]]]


def _series(timeline: Any) -> Series:
    """Measured usage first, then each counter's estimates, as (point index, tokens) pairs."""
    points = timeline.points
    series: Series = [("usage", [(i, p.usage) for i, p in enumerate(points) if p.usage is not None])]
    series += [
        (name, [(i, p.estimates[name]) for i, p in enumerate(points) if name in p.estimates])
        for name in timeline.counters
    ]
    return series


def _legend(timeline: Any, series: Series, zoomed: bool, label_w: int) -> Text:
    """The line above the plot: one swatch per drawn series, then the window, threshold and compaction marks."""
    legend = Text(" " * (label_w + 1))
    for name, pts in series:
        if pts:
            legend.append("━ ", style=SERIES_STYLES.get(name, "white"))
            legend.append(("usage" if name == "usage" else name) + "  ")
    if zoomed:
        legend.append(
            f"window {_k(timeline.context_window)} / threshold {_k(timeline.threshold)} off scale ", style="#e0616b"
        )
    else:
        legend.append("─ window ", style="#e0616b")
        legend.append("┄ threshold ", style="#d7af5f")
    if timeline.compactions:
        legend.append("│ compaction", style="#7f7f7f")
    return legend


class _DotGrid:
    """A `cols` x `rows` grid of braille cells, each 2 x 4 dots, with the style of the last dot set in a cell."""

    def __init__(self, cols: int, rows: int) -> None:
        self.cols, self.rows = cols, rows
        self.dots_w, self.dots_h = cols * 2, rows * 4
        self.cells: list[list[int]] = [[0] * cols for _ in range(rows)]
        self.styles: list[list[str | None]] = [[None] * cols for _ in range(rows)]

    def set_dot(self, x: int, y: int, style: str) -> None:
        if 0 <= x < self.dots_w and 0 <= y < self.dots_h:
            self.cells[y // 4][x // 2] |= _DOTS[(x % 2, y % 4)]
            self.styles[y // 4][x // 2] = style

    def line(self, a: tuple[int, int], b: tuple[int, int], style: str) -> None:
        (x0, y0), (x1, y1) = a, b
        steps = max(abs(x1 - x0), abs(y1 - y0), 1)
        for s in range(steps + 1):
            self.set_dot(round(x0 + (x1 - x0) * s / steps), round(y0 + (y1 - y0) * s / steps), style)

    def row_text(self, r: int, label: str, overlay: dict[tuple[int, int], tuple[str, str]]) -> Text:
        """Row `r` as text: its y label, then dots where set, else the overlay's mark, else blank."""
        text = Text(label + "┤", style="dim")
        for x in range(self.cols):
            bits = self.cells[r][x]
            if bits:
                text.append(chr(0x2800 + bits), style=self.styles[r][x] or "white")
            elif (r, x) in overlay:
                char, style = overlay[(r, x)]
                text.append(char, style=style)
            else:
                text.append(" ")
        return text


def plot_lines(timeline: Any, width: int, height: int) -> list[Text]:
    """The timeline drawn in braille dots on a `width` x `height` cell grid (y labels and a legend included)."""
    label_w = 6
    cols = max(4, width - label_w - 1)
    rows = max(2, height - 2)
    points = timeline.points
    values: list[float] = []
    for p in points:
        if p.usage is not None:
            values.append(p.usage)
        values.extend(p.estimates.values())
    peak = max(values, default=0)
    # a session far below its window is drawn on its own scale, the window noted as off the chart
    zoomed = 0 < peak * 3 < timeline.threshold
    top = (peak if zoomed else max(peak, timeline.context_window)) * 1.05 or 1.0
    grid = _DotGrid(cols, rows)
    overlay: dict[tuple[int, int], tuple[str, str]] = {}

    def to_dot(i: int, v: float) -> tuple[int, int]:
        x = 0 if len(points) <= 1 else round(i * (grid.dots_w - 1) / (len(points) - 1))
        y = grid.dots_h - 1 - round(min(v, top) / top * (grid.dots_h - 1))
        return x, y

    def row_of(v: float) -> int:
        return to_dot(0, v)[1] // 4

    for c in timeline.compactions:
        x = 0 if len(points) <= 1 else round(min(c.index, len(points) - 1) * (grid.dots_w - 1) / (len(points) - 1)) // 2
        for r in range(rows):
            overlay[(r, x)] = ("┊" if c.replayed else "│", "#af87d7" if c.replayed else "#7f7f7f")
    if not zoomed:
        for r_value, char, style in ((timeline.threshold, "┄", "#d7af5f"), (timeline.context_window, "─", "#e0616b")):
            r = row_of(r_value)
            for x in range(cols):
                overlay.setdefault((r, x), (char, style))
    series = _series(timeline)
    for name, pts in reversed(series):
        style = SERIES_STYLES.get(name, "white")
        dots = [to_dot(i, v) for i, v in pts]
        for a, b in itertools.pairwise(dots):
            grid.line(a, b, style)
        if len(dots) == 1:
            grid.set_dot(*dots[0], style)

    out: list[Text] = [_legend(timeline, series, zoomed, label_w)]
    label_rows = {row_of(top * f / 1.05): _k(top * f / 1.05) for f in (0.0, 0.5, 1.0)}
    if not zoomed:
        label_rows[row_of(timeline.context_window)] = _k(timeline.context_window)
    out += [grid.row_text(r, label_rows.get(r, "").rjust(label_w), overlay) for r in range(rows)]
    out.append(Text(" " * label_w + "└" + "─" * cols, style="dim"))
    return out[:height]


class TimelinePlot(Widget):
    """The context-size timeline drawn with braille dots."""

    DEFAULT_CSS = """
    TimelinePlot { height: 12; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.timeline: Any = None

    def show(self, timeline: Any) -> None:
        self.timeline = timeline
        self.refresh()

    def render(self) -> Text:
        if self.timeline is None:
            return Text("timeline: loading…", style="dim")
        if not self.timeline.points:
            return Text("timeline: no assistant message in this session", style="dim")
        return Text("\n").join(plot_lines(self.timeline, self.size.width, self.size.height))


@dataclass
class AuditData:
    """What the worker computed for the screen."""

    report: Any
    timeline: Any
    session: Any
    compaction_ids: list[str]
    # facts kept only through their words or identifiers, with the summary's passage nearest to each
    unverbatim: list[tuple[Any, Any]] = field(default_factory=list)
    # a proposal's last model check (core.audit.probe.ProbeRun), None when never run
    probe: Any = None


class ProbePlanned(Message):
    """The model check is ready to ask (the cost known), or cannot be made (`error`, one line)."""

    def __init__(self, plan: Any = None, error: str = "") -> None:
        super().__init__()
        self.plan = plan
        self.error = error


class ProbeDone(Message):
    """The model check ran and was stored (`run`), or failed (`error`, one line)."""

    def __init__(self, run: Any = None, error: str = "") -> None:
        super().__init__()
        self.run = run
        self.error = error


class AuditLoaded(Message):
    def __init__(self, data: AuditData) -> None:
        super().__init__()
        self.data = data


class TimelineReady(Message):
    """A timeline to draw, with the replay's sentence when it is a replay."""

    def __init__(self, timeline: Any, caption: str) -> None:
        super().__init__()
        self.timeline = timeline
        self.caption = caption


class AuditScreen(Screen[None]):
    """Retention per kind, lost facts grouped (select one to see its source entry), warnings, the why, the timeline."""

    DEFAULT_CSS = """
    AuditScreen { layout: vertical; }
    AuditScreen #audit-title { height: 2; padding: 0 1; background: $panel; }
    AuditScreen #audit-main { height: 1fr; }
    AuditScreen #audit-left { width: 2fr; }
    AuditScreen #audit-right { width: 3fr; }
    AuditScreen #audit-retention { height: auto; padding: 0 1; border: round $primary; }
    AuditScreen #audit-warnings-box { height: 1fr; border: round $warning; }
    AuditScreen #audit-why-box { height: 1fr; border: round $secondary; }
    AuditScreen #audit-lost { height: 1fr; border: round $error; }
    AuditScreen #audit-source-box { height: 10; border: round $primary; }
    AuditScreen #audit-plot { height: 12; border: round $secondary; }
    /* the pane with the focus: a heavy accent border and a bold title (the others keep their colour, rounded) */
    AuditScreen #audit-main VerticalScroll:focus, AuditScreen #audit-lost:focus {
        border: heavy $accent; border-title-style: bold; border-title-color: $accent;
    }
    AuditScreen Static { width: 1fr; }
    /* a short or narrow terminal: fixed pane heights, the screen scrolls (tab moves through the panes) */
    AuditScreen.-short, AuditScreen.-narrow { overflow-y: auto; }
    AuditScreen.-short #audit-main, AuditScreen.-narrow #audit-main { height: auto; }
    AuditScreen.-short #audit-left, AuditScreen.-short #audit-right { height: auto; }
    AuditScreen.-short #audit-warnings-box, AuditScreen.-short #audit-why-box { height: 8; }
    AuditScreen.-short #audit-lost { height: 10; }
    AuditScreen.-short #audit-source-box { height: 8; }
    AuditScreen.-short #audit-plot { height: 10; }
    AuditScreen.-narrow #audit-main { layout: vertical; }
    AuditScreen.-narrow #audit-left, AuditScreen.-narrow #audit-right { width: 1fr; height: auto; }
    AuditScreen.-narrow #audit-warnings-box, AuditScreen.-narrow #audit-why-box { height: 8; }
    AuditScreen.-narrow #audit-lost { height: 10; }
    AuditScreen.-narrow #audit-source-box { height: 8; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="audit.back", tooltip="Back to the previous screen"),
        Binding(
            "left_square_bracket",
            "previous_compaction",
            "Prev compaction",
            id="audit.previous",
            tooltip="Audit the previous compaction",
        ),
        Binding(
            "right_square_bracket",
            "next_compaction",
            "Next compaction",
            id="audit.next",
            tooltip="Audit the next compaction",
        ),
        Binding(
            "r",
            "replay",
            "Replay",
            id="audit.replay",
            tooltip="Replay auto-compaction with the configured settings on the timeline",
        ),
        Binding("l", "focus_lost", "Lost facts", show=False, id="audit.lost", tooltip="Focus the lost facts"),
        Binding(
            "g",
            "show_in_list",
            "Show in list",
            id="audit.show_in_list",
            tooltip="Back to the review screen, the list's cursor on the selected fact's source entry",
        ),
        Binding(
            "p",
            "probe",
            "Model check",
            show=False,
            id="audit.probe",
            tooltip="A proposal's model check: the configured model answers questions on the important facts "
            "from the context after the compaction (the cost is asked first)",
        ),
    ]

    def __init__(
        self,
        store_path_or_store: Any = None,
        session_id: str | None = None,
        compaction_entry_id: str | None = None,
        proposal_id: str | None = None,
    ) -> None:
        super().__init__()
        if session_id is None and isinstance(store_path_or_store, str):
            # AuditScreen(session_id): the app's own store is used
            session_id, store_path_or_store = store_path_or_store, None
        if session_id is None:
            raise ValueError("AuditScreen needs a session id")
        self.store_source = store_path_or_store
        self.session_id = session_id
        self.compaction_entry_id = compaction_entry_id
        self.proposal_id = proposal_id
        self.data: AuditData | None = None
        self._lost: list[Any] = []
        self.replaying = False
        self.source_text = Text()  # what the source pane shows (the fact's span styled "reverse")

    # -- layout -------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(Text("audit: loading…"), id="audit-title")
        with Horizontal(id="audit-main"):
            with Vertical(id="audit-left"):
                yield Static(Text(""), id="audit-retention")
                with VerticalScroll(id="audit-warnings-box"):
                    yield Static(Text(""), id="audit-warnings")
                with VerticalScroll(id="audit-why-box"):
                    yield Static(Text(""), id="audit-why")
            with Vertical(id="audit-right"):
                yield OptionList(id="audit-lost")
                with VerticalScroll(id="audit-source-box"):
                    yield Static(Text("select a lost fact to see where it came from", style="dim"), id="audit-source")
        yield TimelinePlot(id="audit-plot")
        yield DeskFooter()

    def on_mount(self) -> None:
        self.query_one("#audit-retention").border_title = "Retention (kept/total)"
        self.query_one("#audit-warnings-box").border_title = "Warnings"
        self.query_one("#audit-why-box").border_title = "Why the cut fell there"
        self.query_one("#audit-lost").border_title = "Lost facts"
        self.query_one("#audit-source-box").border_title = "Source entry"
        self.query_one("#audit-plot").border_title = "Context per model call"
        self.load()

    # -- loading ------------------------------------------------------------

    def _open_store(self) -> tuple[Any, bool]:
        """The store to read and whether this screen must close it."""
        from cutline.core.store import Store

        source = self.store_source
        if source is None:
            app_store = getattr(self.app, "store", None)
            if app_store is not None:
                return app_store, False
            return Store(), True
        if isinstance(source, (str, Path)):
            return Store(source), True
        return source, False

    @work(thread=True, exclusive=True, exit_on_error=False, group="audit")
    def load(self) -> None:
        from cutline.core.audit.evidence import closest_passage, verbatim_label
        from cutline.core.audit.report import audit_compaction, audit_proposal
        from cutline.core.audit.timeline import build_timeline
        from cutline.core.config.file import load_settings
        from cutline.core.review import latest_version, load_proposal

        store, owned = self._open_store()
        try:
            session = store.load_session(self.session_id)
            settings = load_settings()
            if self.proposal_id:
                proposal = load_proposal(store, self.proposal_id)
                latest = latest_version(store, proposal.id)
                report = audit_proposal(session, proposal, latest.text if latest.text != proposal.summary else None)
            else:
                report = audit_compaction(session, self.compaction_entry_id, settings)
            probe = None
            if self.proposal_id:
                from cutline.core.workbench.probing import stored_run

                probe = stored_run(store, proposal.id)
            timeline = build_timeline(session, settings, ["chars4", "calibrated"])
            ids = [e.id for e in session.active_path() if e.type == "compaction"]
            ids += [c.id for c in session.compactions() if c.id not in ids]
        finally:
            if owned:
                store.close()
        unverbatim = [
            (fact, closest_passage(fact.text, report.summary))
            for fact in report.facts
            if verbatim_label(fact.retained, fact.rule) == "not found verbatim"
        ]
        data = AuditData(
            report=report, timeline=timeline, session=session, compaction_ids=ids, unverbatim=unverbatim, probe=probe
        )
        self.post_message(AuditLoaded(data))

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        if event.state != WorkerState.ERROR or event.worker.error is None:
            return
        error = event.worker.error
        self.query_one("#audit-title", Static).update(Text(f"audit failed: {visible(str(error))}", style="bold red"))
        show_error = getattr(self.app, "show_error", None)
        if show_error is not None:
            show_error("Audit failed", error)

    @on(AuditLoaded)
    def _loaded(self, message: AuditLoaded) -> None:
        self.data = message.data
        report = message.data.report
        self.compaction_entry_id = report.target_id if report.target == "compaction" else self.compaction_entry_id
        self._show_title(report)
        self._show_retention(report)
        self._show_warnings(report)
        self.query_one("#audit-why", Static).update(Text(visible("\n".join(report.why.steps or [report.why.text]))))
        self._show_lost(report, message.data.unverbatim)
        self.query_one(TimelinePlot).show(message.data.timeline)

    # -- panels -------------------------------------------------------------

    def _show_title(self, report: Any) -> None:
        title = Text()
        title.append(f"Audit of {report.target} {report.target_id}", style="bold")
        title.append(f"  ·  session {report.session_id} ({report.format})")
        ids = self.data.compaction_ids if self.data else []
        if report.target == "compaction" and report.target_id in ids:
            title.append(f"  ·  compaction {ids.index(report.target_id) + 1} of {len(ids)}")
        before = f"{report.tokens_before:,}" if report.tokens_before else "?"
        after = f"{report.tokens_after:,}" if report.tokens_after is not None else "?"
        summarized = plural(len(report.summarized_entry_ids), "entry", "entries")
        title.append(
            f"\ntokens {before} → {after} ({report.counter}) · summarized {summarized} · "
            f"kept {len(report.kept_entry_ids):,} verbatim"
        )
        self.query_one("#audit-title", Static).update(title)

    def _show_retention(self, report: Any) -> None:
        text = Text()
        for r in report.retention:
            score = r.score
            style = "dim" if score is None else ("green" if score >= 0.9 else "yellow" if score >= 0.6 else "red")
            bar_width = 12
            filled = 0 if score is None else round(score * bar_width)
            text.append(f"{KIND_TITLES[r.kind]:<27}", style="bold" if r.lost else "")
            text.append("█" * filled, style=style)
            text.append("░" * (bar_width - filled), style="dim")
            text.append(f" {r.kept:>3}/{r.total:<3}")
            text.append(f" {score:>4.0%}\n" if score is not None else "    -\n", style=style)
        text.rstrip()
        self.query_one("#audit-retention", Static).update(text)

    def _show_warnings(self, report: Any) -> None:
        probe = self.data.probe if self.data is not None else None
        if not report.warnings and probe is None:
            self.query_one("#audit-warnings", Static).update(Text("no warnings", style="green"))
            return
        text = Text()
        if probe is not None:
            text.append(visible(probe.text()) + "\n\n")
        for w in report.warnings:
            if w.recovered:
                text.append("✓ ", style="bold green")
            else:
                text.append("! ", style="bold yellow")
            text.append(w.code, style="bold")
            text.append(f"  {visible(w.message)}\n")
        text.rstrip()
        self.query_one("#audit-warnings", Static).update(text)

    def _show_lost(self, report: Any, unverbatim: list[tuple[Any, Any]]) -> None:
        options: list[Option] = []
        self._lost = []
        groups = report.lost_by_kind()
        if not groups:
            options.append(Option(Text("nothing lost: every fact is still visible", style="green"), disabled=True))
        for kind, facts in groups.items():
            options.append(Option(Text(f"{KIND_TITLES[kind]} ({len(facts)})", style="bold"), disabled=True))
            for fact in facts:
                options.append(Option(self._fact_label(fact), id=f"fact-{len(self._lost)}"))
                self._lost.append(fact)
        if unverbatim:
            title = f"Kept, not found verbatim ({len(unverbatim)})"
            options.append(Option(Text(title, style="bold"), disabled=True))
            for fact, passage in unverbatim:
                label = self._fact_label(fact)
                label.append("  not found verbatim", style="italic yellow")
                near = Text("\n    ≈ ", style="dim")
                near.append(one_line(passage.text, 100) if passage is not None else "nothing close in the summary")
                label.append_text(near)
                options.append(Option(label, id=f"fact-{len(self._lost)}"))
                self._lost.append(fact)
        lost_list = self.query_one("#audit-lost", OptionList)
        lost_list.clear_options()
        lost_list.add_options(options)

    @staticmethod
    def _fact_label(fact: Any) -> Text:
        label = Text("  ")
        label.append(visible(fact.text).replace("\n", " "))
        label.append(f"  {fact.source_entry_id or '?'}", style="dim")
        if fact.origin == "previous_summary":
            label.append(" (previous summary)", style="dim italic")
        if getattr(fact, "verdict", "") == "contradicted":
            label.append(f"  contradicted: {visible(fact.reason)}", style="bold red")
            label.append(f"\n    \u2260 {one_line(visible(fact.closest), 100)}", style="dim")
        elif getattr(fact, "recovered", False):
            label.append("  read again after the compaction", style="italic")
        return label

    def _fact_at(self, option: Option) -> Any:
        option_id = option.id
        if option_id and option_id.startswith("fact-"):
            return self._lost[int(option_id[5:])]
        return None

    @on(OptionList.OptionHighlighted, "#audit-lost")
    def _fact_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        fact = self._fact_at(event.option)
        if fact is not None:
            self.show_source(fact)

    @on(OptionList.OptionSelected, "#audit-lost")
    def _fact_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter on a fact: its source entry in the source pane, scrolled to the fact, focused to read on."""
        fact = self._fact_at(event.option)
        if fact is not None:
            self.show_source(fact)
            self.query_one("#audit-source-box").focus()

    def selected_fact(self) -> Any:
        lost_list = self.query_one("#audit-lost", OptionList)
        index = lost_list.highlighted
        return None if index is None else self._fact_at(lost_list.get_option_at_index(index))

    def show_source(self, fact: Any) -> None:
        """Show the entry a fact came from, the fact highlighted and scrolled into view; the summary's closest passage above."""
        from cutline.core.audit.evidence import closest_passage, find_span, verbatim_label
        from cutline.core.audit.report import visible_text
        from cutline.core.engine.context import entry_message

        source = self.query_one("#audit-source", Static)
        text = Text()
        label = verbatim_label(fact.retained, fact.rule)
        passage = closest_passage(fact.text, self.data.report.summary) if self.data is not None else None
        text.append("lost" if label == "lost" else label, style="bold red" if label == "lost" else "bold yellow")
        if label == "verbatim":
            text.append(" in what the agent still sees\n")
        elif passage is None:
            text.append(" · nothing in the summary comes close\n", style="dim")
        else:
            text.append(f" · closest in the summary ({passage.word_share:.0%} of its words):\n", style="dim")
            text.append(visible(passage.text) + "\n", style="italic")
        text.append("─" * 8 + "\n", style="dim")
        entry = self.data.session.by_id().get(fact.source_entry_id) if self.data and fact.source_entry_id else None
        if entry is None:
            self.query_one("#audit-source-box").border_title = "Source entry"
            text.append("source entry not found", style="dim")
            self.source_text = text
            source.update(text)
            return
        message = entry_message(entry)
        body = visible_text(message) if message is not None else entry.raw_line
        body = visible(body[:6000] + ("…" if len(body) > 6000 else ""))
        role = message.role if message is not None else entry.type
        self.query_one("#audit-source-box").border_title = f"Source entry {visible(entry.id)} · {role} · {label}"
        text.append(f"entry {entry.id} · {role}" + (f" · line {entry.line}" if entry.line else "") + "\n", style="bold")
        span = find_span(visible(fact.text), body)
        start = len(text)
        text.append(body)
        if span is not None:
            text.stylize("reverse", start + span[0], start + span[1])
        self.source_text = text
        source.update(text)
        self._scroll_source_to(text, None if span is None else start + span[0])

    def _scroll_source_to(self, text: Text, offset: int | None) -> None:
        """Scroll the source pane so the line holding `offset` is in view (near the top), once it has its width."""
        box = self.query_one("#audit-source-box", VerticalScroll)

        def scroll() -> None:
            if offset is None:
                box.scroll_home(animate=False)
                return
            width = max(1, box.scrollable_content_region.width)
            line = len(text[:offset].wrap(self.app.console, width)) - 1
            box.scroll_to(y=max(0, line - 1), animate=False, immediate=True)

        self.call_after_refresh(scroll)

    # -- actions ------------------------------------------------------------

    # -- the model check ------------------------------------------------------

    def action_probe(self) -> None:
        if not self.proposal_id or self.data is None:
            self.notify("The model check is made on a proposal's audit.", severity="warning")
            return
        self.plan_probe(self.proposal_id, self.data.report.facts)

    @work(thread=True, exclusive=True, exit_on_error=False, group="audit-probe")
    def plan_probe(self, proposal_id: str, facts: list[Any]) -> None:
        import os

        from cutline.core.config.file import load_settings
        from cutline.core.errors import CutlineError
        from cutline.core.workbench.probing import plan_probe

        store, owned = self._open_store()
        try:
            plan = plan_probe(store, proposal_id, facts, load_settings(), os.environ)
        except CutlineError as problem:
            self.post_message(ProbePlanned(error=str(problem)))
            return
        finally:
            if owned:
                store.close()
        self.post_message(ProbePlanned(plan))

    @on(ProbePlanned)
    def _probe_planned(self, message: ProbePlanned) -> None:
        plan = message.plan
        if plan is None:
            self.notify(visible(message.error), title="Model check", severity="warning")
            return
        if not plan.questions:
            self.notify("No important fact in the summarized part to ask about.", title="Model check")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.notify(f"Asking {plan.model_name}…", title="Model check")
                self.run_probe(plan)

        questions = "\n".join(f"{q.number}. {q.question}" for q in plan.questions)
        self.app.push_screen(
            ConfirmScreen("Model check", plan.cost.line(plan.model_name), questions, confirm_label="Ask"), answered
        )

    @work(thread=True, exclusive=True, exit_on_error=False, group="audit-probe")
    def run_probe(self, plan: Any) -> None:
        from cutline.core.errors import CutlineError
        from cutline.core.workbench.probing import run_probe

        store, owned = self._open_store()
        try:
            run = run_probe(store, plan)
        except CutlineError as problem:
            self.post_message(ProbeDone(error=str(problem)))
            return
        finally:
            if owned:
                store.close()
        self.post_message(ProbeDone(run))

    @on(ProbeDone)
    def _probe_done(self, message: ProbeDone) -> None:
        if message.run is None:
            self.notify(visible(message.error), title="Model check failed", severity="error")
            return
        if self.data is not None:
            self.data.probe = message.run
            self._show_warnings(self.data.report)
        counts = message.run.counts()
        self.notify(
            f"{counts['right']} right, {counts['wrong']} wrong, {counts['missed']} missed (in Warnings)",
            title="Model check",
            severity="warning" if counts["wrong"] else "information",
        )

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_replay(self) -> None:
        """Toggle the replay of auto-compaction (configured settings) on the timeline."""
        if self.data is None:
            return
        self.replaying = not self.replaying
        if self.replaying:
            self.query_one(TimelinePlot).border_subtitle = "replaying…"
            self.compute_replay(self.data.session)
        else:
            self.query_one(TimelinePlot).border_subtitle = ""
            self.query_one(TimelinePlot).show(self.data.timeline)

    @work(thread=True, exclusive=True, exit_on_error=False, group="audit-replay")
    def compute_replay(self, session: Any) -> None:
        from cutline.core.audit.replay import timeline_with_replay
        from cutline.core.config.file import load_settings

        timeline, result = timeline_with_replay(session, load_settings(), ["chars4", "calibrated"])
        self.post_message(TimelineReady(timeline, result.text()))

    @on(TimelineReady)
    def _timeline_ready(self, message: TimelineReady) -> None:
        if not self.replaying:
            return
        plot = self.query_one(TimelinePlot)
        plot.border_subtitle = visible(message.caption)
        plot.show(message.timeline)

    def action_focus_lost(self) -> None:
        self.query_one("#audit-lost", OptionList).focus()

    def action_show_in_list(self) -> None:
        """Leave for the review screen underneath, its list's cursor on the selected fact's source entry."""
        fact = self.selected_fact()
        if fact is None or not fact.source_entry_id:
            self.notify("Select a fact first (l, then the arrows).", timeout=4, markup=False)
            return
        below = self.app.screen_stack[-2] if len(self.app.screen_stack) > 1 else None
        show_entry = getattr(below, "show_entry", None)
        if show_entry is None or getattr(getattr(below, "session", None), "id", None) != self.session_id:
            self.notify("No review screen of this session underneath.", timeout=4, markup=False)
            return
        self.app.pop_screen()
        if not show_entry(fact.source_entry_id):
            self.notify(f"Entry {fact.source_entry_id} is not on the list's path.", timeout=4, markup=False)

    def _step(self, delta: int) -> None:
        if self.data is None or not self.data.compaction_ids:
            return
        ids = self.data.compaction_ids
        current = ids.index(self.compaction_entry_id) if self.compaction_entry_id in ids else len(ids)
        target = current + delta
        if 0 <= target < len(ids):
            self.proposal_id = None
            self.compaction_entry_id = ids[target]
            self.query_one("#audit-title", Static).update(Text(f"audit: loading compaction {ids[target]}…"))
            self.load()

    def action_previous_compaction(self) -> None:
        self._step(-1)

    def action_next_compaction(self) -> None:
        self._step(1)
