"""Every agent's sessions on this machine (core/agents/discover.py), newest first; opening one imports it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable

from cutline.app.screens.sessions import ago
from cutline.app.screens.table_list import TableListScreen
from cutline.app.widgets.safe_text import one_line, short_path

if TYPE_CHECKING:
    from cutline.core.agents.discover import Discovery


class FoundLoaded(Message):
    def __init__(self, found: Discovery) -> None:
        self.found = found
        super().__init__()


def size_text(size: int) -> str:
    """A byte count the way a listing shows it (B, k, M)."""
    for unit, scale in (("M", 1 << 20), ("k", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f}{unit}"
    return f"{size}B"


class FoundSessionsScreen(TableListScreen):
    """The sessions Claude Code, Codex, pi and OpenClaw keep on this machine, stored or not."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="found.open", tooltip="Import the selected session and open it"),
        Binding("r", "refresh", "Refresh", id="found.refresh", tooltip="Look for sessions again"),
        Binding("escape", "back", "Back", id="found.back", tooltip="Back to the stored sessions"),
    ]

    TITLE_TEXT = "Sessions on this machine"
    SUB_TITLE_TEXT = "on this machine"
    IDS = ("found-title", "found-table", "found-note")
    COLUMNS = (
        ("Modified", "modified"),
        ("Agent", "agent"),
        ("Version", "version"),
        ("Size", "size"),
        ("Stored", "stored"),
        ("Project", "cwd"),
        ("Session", "ref"),
    )

    @work(thread=True, exclusive=True, group="found-list", exit_on_error=False, description="Looking for sessions")
    def load(self) -> None:
        from cutline.core.agents.discover import discover

        found = discover()
        for session in found.sessions:
            session.stored = bool(self.desk.store.sessions.rows_for_path(session.ref))
        self.post_message(FoundLoaded(found))

    @on(FoundLoaded)
    def _loaded(self, message: FoundLoaded) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        table.clear()
        now = datetime.now(UTC)
        for s in message.found.sessions:
            table.add_row(
                Text(ago(s.modified, now)),
                Text(s.agent, style="bold"),
                Text(one_line(s.version or "—", 16)),
                Text(size_text(s.size), justify="right"),
                Text("yes" if s.stored else "—", style="green" if s.stored else "dim"),
                Text(short_path(s.cwd) if s.cwd else "—", style="dim"),
                Text(short_path(s.ref), style="dim"),
                key=s.ref,
            )
        count = len(message.found.sessions)
        notes = [f"{count} session{'s' if count != 1 else ''}", *message.found.problems[:3]]
        self.note(" · ".join(notes))

    def open_row(self, key: str) -> None:
        self.desk.open_review(key)
