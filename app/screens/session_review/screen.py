"""The review screen of one session: message list with the plan, budget gauge, detail, settings, run, edit, accept.

The screen holds its bindings, `check_action`, the loading and planning handlers and the layout;
its parts (state, editing, counting, running, deciding, afterwards, outward) hold the rest, and every
worker makes one call into the workbench (core.workbench)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.clock import Clock
from textual.containers import Horizontal, Vertical
from textual.widget import AwaitMount
from textual.widgets import Header, ProgressBar, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from cutline.app.screens.session_review.afterwards import Afterwards
from cutline.app.screens.session_review.counting import Counting
from cutline.app.screens.session_review.deciding import Deciding
from cutline.app.screens.session_review.editing import Editing
from cutline.app.screens.session_review.messages import (
    Loaded,
    LoadProgress,
    Planned,
    Preview,
    SourceChanged,
)
from cutline.app.screens.session_review.outward import Outward
from cutline.app.screens.session_review.panes import Panes
from cutline.app.screens.session_review.running import Running
from cutline.app.screens.session_review.state import NEEDS_PLAN, QUEUED_WHILE_LOADING, chars4_tokens
from cutline.app.widgets.context_view import ContextView
from cutline.app.widgets.desk_footer import DeskFooter
from cutline.app.widgets.detail import DetailPane
from cutline.app.widgets.gauge import BudgetGauge
from cutline.app.widgets.labels import format_label
from cutline.app.widgets.message_list import MessageList
from cutline.app.widgets.plan_overlay import context_since_compaction, plan_budget, plan_marks
from cutline.app.widgets.plan_why import PlanWhy
from cutline.app.widgets.proposal_view import ProposalView
from cutline.app.widgets.safe_text import one_line
from cutline.app.widgets.settings_panel import SettingsPanel
from cutline.app.widgets.summary_editor import SummaryEditor
from cutline.app.widgets.write_back_line import WriteBackLine
from cutline.core import workbench
from cutline.core.agents.follow import source_signature
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan
from cutline.core.engine.path_index import PathIndex
from cutline.core.errors import CutlineError
from cutline.core.models import Session
from cutline.core.workbench.entries import StoredEntries
from cutline.core.workbench.opening import LAZY_ENTRIES, LOAD_STEPS, PREVIEW_ENTRIES

# the workers that write the session file or read it: while one runs, the follower does not look
FILE_WORKERS = frozenset({"decide", "undo", "review-load"})


def made_plan(
    asked: int, index: PathIndex, settings: CompactionSettings, session: Session | None, rules: str | None
) -> Planned:
    """The plan of request `asked` (in a worker, or on the event loop when plans of this index are cheap), or why
    there is none; with the CPU time it took on this thread."""
    began = time.thread_time()
    try:
        plan = workbench.plan_on(index, settings, session, rules)
    except CutlineError as exc:
        return Planned(asked, None, settings, rules, str(exc), cost=time.thread_time() - began)
    return Planned(asked, plan, settings, rules, cost=time.thread_time() - began)


def plan_kind(settings: CompactionSettings, rules: str | None) -> tuple[str, str | None, str | None]:
    """What a plan's cost on one index depends on: what picks the mode and the rule set (a new one builds its
    projection), not the figures a settings change moves (keepRecentTokens, the reserve, the window)."""
    return (settings.mode, settings.rules, rules)


class _Posted:
    """The screen as the workbench's `Watcher`: an opening's steps and preview posted as messages (from its worker)."""

    def __init__(self, screen: ReviewScreen) -> None:
        self.screen = screen

    def progress(self, step: int, text: str, big: bool) -> None:
        self.screen.post_message(LoadProgress(step, text, big))

    def preview(self, entries: StoredEntries, tokens: list[int]) -> None:
        self.screen.post_message(Preview(entries, tokens))


class ReviewScreen(Editing, Counting, Running, Deciding, Afterwards, Outward, Panes):
    """One session under review."""

    # a maximised pane (z) keeps the title, the status line and the footer
    ALLOW_IN_MAXIMIZED_VIEW = ".-textual-system,Header,#status-bar,DeskFooter"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "back",
            "Back",
            id="review.back",
            tooltip="Back to the sessions (press twice; cancels a run first)",
        ),
        Binding("r", "run", "Run", id="review.run", tooltip="Run the compaction with the current settings"),
        Binding("ctrl+x", "cancel_run", "Cancel run", id="review.cancel", tooltip="Cancel the running compaction"),
        Binding("e", "edit", "Edit", id="review.edit", tooltip="Edit the proposed summary"),
        Binding("a", "accept", "Accept", id="review.accept", tooltip="Accept the proposal and write it to the session"),
        Binding(
            "K",
            "accept_store_only",
            "Accept, store only",
            show=False,
            id="review.accept_store",
            tooltip="Accept the proposal into the store without writing the session file",
        ),
        Binding(
            "W",
            "write_back_later",
            "Write back",
            show=False,
            id="review.write_back_later",
            tooltip="Write back a proposal accepted into the store only (accept's checks, a backup first)",
        ),
        Binding(
            "u",
            "undo",
            "Undo write-back",
            show=False,
            id="review.undo",
            tooltip="Undo the accepted proposal's write-back, as cutline undo (the file as before; the proposal open again)",
        ),
        Binding("x", "reject", "Reject", id="review.reject", tooltip="Reject the proposal"),
        Binding("v", "diff", "Diff", id="review.diff", tooltip="Diff two summary versions, revert to one"),
        Binding("s", "settings", "Settings", id="review.settings", tooltip="Show the settings panel"),
        Binding("c", "cycle_counter", "Counter", id="review.counter", tooltip="Switch the token counter"),
        Binding(
            "right_square_bracket",
            "keep_more",
            "Keep +1k",
            show=False,
            id="review.keep_more",
            tooltip="keepRecentTokens + 1000",
        ),
        Binding(
            "left_square_bracket",
            "keep_less",
            "Keep −1k",
            show=False,
            id="review.keep_less",
            tooltip="keepRecentTokens − 1000",
        ),
        Binding("d", "detail", "Entry", show=False, id="review.detail", tooltip="Show the selected entry"),
        Binding("w", "why", "Why", id="review.why", tooltip="Why the cut is where it is: the plan's explanation"),
        Binding("o", "proposal", "Proposal", show=False, id="review.proposal", tooltip="Show the proposal"),
        Binding(
            "right_curly_bracket",
            "next_section",
            "Next section",
            id="review.next_section",
            tooltip="The proposal's next section (summary, injected, recovery, … validation, quality guard)",
        ),
        Binding(
            "left_curly_bracket",
            "previous_section",
            "Prev section",
            id="review.previous_section",
            tooltip="The proposal's previous section",
        ),
        Binding("l", "focus_list", "List", show=False, id="review.list", tooltip="Focus the message list"),
        Binding("H", "history", "History", id="review.history", tooltip="Compaction history of this session"),
        Binding("A", "audit", "Audit", id="review.audit", tooltip="Audit what context a compaction lost"),
        Binding(
            "E",
            "export_session",
            "Export",
            show=False,
            id="review.export",
            tooltip="Download the session as a pi JSONL file",
        ),
        Binding(
            "T",
            "export_timeline",
            "Timeline",
            show=False,
            id="review.timeline",
            tooltip="Download the context timeline as an SVG image",
        ),
    ]

    # a path at least this long is shown from the store (rows read as they come into view) while it loads
    PREVIEW_ENTRIES = PREVIEW_ENTRIES
    # a path at least this long is never rebuilt in memory: planned from stored facts, entries read as needed
    LAZY_ENTRIES = LAZY_ENTRIES
    # a re-plan whose kind last cost less CPU than this is made on the event loop (`_plan_inline`); 0: always a worker
    INLINE_PLAN_S = 0.010
    # how often the session's file is looked at for what the agent appended
    FOLLOW_SECONDS = 1.0

    def __init__(self, ref: str) -> None:
        super().__init__(ref)

    # -- layout -------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(icon="✂")
        with Vertical(id="review-top"):
            yield BudgetGauge(id="budget")
            yield WriteBackLine(id="write-back-line")
        with Horizontal(id="review-main"):
            yield MessageList(id="message-list")
            with TabbedContent(initial="tab-entry", id="side"):
                with TabPane("Entry", id="tab-entry"):
                    yield DetailPane(id="detail")
                with TabPane("Why", id="tab-why"):
                    yield PlanWhy(id="why")
                with TabPane("Settings", id="tab-settings"):
                    yield Static(Text("loading…", style="dim"), id="settings-loading")
                with TabPane("Proposal", id="tab-proposal"):
                    yield ProposalView(id="proposal-view")
                with TabPane("Context", id="tab-context"):
                    yield ContextView(id="context-view")
                with TabPane("Summary", id="tab-summary"), Vertical():
                    with Horizontal(id="editor-bar"):
                        yield Static("", id="editor-tokens")
                        yield Static("", id="editor-saved")
                    editor = SummaryEditor(
                        "", id="summary-editor", soft_wrap=True, show_line_numbers=False, disabled=True
                    )
                    editor.cursor_blink = self.desk.cursor_blink
                    yield editor
        with Horizontal(id="status-bar"):
            yield Static("loading session…", id="status-text")
            yield ProgressBar(
                id="run-progress", show_eta=False, clock=Clock(get_time=lambda: self.desk.clock().timestamp())
            )
        yield DeskFooter()

    def on_mount(self) -> None:
        self.sub_title = self.ref
        message_list = self.query_one(MessageList)
        message_list.hold = self._hold_list_key
        message_list.focus()
        self.mark_panes()
        self.load()

    def shows(self, ref: str) -> bool:
        """Whether this screen is the review of `ref` (the reference it was opened with, or its session id)."""
        return ref == self.ref or (self.session is not None and ref == self.session.id)

    def on_unmount(self) -> None:
        self._cancel_run.set()  # a run's thread stops with the screen (the loop's executor waits for it at exit)

    # -- following a session the agent still writes ------------------------

    def follow(self, source: str) -> None:
        """Look at the session's file every FOLLOW_SECONDS; when it changed, reload (the import adds only what was appended).

        Why a timer and not a worker: the look is one stat (microseconds), and a worker
        that never ends would keep the screen from ever being idle.
        """
        self._followed = (source, source_signature(source))
        self.set_interval(self.FOLLOW_SECONDS, self._look_at_source, name="follow-source")

    def _look_at_source(self) -> None:
        source, last = self._followed
        if self.running or self._source_change_posted or self._writing_or_loading():
            return  # the desk's own write reloads by itself, and a load under way is looked at again after it
        now = source_signature(source)
        if now is not None and now != last:
            self._source_change_posted = True
            self.post_message(SourceChanged())

    def _writing_or_loading(self) -> bool:
        """Whether this screen writes the session file (a decision, an undo) or reads it (a load) right now."""
        return any(
            worker.node is self and worker.group in FILE_WORKERS and not worker.is_finished for worker in self.workers
        )

    @on(SourceChanged)
    def _source_changed(self) -> None:
        self._source_change_posted = False
        source, last = self._followed
        if self.session is None or not self.session.source_path or source_signature(source) in (None, last):
            return  # a reload begun since the change was seen has taken it in
        self.ref = self.session.source_path
        self.reload()

    def reload(self) -> None:
        """Load the session again after its file changed (the agent's line, or the desk's own write).

        The file is noted as it is now, before the load reads it: the follower does not reload what this load
        reads, and does reload what the agent appends while it runs.
        """
        source = self._followed[0]
        if source:
            self._followed = (source, source_signature(source))
        self.load(preview=False)

    # -- loading (thread) ---------------------------------------------------

    @work(thread=True, exclusive=True, group="review-load", exit_on_error=False, description="Loading the session")
    def load(self, preview: bool = True) -> None:
        opened = workbench.open_for_review(
            self.desk.store,
            self.ref,
            preview=preview,
            rules_override=self.rules_override,
            watcher=_Posted(self),
            preview_entries=self.PREVIEW_ENTRIES,
            lazy_entries=self.LAZY_ENTRIES,
        )
        # the plan is made here too, under the settings the screen will show (the opened session's on a first load,
        # the ones the person set on a reload): ~0.1-0.25 s at 100,000 entries the event loop does not spend
        settings = opened.settings if self._opened is None else self.settings
        rules = self.rules_override
        planned = made_plan(0, opened.path_index, settings, opened.session, rules)
        planned.index = opened.path_index
        self.post_message(Loaded(opened, planned))

    @on(Preview)
    def _previewed_rows(self, message: Preview) -> None:
        if not self.session_loading:
            return
        self._previewed = True
        self.query_one(MessageList).set_entries(message.entries, message.tokens)
        self._plan_pending("reading the path's facts")

    @on(LoadProgress)
    def _load_progress(self, message: LoadProgress) -> None:
        if not self.session_loading:
            return
        self._load_text = message.text
        if message.big:
            bar = self.query_one("#run-progress", ProgressBar)
            bar.add_class("-running")
            bar.update(total=LOAD_STEPS, progress=message.step)
        self._plan_pending(message.text, message.step)
        self._show_load_status()

    def _plan_pending(self, text: str, step: int | None = None) -> None:
        """Gauge and Why say the plan is pending, and at which loading step (a long session's rows come first)."""
        if self.plan is not None:
            return  # a reload: the last plan stays drawn until the new one
        progress = f" (step {step + 1} of {LOAD_STEPS})" if step is not None else ""
        pending = f"plan pending · {text}{progress}"
        self.query_one(BudgetGauge).pending(pending)
        self.query_one(PlanWhy).pending(pending)

    def _hold_list_key(self, action: str) -> bool:
        """A list key with nothing to act on yet (no rows, or no cut drawn): kept in order with the screen's keys."""
        return self._queue(f"list:{action}")

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        result = message.result
        first_load = self._opened is None
        self._opened = result
        self._plan_asked += 1  # a re-plan still being made is of the path before this load: its plan is dropped
        self.session = result.session
        self.path = result.path
        self._stored = result.stored
        self.tokens = result.tokens
        self._calibration_ratio = result.calibration_ratio
        mounted: AwaitMount | None = None
        if first_load:
            self.settings = result.settings
        self._outside = result.outside
        self.counter = "chars4"
        self._path_index = result.path_index
        name = self.session.name or (
            Path(self.session.source_path).name if self.session.source_path else self.session.id
        )
        shown = format_label(self.session.format, self.session.version)
        self.sub_title = f"{one_line(name, 60)} · {shown} · {len(self.path):,} entries"
        self.query_one(WriteBackLine).show(result.write_back)
        detail = self.query_one(DetailPane)
        detail.call_paths = result.call_paths
        self._indexes = {"chars4": result.path_index}
        message_list = self.query_one(MessageList)
        # on the stored rows shown while loading the person may have moved already: the cut does not take the cursor
        self._cursor_moved = self._previewed and message_list.cursor != message_list.row_count - 1
        message_list.set_entries(self.path, self.tokens[self.counter], result.pairs, keep_cursor=self._previewed)
        self._previewed = False
        if not first_load:
            self._sync_settings_panel()
        if first_load and self.session.source_path:
            self.follow(self.session.source_path)
        if first_load:
            pane = self.query_one("#tab-settings", TabPane)
            self.query_one("#settings-loading").remove()
            mounted = pane.mount(
                SettingsPanel(
                    self.settings,
                    self.counter,
                    cursor_blink=self.desk.cursor_blink,
                    on_change=self.on_settings_panel_changed,
                    id="settings",
                )
            )
        planned = message.planned
        if planned is not None:
            self._note_cost(planned)
        if (
            planned is not None
            and planned.plan is not None
            and planned.settings == self.settings
            and planned.rules == self.rules_override
        ):
            self._plan_drawn()
            self._when_planned = None  # the load says what it says (below)
            self._draw_plan(planned.plan)
        else:
            self.replan()  # the settings changed while it loaded: planned again, in a worker
        self.proposal = result.proposal
        self.proposal_status = result.proposal_status
        self.versions = [self._version(v) for v in result.versions]
        self._show_proposal(load_editor=True)
        status = f"{len(self.path):,} entries on the active path"
        if self.session.problems:
            status += f" · {len(self.session.problems)} problems reading the file"
        if result.notice:
            status = f"{result.notice} · {status}"
        if self.said_before_reload:  # what a decision or an undo did stays said after the reloads it causes
            status = f"{self.said_before_reload} · {status}"
        self.set_status(status)
        if self.session_loading:
            self.session_loading = False
            self.query_one("#run-progress", ProgressBar).remove_class("-running")
        self.refresh_bindings()  # run / edit / accept availability changed with the plan and proposal
        self.refresh_context()
        queued, self._queued = self._queued, []
        if queued:
            self.call_after_refresh(self._replay_keys, queued, mounted)

    async def _replay_keys(self, queued: list[str], mounted: AwaitMount | None) -> None:
        """Run the keys pressed while the session loaded, in the order pressed (once the settings panel is there)."""
        if mounted is not None:
            await mounted
        self._replay(queued)

    def _replay(self, queued: list[str]) -> None:
        """Run kept keys in order; one that needs the plan while a re-plan is pending waits for it, with those after it."""
        message_list = self.query_one(MessageList)
        for at, action in enumerate(queued):
            if self.replanning and action in NEEDS_PLAN:
                self._queued = queued[at:] + self._queued
                return
            target, _, name = action.rpartition(":")
            getattr(message_list if target == "list" else self, f"action_{name}")()

    # -- planning (a worker: ~0.1-0.25 s at 100,000 entries, never on the event loop) ----

    def replan(self, when_drawn: Callable[[], None] | None = None) -> None:
        """Plan with the current settings and counter in a worker; until it is drawn, gauge and Why say it is pending.

        Each request is numbered: a newer one supersedes an older one (whose plan, if it is
        still made, is dropped), and `when_drawn` runs once the latest plan is drawn (the
        status line that names the cut). Keys that act on the plan (`NEEDS_PLAN`) wait for it.
        """
        if self._path_index is None:
            return
        self._plan_asked += 1
        if self._plan_inline(self._plan_asked, self._path_index, when_drawn):
            return
        self.replanning = True
        self._when_planned = when_drawn
        self.query_one(MessageList).marks_pending = True
        pending = f"plan pending · keepRecentTokens {self.settings.keepRecentTokens:,} ({self.counter})"
        self.query_one(BudgetGauge).pending(pending)
        self.query_one(PlanWhy).pending(pending)
        # begun once the frame that says so is drawn: a planner thread begun at once takes the interpreter
        # from that frame's rendering every few milliseconds (the pending state reached the screen 60 ms late)
        self.call_after_refresh(self._plan_now, self._plan_asked)

    def _plan_inline(self, asked: int, index: PathIndex, when_drawn: Callable[[], None] | None) -> bool:
        """Make and draw request `asked`'s plan here, in the key's own frame, when the last plan of this kind took
        under `INLINE_PLAN_S` (a re-plan of a warmed index: ~1-4 ms at 100,000 entries); False: a worker makes it.

        Why: a worker's plan reaches the screen a frame later than the pending state, however fast it is made
        (~50 ms at load ~1.5, 90-145 ms at load 7-10, for a plan of 2-11 ms). Never while a worker plans.
        """
        cost = self._plan_costs.get(plan_kind(self.settings, self.rules_override))
        if self.replanning or index is not self._costs_of or cost is None or cost > self.INLINE_PLAN_S:
            return False
        if not self._plan_lock.acquire(blocking=False):
            return False
        try:
            planned = made_plan(asked, index, self.settings, self.session, self.rules_override)
        finally:
            self._plan_lock.release()
        self._when_planned = when_drawn
        self._planned(planned)
        return True

    def _note_cost(self, planned: Planned) -> None:
        """Keep what a plan of its index and kind cost (the costs of another index are forgotten)."""
        if planned.index is None or planned.cost is None:
            return
        if planned.index is not self._costs_of:
            self._costs_of, self._plan_costs = planned.index, {}
        self._plan_costs[plan_kind(planned.settings, planned.rules)] = planned.cost

    def _plan_now(self, asked: int) -> None:
        """Start request `asked`'s worker, unless a newer request came before the frame was drawn."""
        if asked == self._plan_asked and self._path_index is not None:
            self.make_plan(asked, self._path_index, self.settings, self.session, self.rules_override)

    @work(thread=True, exclusive=True, group="replan", exit_on_error=False, description="Planning")
    def make_plan(
        self, asked: int, index: PathIndex, settings: CompactionSettings, session: Session | None, rules: str | None
    ) -> None:
        with self._plan_lock:
            if asked != self._plan_asked:
                return  # superseded before it began: not made at all
            planned = made_plan(asked, index, settings, session, rules)
            planned.index = index
        self.post_message(planned)

    @on(Planned)
    def _planned(self, message: Planned) -> None:
        self._note_cost(message)
        if message.asked != self._plan_asked:
            return  # a newer request (or a reload) came since: its plan is the one to draw
        self._plan_drawn()
        when_drawn, self._when_planned = self._when_planned, None
        if message.plan is None:
            self._plan_not_made(f"no plan with these settings: {message.error}")
            held = [action for action in self._queued if action in NEEDS_PLAN]
            self._queued = [action for action in self._queued if action not in NEEDS_PLAN]
            dropped = f" · {len(held)} key(s) for it dropped" if held else ""
            self.set_status(f"no plan with these settings: {message.error}{dropped}")
        else:
            self._draw_plan(message.plan)
            if self._queued and not self.session_loading:
                kept = len(self._queued)  # the status said they were kept: now they run
                self.set_status(f"plan drawn · {kept} kept key{'s' if kept != 1 else ''} run")
            if when_drawn is not None:
                when_drawn()
        if self._queued and not self.session_loading:
            queued, self._queued = self._queued, []
            self._replay(queued)

    def _plan_drawn(self) -> None:
        """No re-plan is pending any more (the latest was drawn, or a load brought its own)."""
        self.replanning = False
        self.query_one(MessageList).marks_pending = False

    def _plan_not_made(self, why: str) -> None:
        """The last plan stays drawn, no longer pending; with none drawn yet, gauge and Why say why there is none."""
        if self.plan is None:
            self.query_one(BudgetGauge).pending(why)
            self.query_one(PlanWhy).pending(why)
            return
        self._update_gauge()
        self.query_one(PlanWhy).pending("")

    def _draw_plan(self, plan: CompactionPlan) -> None:
        """Draw a plan: the list's zones and cut, the gauge, the Why view; the cut kept in view."""
        self.plan = plan
        message_list = self.query_one(MessageList)
        old_cut = message_list.cut_row
        message_list.set_plan(plan_marks(plan, self._outside))
        self._update_gauge()
        self.query_one(PlanWhy).show(plan)
        self._keep_cut_in_view(old_cut)

    def _keep_cut_in_view(self, old_cut: int | None) -> None:
        """After a re-plan: a cursor that sat on the cut follows it; otherwise the list scrolls the cut into view."""
        message_list = self.query_one(MessageList)
        marks = message_list.marks
        if marks is None or marks.first_kept is None or message_list.cut_row == old_cut:
            return
        if old_cut is None and self._cursor_moved:
            self._cursor_moved = False
            return
        if old_cut is None or message_list.cursor == old_cut:
            message_list.cursor = marks.first_kept  # the cursor follows the cut…
            if old_cut is not None and message_list.scrollable_content_region.height > 0:
                message_list.action_jump_cut()  # …centred in this frame (one repaint, not two)
            else:
                self.call_after_refresh(message_list.action_jump_cut)  # …centred once the list has its size
            return

        def show_cut() -> None:
            cut = message_list.cut_row
            if cut is None:
                return
            height = max(1, message_list.scrollable_content_region.height)
            top = round(message_list.scroll_y)
            if not top <= cut < top + height:
                message_list.scroll_to(y=max(0, cut - height // 2), animate=False, immediate=True)

        if old_cut is not None and message_list.scrollable_content_region.height > 0:
            show_cut()  # the list has its size: scrolled in this frame, not a second one after it
        else:
            self.call_after_refresh(show_cut)

    def _update_gauge(self) -> None:
        if self.plan is None:
            return
        after, source = None, "proposal"
        if self.proposal is not None and self.proposal.counter == self.counter and self.proposal_status == "open":
            after = self.proposal.tokensAfter
            text = self._current_text()
            if text is not None and text != self.proposal.summary:
                # the edit's difference, in chars4 tokens, on top of the proposal's own figure
                after = max(0, after + chars4_tokens(text) - chars4_tokens(self.proposal.summary))
                source = "edited summary"
        index = self._path_index
        current = context_since_compaction(index) if index is not None and self.plan.alreadyCompacted else None
        self.query_one(BudgetGauge).show(plan_budget(self.plan, after, current, source))

    # -- tabs and focus -----------------------------------------------------

    def action_settings(self) -> None:
        self.query_one(TabbedContent).active = "tab-settings"
        for panel in self.query(SettingsPanel):
            panel.focus_first()

    def action_detail(self) -> None:
        self.query_one(TabbedContent).active = "tab-entry"

    def action_why(self) -> None:
        self.query_one(TabbedContent).active = "tab-why"

    def action_proposal(self) -> None:
        self.query_one(TabbedContent).active = "tab-proposal"

    def action_next_section(self) -> None:
        self._jump_section(1)

    def action_previous_section(self) -> None:
        self._jump_section(-1)

    def _jump_section(self, delta: int) -> None:
        """Show the proposal and scroll its next or previous section to the top (after a refresh when just shown)."""
        tabs = self.query_one(TabbedContent)
        view = self.query_one(ProposalView)

        def jump() -> None:
            target = view.jump(delta)
            self.set_status(
                f"proposal: {target}" if target else f"proposal: no {'next' if delta > 0 else 'previous'} section"
            )

        if tabs.active != "tab-proposal":
            tabs.active = "tab-proposal"
            self.call_after_refresh(jump)
        else:
            jump()

    def action_focus_list(self) -> None:
        self.query_one(MessageList).focus()

    def show_entry(self, entry_id: str) -> bool:
        """Put the list's cursor on an entry of the path (the audit's way to a fact's source); False when not on it."""
        index = next((i for i, entry in enumerate(self.path) if entry.id == entry_id), None)
        if index is None:
            return False
        message_list = self.query_one(MessageList)
        message_list.cursor = index
        message_list.centre_cursor()  # not at the very top: the rows before it are its context
        message_list.focus()
        self.action_detail()
        return True

    def action_back(self) -> None:
        focused = self.focused
        if focused is not None and not isinstance(focused, MessageList):
            self.query_one(MessageList).focus()
            return
        if self.running:
            self.action_cancel_run()
            return
        if self.session is not None and not self._leave_armed:  # one stray Esc never leaves a loaded session
            self._leave_armed = True
            self.set_status("Esc again: back to the sessions (this session stays as you tuned it) · q quits")
            return
        self._leave_armed = False
        self.flush_pending()
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.desk.show_sessions()

    def on_key(self, event: events.Key) -> None:
        if event.key != "escape":
            self._leave_armed = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        has_open = self.proposal is not None and self.proposal_status == "open"
        if self.session_loading and action in QUEUED_WHILE_LOADING:
            return True  # kept and run once the session is loaded
        if action == "cancel_run":
            return bool(self.running)
        if action == "run":
            return None if self.running or self.plan is None else True
        if action in ("edit", "diff"):
            return True if self.proposal is not None else None
        if action in ("accept", "accept_store_only", "reject"):
            return True if has_open and not self.running else None
        if action in ("undo", "write_back_later"):
            return (
                True if self.proposal is not None and self.proposal_status == "accepted" and not self.running else None
            )
        if action in ("next_section", "previous_section"):
            return self.proposal is not None and not self.running
        return True

    # -- run (async worker) -------------------------------------------------

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group == "compact":
            if event.state == WorkerState.CANCELLED or self._cancel_run.is_set():
                return  # action_cancel_run has already told the user
            if event.state == WorkerState.ERROR:
                self._run_finished("compaction failed")
                self.query_one(ProposalView).show(self.proposal, self._current_text(), self.proposal_status)
        elif worker.group == "decide" and event.state == WorkerState.ERROR:
            self.writing_failed()
        elif worker.group == "store-proposal" and event.state == WorkerState.ERROR:
            self._run_finished("saving the proposal failed")
        elif worker.group == "replan" and event.state == WorkerState.ERROR:
            self._plan_drawn()  # the error is shown (below)
            self._plan_not_made("no plan: planning failed")
            self._queued = [action for action in self._queued if action not in NEEDS_PLAN]
        elif worker.group == "review-load" and event.state == WorkerState.ERROR:
            self.session_loading = False
            self._queued.clear()
            self.query_one("#run-progress", ProgressBar).remove_class("-running")
            self.set_status("could not load the session")
        self.desk.report_worker(event)
