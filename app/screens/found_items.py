"""Compactions found after the fact (core.inbox.scan): their list, and one opened for the person's audit.

The list is the inbox's open found items; opening one shows the agent's own compaction (its
cut, the messages it summarized and kept, its summary, core.inbox.found_view). The person
edits a better summary and accepts it (written back to the agent's session) or dismisses
the item: the same core calls as `cutline inbox edit`, `cutline accept` and `inbox dismiss`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static
from textual.worker import Worker

from cutline.app.desk import OnDesk
from cutline.app.screens.sessions import ago
from cutline.app.screens.table_list import TableListScreen
from cutline.app.widgets.desk_footer import DeskFooter
from cutline.app.widgets.safe_text import one_line, short_path
from cutline.app.widgets.summary_editor import SummaryEditor

if TYPE_CHECKING:
    from cutline.core.inbox.found_view import FoundView
    from cutline.core.inbox.items import InboxItem


class FoundItemsLoaded(Message):
    def __init__(self, items: list[tuple[InboxItem, str]]) -> None:
        self.items = items
        super().__init__()


class FoundItemsScreen(TableListScreen):
    """The compactions the agents made on their own, found in their session folders and not yet answered."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="found_items.open", tooltip="Audit the selected compaction"),
        Binding("r", "refresh", "Refresh", id="found_items.refresh", tooltip="List the found compactions again"),
        Binding("escape", "back", "Back", id="found_items.back", tooltip="Back to the sessions"),
    ]

    TITLE_TEXT = "Compactions found after the fact (no agent waits)"
    SUB_TITLE_TEXT = "found after the fact"
    IDS = ("found-items-title", "found-items-table", "found-items-note")
    COLUMNS = (
        ("Found", "found"),
        ("Agent", "agent"),
        ("Tokens before", "tokens"),
        ("The agent's summary", "summary"),
        ("Session", "session"),
    )

    def on_screen_resume(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="found-items", exit_on_error=False, description="Found compactions")
    def load(self) -> None:
        from cutline.core.errors import CutlineError
        from cutline.core.inbox.answers import summary_of
        from cutline.core.inbox.items import Inbox

        rows = []
        for item in Inbox(self.desk.store).listing():
            if item.shown_status() != "found":
                continue
            try:
                summary = summary_of(self.desk.store, item)[0]
            except CutlineError:
                summary = "(unreadable)"
            rows.append((item, summary))
        self.post_message(FoundItemsLoaded(rows))

    @on(FoundItemsLoaded)
    def _loaded(self, message: FoundItemsLoaded) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        table.clear()
        now = self.desk.clock()
        for item, summary in message.items:
            tokens = f"{item.tokens_before:,}" if item.tokens_before is not None else "—"
            table.add_row(
                Text(ago(item.created_at, now)),
                Text(item.agent, style="bold"),
                Text(tokens, justify="right"),
                Text(one_line(summary, 60)),
                Text(short_path(item.session_file) if item.session_file else "—", style="dim"),
                key=item.id,
            )
        count = len(message.items)
        note = (
            f"{count} found · Enter audits one: edit a better summary and accept it, or dismiss it"
            if count
            else "Nothing found after the fact. `cutline inbox scan` looks again; the desk scans every minute."
        )
        self.note(note)

    def open_row(self, key: str) -> None:
        self.desk.open_found_item(key)


class FoundViewLoaded(Message):
    def __init__(self, view: FoundView) -> None:
        self.view = view
        super().__init__()


class FoundAnswered(Message):
    """The person's answer went through (text: what happened) or was refused (error: why)."""

    def __init__(self, text: str | None, error: str | None) -> None:
        self.text = text
        self.error = error
        super().__init__()


def _who(view: FoundView) -> str:
    item = view.item
    cut = f"cut at entry {view.first_kept_entry_id}" if view.first_kept_entry_id else "no cut: it summarized it all"
    tokens = f" · {item.tokens_before:,} tokens before" if item.tokens_before is not None else ""
    summarized = sum(1 for m in view.messages if m.part == "summarized")
    kept = len(view.messages) - summarized
    return f"{item.agent} compacted on its own · {cut}{tokens} · {summarized} summarized, {kept} kept"


class FoundItemScreen(OnDesk, Screen[None]):
    """One compaction found after the fact: the agent's cut and messages, its summary to edit, accept or dismiss."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "e", "edit", "Edit summary", id="found_item.edit", tooltip="Edit the summary (Escape leaves the editor)"
        ),
        Binding(
            "a", "accept", "Accept", id="found_item.accept", tooltip="Write the edited summary back to the session"
        ),
        Binding(
            "c", "compare", "Compare", id="found_item.compare", tooltip="Diff the agent's summary and the edited one"
        ),
        Binding("d", "dismiss_item", "Dismiss", id="found_item.dismiss", tooltip="Dismiss it: nothing is written"),
        Binding("escape", "back", "Back", id="found_item.back", tooltip="Leave the editor, or go back to the list"),
    ]

    def __init__(self, item_id: str) -> None:
        super().__init__()
        self.item_id = item_id
        self.view: FoundView | None = None

    def compose(self) -> ComposeResult:
        yield Header(icon="✂")
        yield Static("", id="found-item-title")
        with Horizontal(id="found-item-body"):
            yield DataTable(id="found-item-messages", cursor_type="row", zebra_stripes=True)
            editor = SummaryEditor("", id="found-item-summary", soft_wrap=True, show_line_numbers=False)
            editor.cursor_blink = self.desk.cursor_blink
            yield editor
        yield Static("", id="found-item-notes")
        yield DeskFooter()

    def on_mount(self) -> None:
        self.sub_title = f"found after the fact · inbox {self.item_id}"
        table: DataTable[Text] = self.query_one(DataTable)
        table.add_column("Part", key="part")
        table.add_column("Role", key="role")
        table.add_column("Message", key="text")
        table.focus()
        self.load()

    @work(thread=True, exclusive=True, group="found-item", exit_on_error=False, description="Opening the compaction")
    def load(self) -> None:
        from cutline.core.inbox.found_view import found_view

        self.post_message(FoundViewLoaded(found_view(self.desk.store, self.item_id)))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.desk.report_worker(event)

    @on(FoundViewLoaded)
    def _loaded(self, message: FoundViewLoaded) -> None:
        view = self.view = message.view
        self.query_one("#found-item-title", Static).update(Text(_who(view), style="bold"))
        table: DataTable[Text] = self.query_one(DataTable)
        rows = [
            (
                Text(line.part, style="dim" if line.part == "summarized" else "green"),
                Text(line.role),
                Text(one_line(line.text, 100)),
            )
            for line in view.messages
        ]
        # the columns as wide as their widest cell from the start: a table that widens its columns after it
        # was drawn (on idle) can leave its header at the old widths on screen (seen on a loaded machine)
        table.clear(columns=True)
        for at, (label, key) in enumerate((("Part", "part"), ("Role", "role"), ("Message", "text"))):
            width = max([cell_len(label), *(row[at].cell_len for row in rows)])
            table.add_column(label, key=key, width=width)
        for n, (line, row) in enumerate(zip(view.messages, rows, strict=True)):
            table.add_row(*row, key=f"{n}:{line.entry_id}")
        self.query_one(SummaryEditor).load_text(view.summary)
        self.query_one("#found-item-notes", Static).update(Text("\n".join(view.notes[-3:]), style="dim"))

    def action_edit(self) -> None:
        self.query_one(SummaryEditor).focus()

    def action_compare(self) -> None:
        """The agent's summary beside the one in the editor; reverting to the left puts the agent's back."""
        from cutline.app.screens.versions import DiffScreen, Version

        if self.view is None:
            return
        editor = self.query_one(SummaryEditor)
        own = self.view.agent_summary or ""
        versions = [
            Version(n=1, origin=f"{self.view.item.agent}'s own", created_at="", text=own),
            Version(n=2, origin="edited", created_at="", text=editor.text),
        ]

        def chosen(n: int | None) -> None:
            if n == 1:
                editor.load_text(own)

        self.app.push_screen(DiffScreen(versions), chosen)

    def action_back(self) -> None:
        editor = self.query_one(SummaryEditor)
        if editor.has_focus:
            self.query_one(DataTable).focus()
            return
        self.dismiss()

    def action_accept(self) -> None:
        if self.view is not None:
            self.answer("accept", self.query_one(SummaryEditor).text)

    def action_dismiss_item(self) -> None:
        if self.view is not None:
            self.answer("dismiss", None)

    @work(thread=True, exclusive=True, group="found-answer", exit_on_error=False, description="Answering")
    def answer(self, decision: str, text: str | None) -> None:
        """Save the person's edit when there is one, then accept (write back) or dismiss: core does the deciding."""
        from cutline.core.errors import CutlineError
        from cutline.core.inbox.answers import accept_item, edit_item, reject_item

        store = self.desk.store
        assert self.view is not None
        try:
            if decision == "dismiss":
                reject_item(store, self.item_id, "dismissed")
                self.post_message(FoundAnswered(f"dismissed {self.item_id}: nothing written", None))
                return
            if text is not None and text.rstrip("\n") != self.view.summary.rstrip("\n"):
                edit_item(store, self.item_id, text)
            item = accept_item(store, self.item_id)
            written = ((item.answer or {}).get("writtenTo") if item else None) or "the session"
            self.post_message(FoundAnswered(f"accepted {self.item_id}: the summary is written back to {written}", None))
        except CutlineError as exc:
            self.post_message(FoundAnswered(None, str(exc)))

    @on(FoundAnswered)
    def _answered(self, message: FoundAnswered) -> None:
        if message.error is not None:
            self.notify(message.error, severity="error", timeout=8, markup=False)
            self.load()  # the saved edit is the summary now
            return
        self.notify(message.text or "", timeout=6, markup=False)
        self.dismiss()
