"""Token counters and settings: switching the counter, nudging keepRecentTokens, an entry's counts."""

from __future__ import annotations

from textual import on, work
from textual.widgets import TabbedContent

from cutline.app.screens.session_review.messages import (
    CountsReady,
    EntryCounts,
)
from cutline.app.screens.session_review.state import COUNTER_CYCLE, ReviewState
from cutline.app.widgets.detail import DetailPane, EntryFacts
from cutline.app.widgets.message_list import MessageList
from cutline.app.widgets.settings_panel import SettingsPanel
from cutline.core import workbench
from cutline.core.engine.context import entry_message
from cutline.core.tokens import CalibratedCounter, entry_tokens, get_counter


class Counting(ReviewState):
    """Token counters and settings: switching the counter, nudging keepRecentTokens, an entry's counts."""

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
        message = entry_message(entry)
        self.query_one(DetailPane).show(entry, EntryFacts(zone=zone, tokens=counts), message)
        if any(v is None for v in counts.values()):
            self.count_entry(index)

    @work(thread=True, exclusive=True, group="entry-counts", exit_on_error=False, description="Counting tokens")
    def count_entry(self, index: int) -> None:
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

    def on_settings_panel_changed(self, message: SettingsPanel.Changed) -> None:
        self.settings = message.settings
        self.rules_override = message.rules
        if message.counter != self.counter:
            self.switch_counter(message.counter)
        else:
            self.replan(self._say_disagreement)

    def _say_disagreement(self) -> None:
        """Once the plan is drawn: say so when its cut is not the open proposal's."""
        note = self._disagreement_note()
        if note:
            self.set_status(note.removeprefix(" · "))

    def _sync_settings_panel(self) -> None:
        for panel in self.query(SettingsPanel):
            panel.set_values(self.settings, self.counter)

    def _nudge_keep(self, delta: int) -> None:
        self.settings = self.settings.with_overrides(keepRecentTokens=max(0, self.settings.keepRecentTokens + delta))
        self._sync_settings_panel()
        said = f"keepRecentTokens {self.settings.keepRecentTokens:,}"
        self.set_status(said)
        self.replan(lambda: self.set_status(said + self._disagreement_note()))

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

    @on(MessageList.Highlighted)
    def _highlighted(self, message: MessageList.Highlighted) -> None:
        if message.index != self.query_one(MessageList).cursor:
            return  # the cursor moved on already (opening jumps from the last entry to the cut)
        self._show_entry(message.index)

    @on(MessageList.Selected)
    def _selected(self, message: MessageList.Selected) -> None:
        self.query_one(TabbedContent).active = "tab-entry"
        self._show_entry(message.index)
