"""The review screen's shared state: what its parts (editing, counting, running, deciding, outward) read and change."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from rich.text import Text
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static

from cutline.app.desk import OnDesk
from cutline.app.screens.versions import Version
from cutline.core import workbench
from cutline.core.choices import LOCAL_COUNTERS
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan
from cutline.core.engine.path_index import PathIndex
from cutline.core.engine.proposal import Proposal
from cutline.core.models import Entry, Session
from cutline.core.workbench.opening import Opened
from cutline.core.workbench.stored_path import StoredPath

if TYPE_CHECKING:
    from cutline.core.review import SummaryVersion


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
        "undo",
        "write_back_later",
        "edit",
        "diff",
    }
)
# the keys that act on the plan drawn: pressed while a re-plan is pending, they wait for it (in order)
NEEDS_PLAN = frozenset({"run", "accept", "accept_store_only", "list:jump_cut"})


def chars4_tokens(text: str) -> int:
    """A text's chars4 tokens, as the editor counts them."""
    from cutline.core.tokens.jsjson import js_length

    return math.ceil(js_length(text) / 4)


class ReviewState(OnDesk, Screen[None]):
    """What the review screen's parts share: the session, its plan and proposal, the run, the editor."""

    def __init__(self, ref: str) -> None:
        super().__init__()
        self.ref = ref
        self.session_loading = True
        self._queued: list[str] = []
        self._previewed = False
        self._cursor_moved = False
        self._load_text = ""
        self._indexes: dict[str, PathIndex] = {}
        # re-plans run in a worker: each request is numbered, and only the latest one's plan is drawn
        self._plan_asked = 0
        self.replanning = False  # a re-plan asked for has not been drawn yet
        self._when_planned: Callable[[], None] | None = None  # what the latest request says once its plan is drawn
        # one plan at a time: a superseded worker still running would otherwise walk the same index beside the new one
        self._plan_lock = threading.Lock()
        # what the last plans of one index cost, by kind (`plan_kind`): a cheap kind is re-planned on the event loop
        self._costs_of: PathIndex | None = None
        self._plan_costs: dict[tuple[str, str | None, str | None], float] = {}
        self._followed: tuple[str, object] = ("", None)
        self._source_change_posted = False  # the follower's SourceChanged waits to be handled
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
        self._status_before_writing = "open"
        # what the last decision or undo did: kept on the status line across the reloads it causes (its own,
        # and the follower's when the file changed), until the next run, decision or undo
        self.said_before_reload = ""
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

    def set_status(self, text: str) -> None:
        self.query_one("#status-text", Static).update(Text(text), layout=False)

    def _current_text(self) -> str | None:
        if self.pending_text is not None:
            return self.pending_text
        if self.versions:
            return self.versions[-1].text
        return self.proposal.summary if self.proposal is not None else None

    @staticmethod
    def _version(row: SummaryVersion) -> Version:
        return Version(n=row.n, origin=row.origin, created_at=row.created_at, text=row.text, tokens=row.tokens)

    def _queue(self, action: str) -> bool:
        """Keep a key that needs the session while it loads, or the plan while a re-plan is pending (and any key
        after one kept, so they run in the order typed); True when it was kept (it runs once loaded, or planned)."""
        if self.session_loading:
            self._queued.append(action)
            self._show_load_status()
            return True
        if not self.replanning or not (self._queued or action in NEEDS_PLAN):
            return False
        self._queued.append(action)
        queued = len(self._queued)
        self.set_status(f"plan pending · {queued} key{'s' if queued != 1 else ''} kept for when it is drawn")
        return True

    def _rules_for(self, session: Session | None) -> str | None:
        """The settings panel's forced rule set, else what an OpenClaw store or version-4 header tells, else None (the path)."""
        return workbench.rules_for(session, self.rules_override)

    def _whole(self, session: Session) -> Session:
        """The session with every entry: rebuilt from the store (in a worker) when the desk shows it from stored columns."""
        if self._stored is not None and not session.entries:
            return self.desk.store.load_session(session.id)
        return session

    @property
    def calibration_ratio(self) -> float:
        """The calibrated counter's ratio to chars4; for a stored path fitted on first use (read it in a worker)."""
        if self._calibration_ratio is None:
            ratio = self._stored.calibration_ratio(self.tokens["chars4"]) if self._stored is not None else None
            self._calibration_ratio = ratio if ratio is not None else 1.0
        return self._calibration_ratio

    def _show_load_status(self) -> None:
        queued = len(self._queued)
        kept = f" · {queued} key{'s' if queued != 1 else ''} kept for when it is loaded" if queued else ""
        rows = " · rows shown as stored" if self._previewed else ""
        self.set_status(f"loading session… {self._load_text}{rows}{kept}")

    # -- what the parts call on each other (each is the screen's or a part's; see `screen`)

    def load(self, preview: bool = True) -> object:
        """Open the session (again) in a worker: the screen's."""
        raise NotImplementedError

    def reload(self) -> None:
        """Load the session again after its file changed, noting the file as it is first: the screen's."""
        raise NotImplementedError

    def replan(self, when_drawn: Callable[[], None] | None = None) -> None:
        """Plan with the current settings and counter in a worker, and draw it when made: the screen's."""
        raise NotImplementedError

    def _update_gauge(self) -> None:
        raise NotImplementedError

    def refresh_context(self) -> None:
        """Work out the Context tab again: `Outward`'s."""
        raise NotImplementedError

    def _show_proposal(self, load_editor: bool = False) -> None:
        """Show the proposal and its editor: `Editing`'s."""
        raise NotImplementedError

    def flush_pending(self) -> None:
        """Save an edit not saved yet: `Editing`'s."""
        raise NotImplementedError

    def cut_disagreement(self) -> str | None:
        """Why the list's cut is not the open proposal's: `Deciding`'s."""
        raise NotImplementedError

    def _accept_fields(self, line: str, summary: str, write_back: bool) -> list[tuple[str, str]]:
        """The accept dialog's figures: `Deciding`'s."""
        raise NotImplementedError

    def show_writing(self, where: str) -> None:
        """Say "writing…" at once, before the worker writes: `Deciding`'s."""
        raise NotImplementedError

    def show_entry(self, entry_id: str) -> bool:
        """Put the list's cursor on an entry of the path: the screen's."""
        raise NotImplementedError
