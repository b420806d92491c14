"""The settings panel: every planning and summarizing setting; a change re-plans at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Label, Select, Static, Switch, TextArea

from cutline.core.choices import LOCAL_COUNTERS, MODES, RULE_SETS
from cutline.core.choices import SUMMARIZERS as SUMMARIZERS
from cutline.core.config.settings import CompactionSettings, settings_from_dict
from cutline.core.errors import SettingsError
from cutline.core.summarizers.prompts import HISTORY_PROMPTS

COUNTERS = LOCAL_COUNTERS
# planner rule sets the desk can force; "session" plans with what the session shows, else the settings
RULES = ("session", *RULE_SETS)
INTEGER_FIELDS = ("keepRecentTokens", "reserveTokens", "contextWindow", "lastTurnMaxTokens")


class SettingsPanel(VerticalScroll):
    """Edits a CompactionSettings and the token counter; posts `Changed` with a validated copy."""

    class Changed(Message):
        """The settings (or the counter) changed and are valid."""

        def __init__(self, settings: CompactionSettings, counter: str, rules: str | None = None) -> None:
            self.settings = settings
            self.counter = counter
            self.rules = rules  # a rule set forced over the session's own (None: the session decides)
            super().__init__()

    def __init__(
        self,
        settings: CompactionSettings,
        counter: str = "chars4",
        *,
        cursor_blink: bool = True,
        on_change: Callable[[SettingsPanel.Changed], None] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.on_change = on_change  # called at once with each Changed instead of posting it (see `_emit`)
        self.settings = settings
        self.counter = counter
        self.cursor_blink = cursor_blink
        self.rules: str | None = None
        self._syncing = False
        self._shown_note: Text | None = None

    def _row(self, label: str, widget: Any) -> Horizontal:
        return Horizontal(Label(label, classes="setting-label"), widget, classes="setting")

    def _int_input(self, key: str) -> Input:
        field = Input(
            str(getattr(self.settings, key)), type="integer", id=f"setting-{key}", classes="setting-int", compact=True
        )
        field.cursor_blink = self.cursor_blink
        return field

    def compose(self) -> ComposeResult:
        s = self.settings
        yield Static("A change re-plans at once; nothing is summarized until you run (r).", classes="setting-note")
        # the setting turned most (the one [ and ] nudge) first: on view in the smallest terminal (80x24)
        yield self._row("keepRecentTokens", self._int_input("keepRecentTokens"))
        yield self._row(
            "mode", Select([(m, m) for m in MODES], value=s.mode, allow_blank=False, id="setting-mode", compact=True)
        )
        yield self._row(
            "token counter",
            Select(
                [(c, c) for c in COUNTERS], value=self.counter, allow_blank=False, id="setting-counter", compact=True
            ),
        )
        self._shown_note = self._mode_note(s)
        yield Static(self._shown_note, id="setting-mode-note", classes="setting-note")
        yield self._row(
            "rules",
            Select([(r, r) for r in RULES], value="session", allow_blank=False, id="setting-rules", compact=True),
        )
        yield self._row("reserveTokens", self._int_input("reserveTokens"))
        yield self._row("contextWindow", self._int_input("contextWindow"))
        yield self._row("lastTurnInjection", Switch(value=s.lastTurnInjection, id="setting-lastTurnInjection"))
        yield self._row("lastTurnMaxTokens", self._int_input("lastTurnMaxTokens"))
        yield self._row(
            "summarizer",
            Select(
                [(x, x) for x in SUMMARIZERS],
                value=s.summarizer,
                allow_blank=False,
                id="setting-summarizer",
                compact=True,
            ),
        )
        model = Input(s.model, id="setting-model", compact=True)
        model.cursor_blink = self.cursor_blink
        yield self._row("model", model)
        prompts = list(HISTORY_PROMPTS)
        yield self._row(
            "prompt",
            Select(
                [(p, p) for p in prompts],
                value=s.promptName if s.promptName in prompts else prompts[0],
                allow_blank=False,
                id="setting-promptName",
                compact=True,
            ),
        )
        yield Label("custom instructions", classes="setting-label")
        area = TextArea(
            s.customInstructions or "", id="setting-instructions", soft_wrap=True, show_line_numbers=False, compact=True
        )
        area.cursor_blink = self.cursor_blink
        yield area
        yield Static("", id="setting-error", classes="setting-error")

    def on_mount(self) -> None:
        for field in self.query(".setting-int").results(Input):
            self.watch(field, "value", self._int_watcher(field), init=False)

    def _int_watcher(self, field: Input) -> Callable[[str], None]:
        def changed(value: str) -> None:
            self._int_changed(field, value)

        return changed

    def _emit(self, changed: SettingsPanel.Changed) -> None:
        """Hand a change to `on_change` at once, else post it.

        Why: a posted message reaches the screen through every container between (about
        six message queues); a frame was drawn on the way with only the field's new
        digit, and the re-planned list and gauge needed a second frame.
        """
        if self.on_change is not None:
            self.on_change(changed)
        else:
            self.post_message(changed)

    @staticmethod
    def _mode_note(settings: CompactionSettings) -> Text:
        """What the mode changes of the values below (safeguard floors the reserve), empty when nothing."""
        from cutline.core.engine.modes import reserve_for

        reserve = reserve_for(settings)
        if reserve == settings.reserveTokens:
            return Text("")
        return Text(
            f"{settings.mode} overrides: reserve {reserve:,} used, not reserveTokens {settings.reserveTokens:,}",
            style="bold",
        )

    def _show_mode_note(self) -> None:
        note = self._mode_note(self.settings)
        if note != self._shown_note:  # the same note again would still be a layout pass of the screen
            self._shown_note = note
            self.query_one("#setting-mode-note", Static).update(note)

    def focus_first(self) -> None:
        """Put the focus on the mode, the first choice (keepRecentTokens above it stays on view and `[`/`]` nudge it:
        a number field would take those keys as characters), so a person can start tabbing through them."""
        self.query_one("#setting-mode", Select).focus()
        self.scroll_home(animate=False)

    def set_values(self, settings: CompactionSettings, counter: str) -> None:
        """Show these values without emitting Changed (e.g. after a key nudged keepRecentTokens)."""
        self.settings = settings
        self.counter = counter
        self._syncing = True
        try:
            for key in INTEGER_FIELDS:
                field = self.query_one(f"#setting-{key}", Input)
                if field.value != str(getattr(settings, key)):
                    field.value = str(getattr(settings, key))
            self.query_one("#setting-mode", Select).value = settings.mode
            self.query_one("#setting-counter", Select).value = counter
            self.query_one("#setting-lastTurnInjection", Switch).value = settings.lastTurnInjection
            self._show_mode_note()
        finally:
            self.call_after_refresh(self._end_sync)

    def _end_sync(self) -> None:
        self._syncing = False

    def _apply(self, key: str, value: Any) -> None:
        if self._syncing:
            return
        error = self.query_one("#setting-error", Static)
        if key == "counter":
            if value == self.counter:
                return
            self.counter = value
            error.update("")
            self._emit(self.Changed(self.settings, self.counter, self.rules))
            return
        if getattr(self.settings, key) == value:
            return
        try:
            updated = settings_from_dict({**self.settings.model_dump(exclude_unset=True), key: value})
        except SettingsError as exc:
            error.update(Text(str(exc)))
            return
        if error.content:
            error.update("")
        self.settings = updated
        self._show_mode_note()
        self._emit(self.Changed(updated, self.counter, self.rules))

    def _int_changed(self, field: Input, value: str) -> None:
        """A whole-number field's new text, taken as it is set (a watcher, not the Input's Changed message).

        Why: the message comes a few queues later, so the field's digit and the plan it
        makes were drawn in two frames; and a late message under key repeat could carry
        a value the field no longer holds.
        """
        key = (field.id or "").removeprefix("setting-")
        text = value.strip()
        if not text or text == "-":
            return
        try:
            number = int(text)
        except ValueError:
            self.query_one("#setting-error", Static).update(Text(f"{key}: must be a whole number"))
            return
        self._apply(key, number)

    @on(Input.Changed, "#setting-model")
    def _model_changed(self, event: Input.Changed) -> None:
        if event.value != event.input.value:
            return
        if event.value.strip():
            self._apply("model", event.value.strip())

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        if event.value is Select.BLANK or event.value != event.select.value:
            return
        key = (event.select.id or "").removeprefix("setting-")
        if key == "rules":
            rules = None if event.value == "session" else str(event.value)
            if rules != self.rules and not self._syncing:
                self.rules = rules
                self._emit(self.Changed(self.settings, self.counter, rules))
            return
        self._apply(key, event.value)

    @on(Switch.Changed)
    def _switch_changed(self, event: Switch.Changed) -> None:
        if event.value != event.switch.value:
            return
        self._apply("lastTurnInjection", event.value)

    @on(TextArea.Changed, "#setting-instructions")
    def _instructions_changed(self, event: TextArea.Changed) -> None:
        self._apply("customInstructions", event.text_area.text or None)
