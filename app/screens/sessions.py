"""The sessions screen: every stored session, filter as you type, open one, import a file."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.coordinate import Coordinate
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Header, Input, ProgressBar, Static
from textual.worker import Worker, WorkerState

from cutline.app.desk import OnDesk
from cutline.app.widgets.desk_footer import DeskFooter
from cutline.app.widgets.labels import format_label
from cutline.app.widgets.safe_text import one_line, short_path

if TYPE_CHECKING:
    from cutline.core.store import SessionInfo


def ago(moment: str | None, now: datetime) -> str:
    """How long before `now` an ISO timestamp was, in the largest sensible unit."""
    if not moment:
        return ""
    try:
        then = datetime.fromisoformat(moment.replace("Z", "+00:00"))
    except ValueError:
        return moment
    if then.tzinfo is None:
        then = then.replace(tzinfo=UTC)
    seconds = max(0, int((now - then).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return "just now"


class SessionsLoaded(Message):
    def __init__(self, sessions: list[SessionInfo]) -> None:
        self.sessions = sessions
        super().__init__()


class ImportProgressed(Message):
    """How far an import has come: the stage, and done / total characters of the file (total 0: not known)."""

    def __init__(self, name: str, stage: str, done: int, total: int) -> None:
        self.name = name
        self.stage = stage
        self.done = done
        self.total = total
        super().__init__()


class WaitingFound(Message):
    """The oldest waiting inbox item's session (None: nothing waits, or its session is not imported)."""

    def __init__(self, session_id: str | None, item_id: str | None) -> None:
        self.session_id = session_id
        self.item_id = item_id
        super().__init__()


class SessionImported(Message):
    def __init__(self, session_id: str, status: str, problems: int) -> None:
        self.session_id = session_id
        self.status = status
        self.problems = problems
        super().__init__()


def writes_back(info: SessionInfo) -> Text:
    """Whether an accepted compaction can go into the session's file, in a word or two (the accept dialog says why)."""
    from cutline.core.agents.registry import adapter_for

    if adapter_for(info.format).write_back_refusal() is not None:
        return Text("no", style="dim")
    if not info.source_path:
        return Text("no file", style="dim")
    if info.format == "pi" and (info.version or 1) < 3:
        return Text(f"yes (migrates v{info.version or 1})", style="green")
    return Text("yes", style="green")


def open_proposals(count: int) -> Text:
    """How many proposals wait for a decision: a number to act on, or a dash."""
    if not count:
        return Text("—", style="dim", justify="right")
    return Text(f"{count:,} open", style="bold yellow", justify="right")


class SessionsScreen(OnDesk, Screen[None]):
    """The list of stored sessions."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="sessions.open", tooltip="Open the selected session for review"),
        Binding("i", "import_file", "Import", id="sessions.import", tooltip="Import a session file"),
        Binding("slash", "filter", "Filter", id="sessions.filter", tooltip="Filter sessions as you type"),
        Binding("r", "refresh", "Refresh", id="sessions.refresh", tooltip="Reload the session list"),
        Binding(
            "m", "machine", "On this machine", show=False, id="sessions.machine", tooltip="Every agent's sessions here"
        ),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="sessions.clear_filter"),
        Binding(
            "w",
            "waiting",
            "Waiting for review",
            show=False,
            id="sessions.waiting",
            tooltip="Open the session of the oldest compaction an agent holds for review",
        ),
        Binding(
            "f",
            "found_items",
            "Found after the fact",
            show=False,
            id="sessions.found_items",
            tooltip="List the compactions the agents made on their own, to audit, rewrite or dismiss",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.sessions: list[SessionInfo] = []

    def compose(self) -> ComposeResult:
        yield Header(icon="✂")
        with Horizontal(id="sessions-bar"):
            yield Static("Sessions", id="sessions-title")
            field = Input(placeholder="filter: name, path, format…", id="sessions-filter")
            field.cursor_blink = self.desk.cursor_blink
            yield field
        table: DataTable[Text] = DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
        yield table
        with Horizontal(id="sessions-import"):
            yield Static("", id="sessions-import-text")
            yield ProgressBar(id="sessions-import-bar", show_eta=False)
        yield Static("", id="sessions-empty")
        yield DeskFooter()

    def on_mount(self) -> None:
        self.show_inbox(self.desk.inbox.count, self.desk.inbox.found)
        table = self.query_one(DataTable)
        table.add_column("Session", key="name")
        table.add_column("Format", key="format")
        table.add_column("Write-back", key="writeback")
        table.add_column("Entries", key="entries")
        table.add_column("Tokens", key="tokens")
        table.add_column("Compactions", key="compactions")
        table.add_column("Proposals", key="open")
        table.add_column("Last decision", key="decision")
        table.add_column("Updated", key="updated")
        table.add_column("File", key="file")
        table.focus()
        self.load()

    def on_screen_resume(self) -> None:
        self.show_inbox(self.desk.inbox.count, self.desk.inbox.found)
        self.load()

    def show_inbox(self, count: int, found: int = 0) -> None:
        """The header tells how many compactions wait for review, and apart how many were found after the fact."""
        from cutline.app.inbox_watch import waiting_line

        line = waiting_line(count, found)
        self.sub_title = f"sessions · {line}" if line else "sessions"

    @work(thread=True, exclusive=True, group="sessions-list", exit_on_error=False, description="Loading sessions")
    def load(self) -> None:
        self.post_message(SessionsLoaded(self.desk.store.list_sessions()))

    @on(SessionsLoaded)
    def _loaded(self, message: SessionsLoaded) -> None:
        self.sessions = message.sessions
        self._fill()

    def _matches(self, info: SessionInfo, needle: str) -> bool:
        haystack = " ".join(str(x) for x in (info.name, info.source_path or "", info.format, info.id)).lower()
        return all(word in haystack for word in needle.lower().split())

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        needle = self.query_one("#sessions-filter", Input).value.strip()
        selected = None
        if table.row_count and table.cursor_row >= 0:
            selected = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value
        table.clear()
        now = self.desk.clock()
        shown = 0
        for info in self.sessions:
            if needle and not self._matches(info, needle):
                continue
            shown += 1
            name = Text(one_line(info.name, 60), style="bold")
            decision = Text(
                info.last_decision or "—",
                style={"accepted": "green", "rejected": "red", "undone": "yellow"}.get(info.last_decision or "", "dim"),
            )
            table.add_row(
                name,
                Text(format_label(info.format, info.version)),
                writes_back(info),
                Text(f"{info.entries:,}", justify="right"),
                Text(f"{info.tokens:,}" if info.tokens is not None else "—", justify="right"),
                Text(str(info.compactions), justify="right"),
                open_proposals(info.open_proposals),
                decision,
                Text(ago(info.updated_at, now), style="dim"),
                Text(short_path(info.source_path) if info.source_path else "—", style="dim"),
                key=info.id,
            )
        if selected is not None:
            for row_index, info in enumerate(i for i in self.sessions if not needle or self._matches(i, needle)):
                if info.id == selected:
                    table.move_cursor(row=row_index)
                    break
        empty = self.query_one("#sessions-empty", Static)
        if not self.sessions:
            empty.update(Text("No sessions yet. Press i to import a session file, or run `cutline FILE`."))
        elif not shown:
            empty.update(Text(f"No session matches {one_line(needle, 80)!r}."))
        else:
            empty.update(Text(f"{shown} of {len(self.sessions)} sessions"))

    @on(Input.Changed, "#sessions-filter")
    def _filter_changed(self) -> None:
        self._fill()

    @on(Input.Submitted, "#sessions-filter")
    def _filter_submitted(self) -> None:
        table = self.query_one(DataTable)
        table.focus()
        if table.row_count:
            self.action_open()

    @on(DataTable.RowSelected, "#sessions-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        self.open_session(str(event.row_key.value))

    def action_filter(self) -> None:
        self.query_one("#sessions-filter", Input).focus()

    def action_clear_filter(self) -> None:
        field = self.query_one("#sessions-filter", Input)
        field.value = ""
        self.query_one(DataTable).focus()

    def action_refresh(self) -> None:
        self.load()

    def action_machine(self) -> None:
        self.desk.show_found_sessions()

    def action_found_items(self) -> None:
        self.desk.show_found_items()

    def action_waiting(self) -> None:
        self.find_waiting()

    @work(thread=True, exclusive=True, group="sessions-waiting", exit_on_error=False, description="Inbox")
    def find_waiting(self) -> None:
        from cutline.core.inbox.items import Inbox

        waiting = [i for i in Inbox(self.desk.store).listing() if i.shown_status() == "waiting"]
        first = waiting[0] if waiting else None
        self.post_message(WaitingFound(first.session_id if first else None, first.id if first else None))

    @on(WaitingFound)
    def _waiting_found(self, message: WaitingFound) -> None:
        if message.item_id is None:
            self.notify("Nothing waits for review", timeout=4)
        elif message.session_id is None:
            self.notify(
                f"{message.item_id} has no session to open: `cutline inbox show {message.item_id}`", markup=False
            )
        else:
            self.open_session(message.session_id)

    def action_open(self) -> None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return
        key = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value
        self.open_session(str(key))

    def open_session(self, session_id: str) -> None:
        self.desk.open_review(session_id)

    def action_import_file(self) -> None:
        from cutline.app.screens.modals import PathPrompt

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.import_file(path)

        self.app.push_screen(PathPrompt("Import a session file", cursor_blink=self.desk.cursor_blink), chosen)

    @work(thread=True, exclusive=True, group="sessions-import", exit_on_error=False, description="Import")
    def import_file(self, path: Path) -> None:
        """Import on a thread, telling the screen how far it has come (the desk stays live on a big file)."""
        name = path.name

        def progress(stage: str, done: int, total: int) -> None:
            self.post_message(ImportProgressed(name, stage, done, total))

        self.post_message(ImportProgressed(name, "reading", 0, 0))
        report = self.desk.store.import_file(path, progress=progress)
        self.post_message(SessionImported(report.session_id, report.status, len(report.problems)))

    @on(ImportProgressed)
    def _import_progressed(self, message: ImportProgressed) -> None:
        self.query_one("#sessions-import").add_class("-running")
        bar = self.query_one("#sessions-import-bar", ProgressBar)
        if message.total:
            bar.update(total=message.total, progress=message.done)
        else:
            bar.update(total=None)
        text = f"importing {one_line(message.name, 60)}: {message.stage}"
        self.query_one("#sessions-import-text", Static).update(Text(text))

    def _import_ended(self) -> None:
        self.query_one("#sessions-import").remove_class("-running")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "sessions-import" and event.state in (
            WorkerState.SUCCESS,
            WorkerState.ERROR,
            WorkerState.CANCELLED,
        ):
            self._import_ended()
        self.desk.report_worker(event)

    @on(SessionImported)
    def _imported(self, message: SessionImported) -> None:
        self._import_ended()
        note = f" ({message.problems} problems reported)" if message.problems else ""
        self.notify(f"Session {message.status}{note}", timeout=4, markup=False)
        self.load()
        self.open_session(message.session_id)
