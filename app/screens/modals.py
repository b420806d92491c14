"""Small modal screens: error, confirmation, help, and the path prompt with filesystem completion."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Button, DataTable, Input, Label, Static

from cutline.app.widgets.safe_text import visible


class ErrorScreen(ModalScreen[None]):
    """An error, shown as a modal; the app keeps running underneath."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter", "dismiss", "Close", id="error.close")]
    AUTO_FOCUS = "#close"

    def __init__(self, title: str, message: str) -> None:
        super().__init__(classes="modal")
        self.error_title = title
        self.message = message

    def compose(self) -> ComposeResult:
        with Vertical(id="error-dialog", classes="dialog -error"):
            yield Label(Text(visible(self.error_title)), classes="dialog-title")
            with VerticalScroll(classes="dialog-body"):
                yield Static(Text(visible(self.message)), id="error-message")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close", variant="error", id="close")

    @on(Button.Pressed, "#close")
    def _close(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """Ask yes/no, showing exactly what will happen; dismisses with True on confirm."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "cancel", "Cancel", id="confirm.cancel"),
        Binding("y", "confirm", "Confirm", id="confirm.yes"),
    ]

    def __init__(self, title: str, intro: str, body: str, confirm_label: str = "Confirm") -> None:
        super().__init__(classes="modal")
        self.confirm_title = title
        self.intro = intro
        self.body = body
        self.confirm_label = confirm_label

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog", classes="dialog"):
            yield Label(Text(self.confirm_title), classes="dialog-title")
            yield Static(Text(visible(self.intro)), classes="dialog-intro")
            with VerticalScroll(classes="dialog-body"):
                yield Static(Text(visible(self.body), overflow="fold"), id="confirm-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.confirm_label} (y)", variant="success", id="yes")
                yield Button("Cancel (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    @on(Button.Pressed, "#yes")
    def action_confirm(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def action_cancel(self) -> None:
        self.dismiss(False)


class ChoiceScreen(ModalScreen[str | None]):
    """Ask which of a few ways to go on, each with its key; dismisses with the chosen value, or None (Esc, n)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "cancel", "Cancel", id="choice.cancel"),
        Binding("b", "choose('branch')", "Branch", show=False, id="choice.branch"),
        Binding("f", "choose('from_backup')", "From backup", show=False, id="choice.from_backup"),
    ]

    def __init__(self, title: str, intro: str, choices: Sequence[tuple[str, str, str]]) -> None:
        """`choices`: (value, key, label) each; the key is one of the bindings above (b, f)."""
        super().__init__(classes="modal")
        self.choice_title = title
        self.intro = intro
        self.choices = list(choices)

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog", classes="dialog"):
            yield Label(Text(self.choice_title), classes="dialog-title")
            with VerticalScroll(classes="dialog-body"):
                yield Static(Text(visible(self.intro), overflow="fold"), id="choice-intro")
            with Horizontal(classes="dialog-buttons"):
                for value, key, label in self.choices:
                    yield Button(f"{label} ({key})", variant="warning", id=f"choice-{value.replace('_', '-')}")
                yield Button("Cancel (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def action_choose(self, value: str) -> None:
        if any(value == offered for offered, _, _ in self.choices):
            self.dismiss(value)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "no":
            self.dismiss(None)
            return
        for value, _, _ in self.choices:
            if event.button.id == f"choice-{value.replace('_', '-')}":
                self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class AcceptScreen(ConfirmScreen):
    """The accept question: the key figures as a table and the summary rendered (markdown, scrollable), not its JSON line."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "j", "toggle_line", "JSON line", id="accept.line", tooltip="Show the exact line written, or the summary"
        ),
    ]

    def __init__(
        self,
        title: str,
        intro: str,
        summary: str,
        fields: list[tuple[str, str]],
        line: str = "",
        confirm_label: str = "Accept",
    ) -> None:
        super().__init__(title, intro, summary, confirm_label)
        self.fields = fields
        self.line = line
        self.showing_line = False

    def compose(self) -> ComposeResult:
        from cutline.app.widgets.plain_markdown import plain_markdown

        table = Table.grid(padding=(0, 2))
        table.add_column(justify="right", style="bold", no_wrap=True)
        table.add_column(ratio=1)
        for name, value in self.fields:
            table.add_row(name, Text(visible(value)))
        with Vertical(id="confirm-dialog", classes="dialog -accept"):
            yield Label(Text(self.confirm_title), classes="dialog-title")
            yield Static(Text(visible(self.intro)), classes="dialog-intro")
            yield Static(table, id="accept-fields")
            yield Static("", id="accept-findings")
            yield Label(self._body_title(), id="accept-summary-title")
            with VerticalScroll(classes="dialog-body", id="accept-summary"):
                yield Static(plain_markdown(visible(self.body) or "(empty)"), id="confirm-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.confirm_label} (y)", variant="success", id="yes", compact=True)
                yield Button("Cancel (n)", id="no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#accept-summary", VerticalScroll).focus()  # the arrows read on; y, n and Esc still answer
        self.query_one("#accept-findings", Static).display = False
        self._load_findings()

    @work(thread=True, exclusive=True, group="accept-findings")
    def _load_findings(self) -> None:
        """What the summary contradicts or loses and a failed guard, for the proposal of the screen underneath."""
        from cutline.app.commands.audit import findings_for, guard_for
        from cutline.core.audit.before_accept import Findings
        from cutline.core.errors import CutlineError

        stack = self.app.screen_stack
        under = stack[-2] if len(stack) > 1 else None
        proposal = getattr(under, "proposal", None)
        store = getattr(getattr(under, "desk", None), "store", None)
        if proposal is None or store is None:
            return
        try:
            # the guard first, at once (the audit can take seconds on a long session, or fail)
            lines = Findings(guard=guard_for(store, proposal.id)).lines(proposal.id)
            if lines:
                self.app.call_from_thread(self._show_findings, lines)
            lines = findings_for(store, proposal.id).lines(proposal.id)
        except CutlineError:
            return
        if lines:
            self.app.call_from_thread(self._show_findings, lines)

    def _show_findings(self, lines: list[str]) -> None:
        text = Text()
        for n, line in enumerate(lines):
            bad = line.startswith(("the summary contradicts", "the quality guard failed"))
            text.append(("\n" if n else "") + visible(line), style="bold red" if bad else "")
        shown = self.query_one("#accept-findings", Static)
        shown.update(text)
        shown.display = True

    def _body_title(self) -> Text:
        shown = "the exact line written" if self.showing_line else "summary"
        other = "the summary" if self.showing_line else "the exact line"
        title = Text(shown, style="bold")
        title.append(f"   (j: {other})" if self.line else "", style="dim")
        return title

    def action_toggle_line(self) -> None:
        """Switch the scrolled part between the rendered summary and the exact line written."""
        from cutline.app.widgets.plain_markdown import plain_markdown

        if not self.line:
            return
        self.showing_line = not self.showing_line
        body = self.query_one("#confirm-body", Static)
        if self.showing_line:
            body.update(Text(visible(self.line), overflow="fold"))
        else:
            body.update(plain_markdown(visible(self.body) or "(empty)"))
        self.query_one("#accept-summary-title", Label).update(self._body_title())


class HelpScreen(ModalScreen[None]):
    """Every key of the current screen and the app, with its binding id for remapping; then the legend of marks and colours."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark", "dismiss", "Close", id="help.close")]

    def __init__(self, rows: list[tuple[str, str, str]]) -> None:
        super().__init__(classes="modal")
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog", classes="dialog"):
            yield Label("Keys", classes="dialog-title")
            yield Static(
                Text('Remap any key in $CUTLINE_HOME/config.toml under [keys], e.g.  "review.run" = "ctrl+r"'),
                classes="dialog-intro",
            )
            table: DataTable[str] = DataTable(id="help-table", cursor_type="row", zebra_stripes=True)
            yield table

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Key", "Action", "Binding id")
        for key, description, binding_id in self.rows:
            table.add_row(Text(key), Text(description), Text(binding_id))
        from cutline.app.widgets.legend import legend_rows

        table.add_row(Text("Legend", style="bold"), Text("what the marks and colours mean", style="bold"), Text(""))
        for glyph, meaning in legend_rows():
            table.add_row(Text(glyph), Text(meaning), Text(""))
        table.focus()

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(None)


class PathSuggester(Suggester):
    """Completes a path prompt from the filesystem: the first entry matching the typed prefix."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        if not value:
            return None
        expanded = os.path.expanduser(value)
        directory, prefix = os.path.split(expanded)
        try:
            names = sorted(os.listdir(directory or "."))
        except OSError:
            return None
        for name in names:
            if name.startswith(prefix) and name != prefix and not (name.startswith(".") and not prefix.startswith(".")):
                completed = os.path.join(directory, name) if directory else name
                if os.path.isdir(completed):
                    completed += os.sep
                if value.startswith("~"):
                    completed = "~" + completed[len(os.path.expanduser("~")) :]
                return completed
        return None


class PathPrompt(ModalScreen[Path | None]):
    """Ask for a file path, with completion (right arrow or tab accepts the suggestion)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="prompt.cancel"),
        Binding("tab", "complete", "Complete", show=False, priority=True),
    ]

    def __init__(self, title: str, *, cursor_blink: bool = True) -> None:
        super().__init__(classes="modal")
        self.prompt_title = title
        self.cursor_blink = cursor_blink

    def compose(self) -> ComposeResult:
        with Vertical(id="path-dialog", classes="dialog"):
            yield Label(self.prompt_title, classes="dialog-title")
            field = Input(placeholder="path/to/session.jsonl", suggester=PathSuggester(), id="path-input")
            field.cursor_blink = self.cursor_blink
            yield field
            yield Static("", id="path-hint", classes="dialog-intro")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def action_complete(self) -> None:
        field = self.query_one(Input)
        suggestion = field._suggestion
        if suggestion:
            field.value = suggestion
            field.cursor_position = len(suggestion)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        path = Path(os.path.expanduser(event.value.strip()))
        if not event.value.strip():
            return
        if not path.is_file():
            self.query_one("#path-hint", Static).update(Text(f"not a file: {visible(str(path))}"))
            return
        self.dismiss(path)

    def action_cancel(self) -> None:
        self.dismiss(None)
