"""A run: one call to the workbench in a worker, its progress and deadline, cancelling it, storing its proposal."""

from __future__ import annotations

import math
import threading
import time
from datetime import timedelta
from typing import TYPE_CHECKING

from textual import on, work
from textual.widgets import ProgressBar, TabbedContent

from cutline.app.screens.session_review.messages import (
    ProposalComputed,
    ProposalStored,
    RunProgress,
    RunRefused,
)
from cutline.app.screens.session_review.state import ReviewState
from cutline.app.widgets.proposal_view import ProposalView
from cutline.core import review, workbench
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan
from cutline.core.engine.proposal import Proposal
from cutline.core.workbench.opening import Opened

if TYPE_CHECKING:
    from cutline.core.engine.summary_run import ProgressEvent


class Running(ReviewState):
    """A run: one call to the workbench in a worker, its progress and deadline, cancelling it, storing its proposal."""

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
        if self._opened is not None:
            started = time.monotonic()  # the deadline counts from here: reading the path for the run included
            self.run_compaction(self._run_id, self._cancel_run, self.plan, self._opened, self.settings, started)

    def _show_run_status(self) -> None:
        """The running stage and the time left before the run's deadline stops it; at the deadline, stop it.

        Why here too: the run's own deadline reaches its thread only between two awaits, and
        the synchronous work of a big session (rebuilding its path) can run for minutes
        past it; the countdown sat at "0:00 left" while the run went on.
        """
        if not self.running or self._run_deadline is None:
            return
        left = math.ceil((self._run_deadline - self.desk.clock()).total_seconds())
        if left <= 0:
            self._give_up_at_deadline()
            return
        self.set_status(f"running{self._run_stage} · {left // 60}:{left % 60:02d} left (ctrl+x cancels)")

    def _give_up_at_deadline(self) -> None:
        """Stop the run as ctrl+x does, and say it was the deadline (its thread drops whatever it still makes)."""
        from cutline.core.engine.deadline import deadline_message

        self._cancel_run.set()
        self._run_id += 1
        self.workers.cancel_group(self, "compact")
        self._run_finished("compaction stopped at its deadline · nothing stored")
        self.query_one(ProposalView).show(self.proposal, self._current_text(), self.proposal_status)
        self.desk.show_error("Compaction stopped", deadline_message(self.settings.timeoutSeconds))

    @work(thread=True, exclusive=True, group="compact", exit_on_error=False, description="Compaction")
    def run_compaction(
        self,
        run: int,
        cancel: threading.Event,
        plan: CompactionPlan,
        opened: Opened,
        settings: CompactionSettings,
        started: float | None = None,
    ) -> None:
        """Summarize off the event loop (a big session is seconds of CPU), so keys and ctrl+x stay live."""

        def progress(event: ProgressEvent) -> None:
            if not cancel.is_set():
                self.post_message(RunProgress(event.stage, event.part, event.parts, event.detail))

        today = self.desk.clock().date()
        outcome = workbench.propose(
            self.desk.store, opened, plan, settings, progress=progress, today=today, cancel=cancel, started=started
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
