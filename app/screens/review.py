"""The review screen of one session: message list with the plan, budget gauge, detail, settings, run, edit, accept."""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.clock import Clock
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import AwaitMount
from textual.widgets import Footer, Header, ProgressBar, Static, TabbedContent, TabPane, TextArea
from textual.worker import Worker, WorkerState

from cutline.app.desk import OnDesk
from cutline.app.screens.versions import Version
from cutline.app.widgets.context_view import ContextView
from cutline.app.widgets.detail import DetailPane, EntryFacts
from cutline.app.widgets.gauge import BudgetGauge
from cutline.app.widgets.labels import format_label, plural
from cutline.app.widgets.message_list import MessageList
from cutline.app.widgets.plan_why import PlanWhy
from cutline.app.widgets.proposal_view import ProposalView
from cutline.app.widgets.safe_text import one_line, short_path
from cutline.app.widgets.summary_editor import SummaryEditor
from cutline.app.widgets.write_back_line import WriteBackLine
from cutline.core import workbench
from cutline.core.choices import LOCAL_COUNTERS
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan
from cutline.core.engine.path_index import PathIndex
from cutline.core.engine.proposal import Proposal
from cutline.core.models import Entry, Session
from cutline.core.workbench.entries import StoredEntries
from cutline.core.workbench.opening import LAZY_ENTRIES, LOAD_STEPS, PREVIEW_ENTRIES, Opened
from cutline.core.workbench.stored_path import StoredPath

if TYPE_CHECKING:
    from cutline.app.widgets.settings_panel import SettingsPanel
    from cutline.core.engine.summary_run import ProgressEvent
    from cutline.core.review import Origin, SummaryVersion

COUNTER_CYCLE = LOCAL_COUNTERS
# the screen's keys that need the loaded session: pressed while it loads, they run once it is loaded
QUEUED_WHILE_LOADING = frozenset(
    {
        "run",
        "keep_more",
        "keep_less",
        "cycle_counter",
        "history",
        "audit",
        "export_session",
        "export_timeline",
        "accept",
        "accept_store_only",
        "reject",
        "edit",
        "diff",
    }
)


class Loaded(Message):
    def __init__(self, result: Opened) -> None:
        self.result = result
        super().__init__()


class Preview(Message):
    """A long path's rows, read from the store, to show while the session itself is rebuilt."""

    def __init__(self, entries: StoredEntries, tokens: list[int]) -> None:
        self.entries = entries
        self.tokens = tokens
        super().__init__()


class LoadProgress(Message):
    def __init__(self, step: int, text: str, big: bool) -> None:
        self.step = step
        self.text = text
        self.big = big  # worth a progress bar (a small session loads before it would be seen)
        super().__init__()


class SourceChanged(Message):
    """The session's file grew (or changed) on disk: the agent is still writing it."""


class CountsReady(Message):
    def __init__(self, counter: str, tokens: list[int], index: PathIndex) -> None:
        self.counter = counter
        self.tokens = tokens
        self.index = index
        super().__init__()


class EntryCounts(Message):
    def __init__(self, index: int, counts: dict[str, int | None]) -> None:
        self.index = index
        self.counts = counts
        super().__init__()


class RunProgress(Message):
    def __init__(self, stage: str, part: int | None, parts: int | None, detail: str) -> None:
        self.stage = stage
        self.part = part
        self.parts = parts
        self.detail = detail
        super().__init__()


class ContextReady(Message):
    """The agent's next context as text: now, and after the open proposal is written back (or why not)."""

    def __init__(self, now: str, after: str | None, after_note: str) -> None:
        super().__init__()
        self.now = now
        self.after = after
        self.after_note = after_note


class ProposalComputed(Message):
    def __init__(self, run: int, proposal: Proposal) -> None:
        self.run = run
        self.proposal = proposal
        super().__init__()


class RunRefused(Message):
    """The run made no proposal worth storing (or could not start): why, in one line."""

    def __init__(self, run: int, reason: str) -> None:
        self.run = run
        self.reason = reason
        super().__init__()


class AcceptPrepared(Message):
    """What accepting would write, read off the UI thread, for the accept dialog."""

    def __init__(self, preview: workbench.AcceptPreview, store_only: bool) -> None:
        self.preview = preview
        self.store_only = store_only
        super().__init__()


class ProposalStored(Message):
    def __init__(self, proposal: Proposal, versions: list[Version]) -> None:
        self.proposal = proposal
        self.versions = versions
        super().__init__()


class VersionSaved(Message):
    def __init__(self, version: Version) -> None:
        self.version = version
        super().__init__()


class Decided(Message):
    def __init__(self, decision: str, detail: str) -> None:
        self.decision = decision
        self.detail = detail
        super().__init__()


class _Posted:
    """The screen as the workbench's `Watcher`: an opening's steps and preview posted as messages (from its worker)."""

    def __init__(self, screen: ReviewScreen) -> None:
        self.screen = screen

    def progress(self, step: int, text: str, big: bool) -> None:
        self.screen.post_message(LoadProgress(step, text, big))

    def preview(self, entries: StoredEntries, tokens: list[int]) -> None:
        self.screen.post_message(Preview(entries, tokens))


def _chars4(text: str) -> int:
    """A text's chars4 tokens, as the editor counts them."""
    from cutline.core.tokens.jsjson import js_length

    return math.ceil(js_length(text) / 4)


class ReviewScreen(OnDesk, Screen[None]):
    """One session under review."""

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
    # how often the session's file is looked at for what the agent appended
    FOLLOW_SECONDS = 1.0

    def __init__(self, ref: str) -> None:
        super().__init__()
        self.ref = ref
        self.session_loading = True
        self._queued: list[str] = []
        self._previewed = False
        self._cursor_moved = False
        self._load_text = ""
        self._indexes: dict[str, PathIndex] = {}
        self._followed: tuple[str, object] = ("", None)
        self.session: Session | None = None
        self.path: Sequence[Entry] = []
        self._stored: StoredPath | None = None
        self._opened: Opened | None = None
        self._context_wanted = False
        self.tokens: dict[str, list[int]] = {}
        self.counter = "chars4"
        self.settings = CompactionSettings()
        self._calibration_ratio: float | None = 1.0
        self.plan: CompactionPlan | None = None
        self._path_index: PathIndex | None = None
        self.rules_override: str | None = None  # a rule set picked in the settings panel
        self._outside = 0
        self.proposal: Proposal | None = None
        self.proposal_status = "open"
        self.versions: list[Version] = []
        self.pending_text: str | None = None
        self._loading_editor = False
        self._autosave: Timer | None = None
        self.running = False
        self._run_id = 0
        self._leave_armed = False
        self._cancel_run = threading.Event()
        self.progress_lines: list[str] = []
        self._run_stage = ""
        self._run_deadline: datetime | None = None
        self._run_ticker: Timer | None = None
        self._entry_counts: dict[tuple[int, str], int] = {}
        # one entry count at a time: a cursor moving while the session loads started one worker per row, and each
        # built its own tiktoken encoder and fitted its own calibration (concurrent misses of the same caches),
        # their collections holding the screen for 100-250 ms each
        self._entry_count_lock = threading.Lock()

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
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.ref
        message_list = self.query_one(MessageList)
        message_list.hold = self._hold_list_key
        message_list.focus()
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
        from cutline.core.agents.follow import source_signature

        self._followed = (source, source_signature(source))
        self.set_interval(self.FOLLOW_SECONDS, self._look_at_source, name="follow-source")

    def _look_at_source(self) -> None:
        from cutline.core.agents.follow import source_signature

        source, last = self._followed
        now = source_signature(source)
        if now is None or now == last or self.running:
            return
        self._followed = (source, now)
        self.post_message(SourceChanged())

    @on(SourceChanged)
    def _source_changed(self) -> None:
        if self.session is not None and self.session.source_path:
            self.ref = self.session.source_path
            self.load(preview=False)

    # -- status -------------------------------------------------------------

    def set_status(self, text: str) -> None:
        self.query_one("#status-text", Static).update(Text(text), layout=False)

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
        self.post_message(Loaded(opened))

    @property
    def calibration_ratio(self) -> float:
        """The calibrated counter's ratio to chars4; for a stored path fitted on first use (read it in a worker)."""
        if self._calibration_ratio is None:
            calibration = self._stored.calibration(self.tokens["chars4"]) if self._stored is not None else None
            self._calibration_ratio = calibration.ratio if calibration is not None else 1.0
        return self._calibration_ratio

    def _whole(self, session: Session) -> Session:
        """The session with every entry: rebuilt from the store (in a worker) when the desk shows it from stored columns."""
        if self._stored is not None and not session.entries:
            return self.desk.store.load_session(session.id)
        return session

    @on(Preview)
    def _previewed_rows(self, message: Preview) -> None:
        if not self.session_loading:
            return
        self._previewed = True
        self.query_one(MessageList).set_entries(message.entries, message.tokens)

    @on(LoadProgress)
    def _load_progress(self, message: LoadProgress) -> None:
        if not self.session_loading:
            return
        self._load_text = message.text
        if message.big:
            bar = self.query_one("#run-progress", ProgressBar)
            bar.add_class("-running")
            bar.update(total=LOAD_STEPS, progress=message.step)
        self._show_load_status()

    def _show_load_status(self) -> None:
        queued = len(self._queued)
        kept = f" · {queued} key{'s' if queued != 1 else ''} kept for when it is loaded" if queued else ""
        rows = " · rows shown as stored" if self._previewed else ""
        self.set_status(f"loading session… {self._load_text}{rows}{kept}")

    def _queue(self, action: str) -> bool:
        """Keep a key that needs the session while it loads; True when it was kept (it runs once loaded)."""
        if not self.session_loading:
            return False
        self._queued.append(action)
        self._show_load_status()
        return True

    def _hold_list_key(self, action: str) -> bool:
        """A list key with nothing to act on yet (no rows, or no cut drawn): kept in order with the screen's keys."""
        return self._queue(f"list:{action}")

    @staticmethod
    def _version(row: SummaryVersion) -> Version:
        return Version(n=row.n, origin=row.origin, created_at=row.created_at, text=row.text, tokens=row.tokens)

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        from cutline.app.widgets.settings_panel import SettingsPanel

        result = message.result
        self._opened = result
        self.session = result.session
        self.path = result.path
        self._stored = result.stored
        self.tokens = result.tokens
        self._calibration_ratio = result.calibration_ratio
        first_load = self.plan is None
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
        self.replan()
        self.proposal = result.proposal
        self.proposal_status = result.proposal_status
        self.versions = [self._version(v) for v in result.versions]
        self._show_proposal(load_editor=True)
        status = f"{len(self.path):,} entries on the active path"
        if self.session.problems:
            status += f" · {len(self.session.problems)} problems reading the file"
        if result.notice:
            status = f"{result.notice} · {status}"
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
        message_list = self.query_one(MessageList)
        for action in queued:
            target, _, name = action.rpartition(":")
            getattr(message_list if target == "list" else self, f"action_{name}")()

    # -- planning (pure, on the main thread: milliseconds) -------------------

    def replan(self) -> None:
        """Plan with the current settings and counter, and draw it."""
        from cutline.app.widgets.plan_overlay import plan_marks

        if self._path_index is None:
            return
        self.plan = workbench.plan_on(self._path_index, self.settings, self.session, self.rules_override)
        message_list = self.query_one(MessageList)
        old_cut = message_list.cut_row
        message_list.set_plan(plan_marks(self.plan, self._outside))
        self._update_gauge()
        self.query_one(PlanWhy).show(self.plan)
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

    def _rules_for(self, session: Session | None) -> str | None:
        """The settings panel's forced rule set, else what an OpenClaw store or version-4 header tells, else None (the path)."""
        return workbench.rules_for(session, self.rules_override)

    def _update_gauge(self) -> None:
        from cutline.app.widgets.plan_overlay import context_since_compaction, plan_budget

        if self.plan is None:
            return
        after, source = None, "proposal"
        if self.proposal is not None and self.proposal.counter == self.counter and self.proposal_status == "open":
            after = self.proposal.tokensAfter
            text = self._current_text()
            if text is not None and text != self.proposal.summary:
                # the edit's difference, in chars4 tokens, on top of the proposal's own figure
                after = max(0, after + _chars4(text) - _chars4(self.proposal.summary))
                source = "edited summary"
        index = self._path_index
        current = context_since_compaction(index) if index is not None and self.plan.alreadyCompacted else None
        self.query_one(BudgetGauge).show(plan_budget(self.plan, after, current, source))

    @on(MessageList.Highlighted)
    def _highlighted(self, message: MessageList.Highlighted) -> None:
        if message.index != self.query_one(MessageList).cursor:
            return  # the cursor moved on already (opening jumps from the last entry to the cut)
        self._show_entry(message.index)

    @on(MessageList.Selected)
    def _selected(self, message: MessageList.Selected) -> None:
        self.query_one(TabbedContent).active = "tab-entry"
        self._show_entry(message.index)

    def _show_entry(self, index: int) -> None:
        if not (0 <= index < len(self.path)):
            self.query_one(DetailPane).show(None)
            return
        entry = self.path[index]
        marks = self.query_one(MessageList).marks
        zone = marks.zone(index) if marks else "context"
        counts: dict[str, int | None] = {}
        for counter in COUNTER_CYCLE:
            if counter in self.tokens:
                counts[counter] = self.tokens[counter][index]
            else:
                counts[counter] = self._entry_counts.get((index, counter))
        from cutline.core.engine.context import entry_message

        message = entry_message(entry)
        self.query_one(DetailPane).show(entry, EntryFacts(zone=zone, tokens=counts), message)
        if any(v is None for v in counts.values()):
            self.count_entry(index)

    @work(thread=True, exclusive=True, group="entry-counts", exit_on_error=False, description="Counting tokens")
    def count_entry(self, index: int) -> None:
        from cutline.core.tokens import CalibratedCounter, entry_tokens, get_counter

        with self._entry_count_lock:
            entry = self.path[index]
            chars4 = self.tokens["chars4"][index]
            counts: dict[str, int | None] = {
                "chars4": chars4,
                "tiktoken": entry_tokens(entry, get_counter("tiktoken")),
                "calibrated": CalibratedCounter(self.calibration_ratio).scale(chars4),  # a worker: may work it out
            }
        self.post_message(EntryCounts(index, counts))

    @on(EntryCounts)
    def _entry_counted(self, message: EntryCounts) -> None:
        for counter, value in message.counts.items():
            if value is not None:
                self._entry_counts[(message.index, counter)] = value
        if self.query_one(MessageList).cursor == message.index:
            self._show_entry(message.index)

    # -- settings -----------------------------------------------------------

    def on_settings_panel_changed(self, message: SettingsPanel.Changed) -> None:
        self.settings = message.settings
        self.rules_override = message.rules
        if message.counter != self.counter:
            self.switch_counter(message.counter)
        else:
            self.replan()
            note = self._disagreement_note()
            if note:
                self.set_status(note.removeprefix(" · "))

    def _sync_settings_panel(self) -> None:
        from cutline.app.widgets.settings_panel import SettingsPanel

        for panel in self.query(SettingsPanel):
            panel.set_values(self.settings, self.counter)

    def _nudge_keep(self, delta: int) -> None:
        self.settings = self.settings.with_overrides(keepRecentTokens=max(0, self.settings.keepRecentTokens + delta))
        self._sync_settings_panel()
        self.replan()
        self.set_status(f"keepRecentTokens {self.settings.keepRecentTokens:,}" + self._disagreement_note())

    def _disagreement_note(self) -> str:
        if self.cut_disagreement() is None:
            return ""
        return " · not the open proposal's cut: a writes the proposal's, r proposes this one"

    def action_keep_more(self) -> None:
        if self._queue("keep_more"):
            return
        self._nudge_keep(1000)

    def action_keep_less(self) -> None:
        if self._queue("keep_less"):
            return
        self._nudge_keep(-1000)

    def action_cycle_counter(self) -> None:
        if self._queue("cycle_counter"):
            return
        position = COUNTER_CYCLE.index(self.counter) if self.counter in COUNTER_CYCLE else -1
        self.switch_counter(COUNTER_CYCLE[(position + 1) % len(COUNTER_CYCLE)])

    def switch_counter(self, counter: str) -> None:
        if counter in self._indexes and counter in self.tokens:
            self._use_counter(counter)
        else:
            self.set_status(f"counting tokens with {counter}…")
            self.count_session(counter)

    @work(thread=True, exclusive=True, group="session-counts", exit_on_error=False, description="Counting tokens")
    def count_session(self, counter: str) -> None:
        opened = self._opened
        if opened is None:
            return  # nothing loaded yet to count
        tokens, index = workbench.counted(self.desk.store, opened, counter, self.calibration_ratio)
        # the index is a pass over the whole path: built and warmed here, not on the event loop
        self.post_message(
            CountsReady(counter, tokens, workbench.warmed(index, self.settings, self._rules_for(self.session)))
        )

    @on(CountsReady)
    def _counts_ready(self, message: CountsReady) -> None:
        if len(message.tokens) != len(self.path):
            return  # counted for a path since reloaded
        self.tokens[message.counter] = message.tokens
        self._indexes[message.counter] = message.index
        self._use_counter(message.counter)

    def _use_counter(self, counter: str) -> None:
        self.counter = counter
        index = self._indexes.get(counter)
        if index is None and self._opened is not None:
            index = self._indexes[counter] = workbench.index_for(self._opened, self.tokens[counter], counter)
        self._path_index = index
        self.query_one(MessageList).set_tokens(self.tokens[counter])
        self._sync_settings_panel()
        self.replan()
        ratio = f" (ratio {self.calibration_ratio:.2f} to chars4)" if counter == "calibrated" else ""
        self.set_status(f"token counter: {counter}{ratio}")

    # -- tabs and focus -----------------------------------------------------

    def action_settings(self) -> None:
        from cutline.app.widgets.settings_panel import SettingsPanel

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
        if action in ("next_section", "previous_section"):
            return self.proposal is not None and not self.running
        return True

    # -- run (async worker) -------------------------------------------------

    def action_run(self) -> None:
        if self._queue("run"):
            return
        if self.running or self.plan is None or self.session is None:
            return
        if self.plan.alreadyCompacted:
            self.notify(
                "The last entry is already a compaction: continue the session in the agent, then re-import it.",
                title="Nothing to compact",
                severity="warning",
                timeout=8,
                markup=False,
            )
            return
        if self.plan.nothingToCompact or (self.plan.messagesToSummarize == 0 and self.plan.turnPrefixMessages == 0):
            self.notify(
                f"keepRecentTokens {self.plan.keepRecentTokens:,} keeps the whole history: "
                "press [ to keep 1,000 fewer, or s to set it.",
                title="Nothing to summarize",
                severity="warning",
                timeout=8,
                markup=False,
            )
            return
        self.flush_pending()
        self.running = True
        self.progress_lines = [f"running {self.settings.mode} with {self.settings.summarizer}…"]
        bar = self.query_one("#run-progress", ProgressBar)
        bar.add_class("-running")
        bar.update(total=None, progress=0)
        self.query_one(TabbedContent).active = "tab-proposal"
        self.query_one(ProposalView).show_progress(self.progress_lines)
        self._run_stage = " compaction…"
        self._run_deadline = self.desk.clock() + timedelta(seconds=self.settings.timeoutSeconds)
        self._show_run_status()
        self._run_ticker = self.set_interval(1.0, self._show_run_status)
        self.refresh_bindings()
        self._run_id += 1
        self._cancel_run = threading.Event()
        self.run_compaction(self._run_id, self._cancel_run, self.plan, self.session, self.settings)

    def _show_run_status(self) -> None:
        """The running stage and the time left before the run's deadline stops it."""
        if not self.running or self._run_deadline is None:
            return
        left = max(0, math.ceil((self._run_deadline - self.desk.clock()).total_seconds()))
        self.set_status(f"running{self._run_stage} · {left // 60}:{left % 60:02d} left (ctrl+x cancels)")

    @work(thread=True, exclusive=True, group="compact", exit_on_error=False, description="Compaction")
    def run_compaction(
        self, run: int, cancel: threading.Event, plan: CompactionPlan, session: Session, settings: CompactionSettings
    ) -> None:
        """Summarize off the event loop (a big session is seconds of CPU), so keys and ctrl+x stay live."""

        def progress(event: ProgressEvent) -> None:
            if not cancel.is_set():
                self.post_message(RunProgress(event.stage, event.part, event.parts, event.detail))

        today = self.desk.clock().date()
        outcome = workbench.propose(
            self.desk.store, session, plan, settings, progress=progress, today=today, cancel=cancel
        )
        if isinstance(outcome, workbench.Refusal):
            self.post_message(RunRefused(run, outcome.reason))
        elif outcome is not None:
            self.post_message(ProposalComputed(run, outcome))

    @on(RunRefused)
    def _run_refused(self, message: RunRefused) -> None:
        if message.run != self._run_id or not self.running:
            return  # a cancelled run's late answer
        self._run_finished(f"no proposal stored: {message.reason}")
        self.desk.show_error("No proposal stored", message.reason)
        self.query_one(ProposalView).show(self.proposal, self._current_text(), self.proposal_status)

    @on(RunProgress)
    def _run_progress(self, message: RunProgress) -> None:
        part = f" {message.part}/{message.parts}" if message.part is not None and message.parts else ""
        line = f"· {message.stage}{part}" + (f" — {message.detail}" if message.detail else "")
        self.progress_lines.append(line)
        if self.running:
            self.query_one(ProposalView).show_progress(self.progress_lines)
            self._run_stage = f": {message.stage}{part}"
            self._show_run_status()
            if message.parts:
                self.query_one("#run-progress", ProgressBar).update(total=message.parts, progress=message.part or 0)

    def action_cancel_run(self) -> None:
        """Stop at once: the run's thread is told to stop and whatever it still produces is dropped."""
        if not self.running:
            return
        self._cancel_run.set()
        self._run_id += 1
        self.workers.cancel_group(self, "compact")
        self._run_finished("compaction cancelled · nothing stored")
        self.query_one(ProposalView).show(self.proposal, self._current_text(), self.proposal_status)

    def _stop_ticker(self) -> None:
        if self._run_ticker is not None:
            self._run_ticker.stop()
            self._run_ticker = None

    def _run_finished(self, status: str) -> None:
        self.running = False
        self._stop_ticker()
        self.query_one("#run-progress", ProgressBar).remove_class("-running")
        self.set_status(status)
        self.refresh_bindings()

    @on(ProposalComputed)
    def _proposal_computed(self, message: ProposalComputed) -> None:
        if message.run != self._run_id or not self.running:
            return  # a cancelled run's late result
        self._stop_ticker()
        self.set_status("saving the proposal…")
        self.store_proposal(message.proposal, self.plan, self._cancel_run)

    @work(thread=True, exclusive=True, group="store-proposal", exit_on_error=False, description="Saving the proposal")
    def store_proposal(self, proposal: Proposal, plan: CompactionPlan | None, cancel: threading.Event) -> None:
        from cutline.core import review

        if cancel.is_set() or self.session is None:
            return
        workbench.store_proposal(self.desk.store, proposal, plan, self.session)
        versions = [self._version(v) for v in review.versions(self.desk.store, proposal.id)]
        self.post_message(ProposalStored(proposal, versions))

    @on(ProposalStored)
    def _proposal_stored(self, message: ProposalStored) -> None:
        self.proposal = message.proposal
        self.proposal_status = "open"
        self.versions = message.versions
        self._run_finished(
            f"proposal {self.proposal.id}: {self.proposal.tokensBefore:,} → {self.proposal.tokensAfter:,} tokens"
            + ("" if self.proposal.validation.ok else " · INVALID")
        )
        self._show_proposal(load_editor=True)
        self.query_one(TabbedContent).active = "tab-proposal"
        self.refresh_context()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group == "compact":
            if event.state == WorkerState.CANCELLED or self._cancel_run.is_set():
                return  # action_cancel_run has already told the user
            if event.state == WorkerState.ERROR:
                self._run_finished("compaction failed")
                self.query_one(ProposalView).show(self.proposal, self._current_text(), self.proposal_status)
        elif worker.group == "store-proposal" and event.state == WorkerState.ERROR:
            self._run_finished("saving the proposal failed")
        elif worker.group == "review-load" and event.state == WorkerState.ERROR:
            self.session_loading = False
            self._queued.clear()
            self.query_one("#run-progress", ProgressBar).remove_class("-running")
            self.set_status("could not load the session")
        self.desk.report_worker(event)

    # -- the agent's context (the Context tab) --------------------------------

    def refresh_context(self) -> None:
        """Work out the Context tab again (after a load, a new proposal, an edit or a decision)."""
        if self.session is None:
            return
        if self._stored is not None and self.query_one(TabbedContent).active != "tab-context":
            # the context of a session shown from stored columns needs it whole: worked out when the tab is opened
            self._context_wanted = True
            self.query_one(ContextView).show("open this tab to work out the context", None, "")
            return
        self._context_wanted = False
        open_id = self.proposal.id if self.proposal is not None and self.proposal_status == "open" else None
        self.compute_context(self.session, open_id)

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "tab-context" and self._context_wanted:
            self.refresh_context()

    @work(thread=True, exclusive=True, group="context", exit_on_error=False, description="Working out the context")
    def compute_context(self, session: Session, proposal_id: str | None) -> None:
        from cutline.core.agents import session_wire_context
        from cutline.core.agents.wire import context_text
        from cutline.core.review import context_after_accept

        whole = self._whole(session)
        now = context_text(session_wire_context(whole))
        if whole is not session:
            let_go(whole)
        after: str | None = None
        note = "no open proposal: run one (r) to see the context it leaves"
        if proposal_id is not None:
            context = context_after_accept(self.desk.store, proposal_id)
            after = context_text(context) if context is not None else None
            note = (
                ""
                if context is not None
                else "cutline cannot tell what this session sends after the proposal (see the accept dialog)"
            )
        self.post_message(ContextReady(now, after, note))

    @on(ContextReady)
    def _context_ready(self, message: ContextReady) -> None:
        self.query_one(ContextView).show(message.now, message.after, message.after_note)

    # -- proposal and editor ------------------------------------------------

    def _current_text(self) -> str | None:
        if self.pending_text is not None:
            return self.pending_text
        if self.versions:
            return self.versions[-1].text
        return self.proposal.summary if self.proposal is not None else None

    def _show_proposal(self, load_editor: bool = False) -> None:
        self.query_one(ProposalView).show(self.proposal, self._current_text(), self.proposal_status)
        editor = self.query_one("#summary-editor", TextArea)
        if self.proposal is None:
            editor.disabled = True
            self.query_one("#editor-tokens", Static).update(Text("no proposal to edit yet", style="dim"))
            self._update_gauge()
            return
        editor.disabled = self.proposal_status != "open"
        if load_editor:
            self._loading_editor = True
            editor.load_text(self._current_text() or "")
            self.call_after_refresh(self._editor_loaded)
        self._update_editor_tokens(self._current_text() or "")
        self._update_saved_label()
        self._update_gauge()
        self.refresh_bindings()

    def _editor_loaded(self) -> None:
        self._loading_editor = False

    def action_edit(self) -> None:
        if self._queue("edit"):
            return
        if self.proposal is None:
            return
        self.query_one(TabbedContent).active = "tab-summary"
        editor = self.query_one("#summary-editor", TextArea)
        if not editor.disabled:
            editor.focus()

    def _update_editor_tokens(self, text: str) -> None:
        chars4 = _chars4(text)
        label = Text()
        label.append(f"{chars4:,}", style="bold")
        label.append(" tokens (chars4)")
        if self.proposal is not None and self.plan is not None:
            label.append(f" · ≈{self.plan.keptTokens + chars4:,} after", style="dim")
        if self.proposal_status != "open":
            label.append(f" · {self.proposal_status}, read-only", style="bold")
        self.query_one("#editor-tokens", Static).update(label)

    def _update_saved_label(self) -> None:
        if self.pending_text is not None:
            text = "editing… (autosaved)"
        elif self.versions:
            last = self.versions[-1]
            text = f"v{last.n} {last.origin} · {len(self.versions)} versions"
        else:
            text = ""
        self.query_one("#editor-saved", Static).update(Text(text))

    @on(TextArea.Changed, "#summary-editor")
    def _summary_edited(self, event: TextArea.Changed) -> None:
        if self._loading_editor or self.proposal is None:
            return
        text = event.text_area.text
        if self.versions and text == self.versions[-1].text:
            self.pending_text = None
        else:
            self.pending_text = text
        self._update_editor_tokens(text)
        self._update_saved_label()
        self._update_gauge()
        if self._autosave is not None:
            self._autosave.stop()
        self._autosave = self.set_timer(self.desk.autosave_seconds, self._autosave_now)

    def _autosave_now(self) -> None:
        self._autosave = None
        if self.pending_text is not None and self.proposal is not None:
            self.save_version(self.proposal.id, self.pending_text, "edited")

    @work(thread=True, group="autosave", exit_on_error=False, description="Saving the summary")
    def save_version(self, proposal_id: str, text: str, origin: Origin) -> None:
        row = workbench.save_edit(self.desk.store, proposal_id, text, origin)
        self.post_message(VersionSaved(self._version(row)))

    @on(VersionSaved)
    def _version_saved(self, message: VersionSaved) -> None:
        version = message.version
        if not any(v.n == version.n for v in self.versions):
            self.versions.append(version)
            self.versions.sort(key=lambda v: v.n)
        if self.pending_text == version.text:
            self.pending_text = None
        self._update_saved_label()
        self.query_one(ProposalView).show(self.proposal, self._current_text(), self.proposal_status)
        self.refresh_context()

    def flush_pending(self) -> None:
        """Save an edit that the debounce timer has not saved yet (on quit, back, accept, run)."""
        if self._autosave is not None:
            self._autosave.stop()
            self._autosave = None
        if self.pending_text is None or self.proposal is None:
            return
        row = workbench.save_edit(self.desk.store, self.proposal.id, self.pending_text)
        version = self._version(row)
        self.versions.append(version)
        self.pending_text = None

    # -- diff and revert ----------------------------------------------------

    def action_diff(self) -> None:
        if self._queue("diff"):
            return
        from cutline.app.screens.versions import DiffScreen

        if self.proposal is None:
            return
        self.flush_pending()
        if len(self.versions) < 1:
            return

        def chosen(result: int | None) -> None:
            if result is not None:
                self.revert_to(result)

        self.app.push_screen(DiffScreen(self.versions), chosen)

    def revert_to(self, n: int) -> None:
        version = next((v for v in self.versions if v.n == n), None)
        if version is None or self.proposal is None or self.proposal_status != "open":
            return
        self.save_version(self.proposal.id, version.text, "reverted")
        self.pending_text = None
        self._loading_editor = True
        self.query_one("#summary-editor", TextArea).load_text(version.text)
        self.call_after_refresh(self._editor_loaded)
        self._update_editor_tokens(version.text)
        self.set_status(f"reverted to v{n}")

    # -- accept / reject ----------------------------------------------------

    def action_accept_store_only(self) -> None:
        self.action_accept(store_only=True)

    def action_accept(self, store_only: bool = False) -> None:
        if self._queue("accept_store_only" if store_only else "accept"):
            return
        if self.proposal is None or self.proposal_status != "open":
            return
        if not self.proposal.validation.ok:
            self.desk.show_error("This proposal cannot be accepted", self.proposal.validation.summary())
            return
        self.flush_pending()
        self.prepare_accept(self.proposal.id, store_only)

    @work(thread=True, exclusive=True, group="decide", exit_on_error=False, description="Preparing the write")
    def prepare_accept(self, proposal_id: str, store_only: bool = False) -> None:
        preview = workbench.accept_preview(self.desk.store, proposal_id, self.desk.clock())
        self.post_message(AcceptPrepared(preview, store_only))

    def cut_disagreement(self) -> str | None:
        """One sentence when the cut drawn on the list is not the open proposal's cut, else None."""
        if self.proposal is None or self.proposal_status != "open" or self.plan is None:
            return None
        if self.plan.firstKeptEntryId == self.proposal.firstKeptEntryId:
            return None
        used = self.proposal.settings.get("keepRecentTokens")
        made = f" (made with keepRecentTokens {used:,})" if isinstance(used, int) else ""
        listed = self.plan.firstKeptEntryId or "none"
        return (
            f"The proposal keeps from entry {self.proposal.firstKeptEntryId}{made}; the list shows the cut at "
            f"entry {listed} (keepRecentTokens {self.plan.keepRecentTokens:,}). Accepting writes the proposal's "
            "cut; run again (r) to propose the list's."
        )

    @on(AcceptPrepared)
    def _confirm_accept(self, message: AcceptPrepared) -> None:
        from cutline.app.screens.modals import AcceptScreen

        preview, store_only = message.preview, message.store_only
        proposal_id, line, timestamp, plan, summary = (
            preview.proposal_id,
            preview.line,
            preview.timestamp,
            preview.write_back,
            preview.summary,
        )
        session = self.session
        if store_only:
            intro = "The session file is not written (you chose to accept without writing); recorded in the store as:"
            write_back = False
        elif plan.possible and session is not None and session.source_path:
            if plan.how == "append":
                intro = f"This line will be appended to {short_path(session.source_path)} (backed up before the first write):"
            else:
                intro = f"Written to {short_path(session.source_path)}: {plan.reason}. The line:"
            write_back = True
        else:
            intro = f"No write-back: {plan.reason}. Accepting records the compaction in the store only, as:"
            write_back = False
        title = "Accept this compaction?"
        disagreement = self.cut_disagreement()
        if disagreement is not None:
            title = "Accept this compaction? Its cut is not the one on the list"
            intro = f"{disagreement}\n\n{intro}"

        def answered(yes: bool | None) -> None:
            if yes:
                self.decide(proposal_id, "accepted", timestamp, write_back)

        label = "Accept and write" if write_back else "Accept"
        fields = self._accept_fields(line, summary, write_back)
        self.app.push_screen(AcceptScreen(title, intro, summary, fields, line, label), answered)

    def _accept_fields(self, line: str, summary: str, write_back: bool) -> list[tuple[str, str]]:
        """The accept dialog's figures: tokens before → after, the cut, the rules and the line written back."""
        import json

        p = self.proposal
        if p is None:
            return []
        after = p.tokensAfter + (_chars4(summary) - _chars4(p.summary) if summary and summary != p.summary else 0)
        edited = " (with the edited summary, ≈)" if summary and summary != p.summary else ""
        try:
            record = json.loads(line)
        except ValueError:
            record = {}
        record = record if isinstance(record, dict) else {}
        kind = record.get("type") or "compaction"
        entry = record.get("id") or record.get("uuid") or p.entryId
        size = f"{kind} entry {entry}, {len(line.encode('utf-8')):,} bytes"
        return [
            ("tokens", f"{p.tokensBefore:,} → {max(0, after):,} ({p.counter}){edited}"),
            (
                "cut",
                f"keeps from entry {p.firstKeptEntryId or '—'} · summarizes {plural(p.summarizedCount, 'entry', 'entries')}"
                f" · keeps {p.keptCount:,} verbatim",
            ),
            ("rules", f"{p.rules or '—'} · mode {p.mode}"),
            ("write-back", f"1 line: {size}" if write_back else f"none; recorded in the store as {size}"),
        ]

    def action_reject(self) -> None:
        if self._queue("reject"):
            return
        from cutline.app.screens.modals import ConfirmScreen

        if self.proposal is None or self.proposal_status != "open":
            return
        self.flush_pending()
        proposal_id = self.proposal.id

        def answered(yes: bool | None) -> None:
            if yes:
                self.decide(proposal_id, "rejected")

        self.app.push_screen(
            ConfirmScreen(
                "Reject this proposal?",
                "The proposal and its versions stay in the store, marked rejected.",
                "Nothing is written to the session file.",
                "Reject",
            ),
            answered,
        )

    @work(thread=True, exclusive=True, group="decide", exit_on_error=False, description="Recording the decision")
    def decide(self, proposal_id: str, decision: str, timestamp: str | None = None, write_back: bool = True) -> None:
        if decision == "accepted":
            result = workbench.accept(self.desk.store, proposal_id, write_back=write_back, timestamp=timestamp)
            detail = (
                f"entry {result.entry_id} written to {result.written_to}"
                if result.written_to
                else "recorded in the store"
            )
        else:
            workbench.reject(self.desk.store, proposal_id)
            detail = "nothing written to the session file"
        self.post_message(Decided(decision, detail))

    @on(Decided)
    def _decided(self, message: Decided) -> None:
        self.proposal_status = message.decision
        self.notify(f"Proposal {message.decision}: {message.detail}", timeout=5, markup=False)
        self.set_status(f"proposal {message.decision}: {message.detail}")
        self._show_proposal()
        if message.decision == "accepted":
            self.load(preview=False)
        else:
            self.refresh_context()

    # -- history and audit --------------------------------------------------

    def action_history(self) -> None:
        if self._queue("history"):
            return
        from cutline.app.screens.versions import HistoryScreen

        if self.session is None:
            return
        stored = self._stored
        compactions = [i for i, kind in enumerate(stored.kinds) if kind == "compaction"] if stored else None
        self.app.push_screen(HistoryScreen(self.session.id, self.path, compactions))

    def action_audit(self) -> None:
        """Audit the compaction under the cursor, else the current proposal, else the latest compaction."""
        if self._queue("audit"):
            return
        from cutline.app.screens.audit import AuditScreen

        if self.session is None:
            return
        cursor = self.query_one(MessageList).cursor
        entry = self.path[cursor] if 0 <= cursor < len(self.path) else None
        if entry is not None and entry.type == "compaction":
            self.app.push_screen(AuditScreen(self.session.id, compaction_entry_id=entry.id))
        elif self.proposal is not None:
            self.app.push_screen(AuditScreen(self.session.id, proposal_id=self.proposal.id))
        elif (
            "compaction" in self._stored.kinds
            if self._stored is not None
            else any(e.type == "compaction" for e in self.path)
        ):
            self.app.push_screen(AuditScreen(self.session.id))
        else:
            self.notify(
                "This session has no compaction and no proposal yet: run one (r), then audit what it would lose.",
                title="Nothing to audit",
                timeout=6,
                markup=False,
            )

    # -- downloads (a browser download in web mode, a file in $CUTLINE_HOME/exports in a terminal)

    def action_export_session(self) -> None:
        if self._queue("export_session"):
            return
        if self.session is not None:
            self._export_session(self.session)

    def action_export_timeline(self) -> None:
        if self._queue("export_timeline"):
            return
        if self.session is not None:
            self._export_timeline(self.session, self.settings)

    @work(thread=True, group="export", exit_on_error=False, description="Exporting the session")
    def _export_session(self, session: Session) -> None:
        from cutline.core.agents.pi.writer import export_pi

        whole = self._whole(session)
        text = export_pi(whole)
        if whole is not session:
            let_go(whole)
        self.app.call_from_thread(
            self.desk.deliver_download, text, f"{download_stem(session)}.jsonl", "application/x-ndjson"
        )

    @work(thread=True, group="export", exit_on_error=False, description="Drawing the timeline")
    def _export_timeline(self, session: Session, settings: CompactionSettings) -> None:
        from cutline.core.audit.timeline import build_timeline, render_svg

        whole = self._whole(session)
        svg = render_svg(build_timeline(whole, settings), title=f"cutline — {download_stem(session)}")
        if whole is not session:
            let_go(whole)
        self.app.call_from_thread(
            self.desk.deliver_download, svg, f"{download_stem(session)}-timeline.svg", "image/svg+xml"
        )


def download_stem(session: Session) -> str:
    """A file-name-safe stem for a session's downloads."""
    raw = session.name or (Path(session.source_path).stem if session.source_path else session.id)
    stem = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in raw).strip("-.")
    return stem or "session"


def let_go(session: Session) -> None:
    """Free a session rebuilt for one job a slice of entries at a time (see `Session.let_go`)."""
    session.let_go()
