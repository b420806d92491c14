"""A screen that lists rows in one table: a title, the table, a note and the footer; Enter opens the selected row.

The found sessions (found.py) and the compactions found after the fact (found_items.py) are such lists:
each says its title, ids and columns, loads its rows in a worker and opens a row by its key.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static
from textual.worker import Worker

from cutline.app.desk import OnDesk
from cutline.app.widgets.desk_footer import DeskFooter


class TableListScreen(OnDesk, Screen[None]):
    """Title, table and note; the subclass loads the rows (`load`, a worker) and opens one by its key (`open_row`)."""

    TITLE_TEXT: ClassVar[str] = ""
    SUB_TITLE_TEXT: ClassVar[str] = ""
    # the widgets' ids: the title, the table and the note (the stylesheet sizes each by its id)
    IDS: ClassVar[tuple[str, str, str]] = ("", "", "")
    COLUMNS: ClassVar[tuple[tuple[str, str], ...]] = ()  # (label, key)

    def compose(self) -> ComposeResult:
        title, table, note = self.IDS
        yield Header(icon="✂")
        yield Static(self.TITLE_TEXT, id=title)
        yield DataTable(id=table, cursor_type="row", zebra_stripes=True)
        yield Static("", id=note)
        yield DeskFooter()

    def on_mount(self) -> None:
        self.sub_title = self.SUB_TITLE_TEXT
        table: DataTable[Text] = self.query_one(DataTable)
        for label, key in self.COLUMNS:
            table.add_column(label, key=key)
        table.focus()
        self.load()

    def load(self) -> object:
        """Read the rows (a thread worker) and post them to the screen."""
        raise NotImplementedError

    def open_row(self, key: str) -> None:
        """Open the row whose key is `key`."""
        raise NotImplementedError

    def note(self, text: str) -> None:
        self.query_one(f"#{self.IDS[2]}", Static).update(Text(text))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.desk.report_worker(event)

    def action_open(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        if not table.row_count:
            return
        key = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value
        if key is not None:
            self.open_row(str(key))

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()

    def action_refresh(self) -> None:
        self.load()

    def action_back(self) -> None:
        self.dismiss()
