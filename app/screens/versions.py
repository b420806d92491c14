"""Summary versions (diff any two, revert) and the session's compaction history."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Select, Static
from textual.worker import Worker

from cutline.app.desk import OnDesk
from cutline.app.screens.undo_flow import AsksUndo
from cutline.app.widgets.labels import plural
from cutline.app.widgets.safe_text import one_line, short_path, visible
from cutline.core.models import Entry

if TYPE_CHECKING:
    from cutline.core.agents.writeback import UndoResult
    from cutline.core.session_writes import UndoPlan


@dataclass
class Version:
    """One stored summary version."""

    n: int
    origin: str
    created_at: str
    text: str
    tokens: int | None = None


def diff_text(old: str, new: str, old_label: str, new_label: str) -> Text:
    """A coloured unified diff of two texts, built from plain strings (never markup)."""
    out = Text()
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), old_label, new_label, lineterm="", n=3))
    if not lines:
        return Text("The two versions are identical.", style="dim")
    for line in lines:
        shown = visible(line)
        if line.startswith(("+++", "---")):
            out.append(shown + "\n", style="bold")
        elif line.startswith("@@"):
            out.append(shown + "\n", style="cyan")
        elif line.startswith("+"):
            out.append(shown + "\n", style="green")
        elif line.startswith("-"):
            out.append(shown + "\n", style="red")
        else:
            out.append(shown + "\n")
    return out


class DiffScreen(ModalScreen[int | None]):
    """Diff any two summary versions; `r` reverts the summary to the left-hand version."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close", id="diff.close"),
        Binding(
            "r", "revert", "Revert to left", id="diff.revert", tooltip="Make the left-hand version the current summary"
        ),
    ]

    def __init__(self, versions: Sequence[Version], *, revert: bool = True) -> None:
        super().__init__(classes="modal")
        self.versions = list(versions)
        self.revert = revert  # False where there is nothing to revert (the history compares two summaries)

    def _label(self, version: Version) -> str:
        return f"v{version.n} {version.origin}"

    def compose(self) -> ComposeResult:
        options = [(self._label(v), v.n) for v in self.versions]
        first = next((v.n for v in self.versions if v.origin == "generated"), self.versions[0].n)
        last = self.versions[-1].n
        with Vertical(id="diff-dialog", classes="dialog"):
            yield Label("Summary versions", classes="dialog-title")
            with Horizontal(id="diff-pickers"):
                yield Select(options, value=first, allow_blank=False, id="diff-left")
                yield Select(options, value=last, allow_blank=False, id="diff-right")
            with VerticalScroll(id="diff-view"):
                yield Static("", id="diff-body")
            hint = "r reverts to the left-hand version · escape closes" if self.revert else "escape closes"
            yield Static(hint, classes="dialog-intro")

    def on_mount(self) -> None:
        self._render_diff()
        self.query_one("#diff-view").focus()

    def _version(self, n: Any) -> Version:
        return next(v for v in self.versions if v.n == n)

    @on(Select.Changed)
    def _render_diff(self) -> None:
        left = self._version(self.query_one("#diff-left", Select).value)
        right = self._version(self.query_one("#diff-right", Select).value)
        self.query_one("#diff-body", Static).update(
            diff_text(left.text, right.text, self._label(left), self._label(right))
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.revert if action == "revert" else True

    def action_revert(self) -> None:
        value = self.query_one("#diff-left", Select).value
        self.dismiss(value if isinstance(value, int) else None)

    def action_close(self) -> None:
        self.dismiss(None)


@dataclass(frozen=True)
class HistoryRow:
    """One row of the history: a compaction in the session file, or a proposal made here."""

    kind: str  # "file" or "proposal"
    key: str  # the compaction's entry id, or the proposal's id
    when: str
    tokens: str
    status: str
    summary: str
    detail: str  # the full line under the table for the selected row
    entry_id: str | None  # the entry `g` shows in the list (the compaction; a written proposal's compaction)


class HistoryLoaded(Message):
    def __init__(self, proposals: list[HistoryRow]) -> None:
        self.proposals = proposals
        super().__init__()


# what the history hands back to the review screen underneath (it owns the list and opens the audit)
HistoryChoice = tuple[str, str]  # ("audit-compaction" | "audit-proposal" | "show", id)


class HistoryScreen(AsksUndo, OnDesk, ModalScreen[HistoryChoice | None]):
    """Compactions in the session file and proposals made here, with their decisions; each row selectable.

    Enter opens the audit of the selected compaction (or proposal), `g` shows it in the list,
    space marks a row and `c` compares its summary with the selected row's, `u` undoes a
    proposal's write-back (as `cutline undo`).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,H", "close", "Close", id="history.close"),
        Binding("enter", "audit", "Audit", id="history.audit", tooltip="Audit the selected compaction or proposal"),
        Binding("g", "show_in_list", "Show in list", id="history.show", tooltip="Show the selected row in the list"),
        Binding("space", "mark", "Mark", id="history.mark", tooltip="Mark the selected row to compare it (c)"),
        Binding(
            "c", "compare", "Compare", id="history.compare", tooltip="Compare the marked row's summary with this one's"
        ),
        Binding(
            "u",
            "undo",
            "Undo write-back",
            id="history.undo",
            tooltip="Undo the selected proposal's write-back, as cutline undo",
        ),
    ]

    def __init__(self, session_id: str, path: Sequence[Entry], compactions: list[int] | None = None) -> None:
        super().__init__(classes="modal")
        self.session_id = session_id
        self.path = path
        self.compaction_indices = compactions  # where the compactions are, when known (a long path read as needed)
        self.rows: list[HistoryRow] = self._file_rows()
        self.proposals_loaded = False
        self.marked: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="history-dialog", classes="dialog"):
            yield Label("Compaction history", classes="dialog-title")
            table: DataTable[Text] = DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
            yield table
            yield Static("", id="history-detail", classes="dialog-intro")
            yield Static(
                Text("enter audit · g show in list · space mark, c compare · u undo a write-back · esc close"),
                classes="dialog-intro",
            )

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self._fill()
        self.call_after_refresh(self._fill)  # again once the table has its width: the summary takes what is left
        self.load()

    def on_resize(self) -> None:
        self._fill()

    def _file_rows(self) -> list[HistoryRow]:
        indices = range(len(self.path)) if self.compaction_indices is None else self.compaction_indices
        rows = []
        for i in indices:
            entry = self.path[i]
            record = entry.compaction
            if entry.type != "compaction" or record is None:
                continue
            when = visible(str(entry.timestamp or ""))[:16].replace("T", " ")
            rows.append(
                HistoryRow(
                    kind="file",
                    key=entry.id,
                    when=when,
                    tokens=f"{record.tokensBefore:,}",
                    status="in file",
                    summary=record.summary,
                    detail=f"compaction {entry.id} at path index {i:,}{f' · {when}' if when else ''} · "
                    f"{record.tokensBefore:,} tokens before · "
                    f"keeps from entry {record.firstKeptEntryId or '—'}",
                    entry_id=entry.id,
                )
            )
        return rows

    @work(thread=True, exclusive=True, group="history", exit_on_error=False, description="Loading the history")
    def load(self) -> None:
        from cutline.core import review

        store = self.desk.store
        rows: list[HistoryRow] = []
        for info in review.list_proposals(store, self.session_id):
            decided = review.decisions(store, info.id)
            written = decided[-1].written_to if decided and info.status == "accepted" else None
            entry = decided[-1].entry_id if written else None
            text = review.latest_version(store, info.id).text if info.versions else ""
            tokens = f"{info.tokens_before or 0:,} → {info.tokens_after or 0:,}"
            who = f"{info.summarizer or ''} {info.model or ''}".strip()
            where = f"written to {short_path(written)}" if written else "not written to the session file"
            rows.append(
                HistoryRow(
                    kind="proposal",
                    key=info.id,
                    when=visible(str(info.created_at or ""))[:16].replace("T", " "),
                    tokens=tokens,
                    status=info.status,
                    summary=text,
                    detail=f"proposal {info.id} · {info.status} · {str(info.created_at or '')[:16].replace('T', ' ')} · "
                    f"{who or 'summarizer ?'} · {tokens} tokens · "
                    f"{plural(info.versions, 'version', 'versions')} · {where}",
                    entry_id=entry,
                )
            )
        self.post_message(HistoryLoaded(rows))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.desk.report_worker(event)

    @on(HistoryLoaded)
    def _loaded(self, message: HistoryLoaded) -> None:
        self.rows = [*self._file_rows(), *message.proposals]
        self.proposals_loaded = True
        self._fill()

    def _fill(self) -> None:
        """The table, its summary column as wide as what the others leave (one line each, never wrapped)."""
        table = self.query_one(DataTable)
        selected = self.selected()
        table.clear(columns=True)
        widths = {"row": 10, "when": 16, "tokens": 15, "status": 8}
        if table.size.width < 100:
            del widths["when"]  # narrow: the time is in the selected row's line under the table
        room = max(16, table.size.width - sum(widths.values()) - 2 * (len(widths) + 1) - 2)
        for name, width in widths.items():
            table.add_column(name, width=width, key=name)
        table.add_column("summary", width=room, key="summary")
        colours = {"accepted": "green", "rejected": "red", "open": "yellow", "in file": ""}
        for row in self.rows:
            mark = "▶ " if row.key == self.marked else ""
            label = f"{mark}{'#' if row.kind == 'file' else ''}{row.key[:8]}"
            cells = {
                "row": Text(visible(label), style="bold" if mark else ""),
                "when": Text(row.when),
                "tokens": Text(row.tokens),
                "status": Text(row.status, style=colours.get(row.status, "")),
            }
            table.add_row(
                *(cells[name] for name in widths), Text(one_line(row.summary, room) or "—"), key=f"{row.kind}:{row.key}"
            )
        if not self.rows:
            table.add_row(*(Text("") for _ in widths), Text("No compaction in this session yet."))
        if selected is not None:
            index = next((i for i, r in enumerate(self.rows) if r is selected or r.key == selected.key), 0)
            table.move_cursor(row=index)
        self._show_detail()

    def selected(self) -> HistoryRow | None:
        table = self.query_one(DataTable)
        if not self.rows or not 0 <= table.cursor_row < len(self.rows):
            return None
        return self.rows[table.cursor_row]

    @on(DataTable.RowHighlighted)
    def _show_detail(self) -> None:
        row = self.selected()
        if not self.proposals_loaded:
            loading = " · loading the proposals…"
        else:
            loading = "" if any(r.kind == "proposal" for r in self.rows) else " · no proposal made here yet"
        text = Text(visible(row.detail if row is not None else "") + loading)
        self.query_one("#history-detail", Static).update(text)

    # -- actions ------------------------------------------------------------------

    def action_audit(self) -> None:
        row = self.selected()
        if row is not None:
            self.dismiss(("audit-compaction" if row.kind == "file" else "audit-proposal", row.key))

    @on(DataTable.RowSelected)
    def _row_selected(self) -> None:
        self.action_audit()

    def action_show_in_list(self) -> None:
        row = self.selected()
        if row is None:
            return
        if row.entry_id is None:
            self.notify("This proposal is not in the session file: nothing to show in the list.", timeout=4)
            return
        self.dismiss(("show", row.entry_id))

    def action_mark(self) -> None:
        row = self.selected()
        if row is not None:
            self.marked = None if self.marked == row.key else row.key
            self._fill()

    def action_compare(self) -> None:
        row = self.selected()
        marked = next((r for r in self.rows if r.key == self.marked), None)
        if row is None or marked is None or marked.key == row.key:
            self.notify("Mark one row (space), select another, then c compares their summaries.", timeout=5)
            return
        versions = [
            Version(
                n=n,
                origin=f"{'compaction' if r.kind == 'file' else 'proposal'} {r.key[:8]}",
                created_at=r.when,
                text=r.summary,
            )
            for n, r in enumerate((marked, row), start=1)
        ]
        self.app.push_screen(DiffScreen(versions, revert=False))

    def action_undo(self) -> None:
        row = self.selected()
        if row is None or row.kind != "proposal" or row.status != "accepted" or row.entry_id is None:
            self.notify("Select a proposal written back to the session file (accepted, written to …).", timeout=5)
            return
        self.start_undo(row.key)

    def undone(self, plan: UndoPlan, result: UndoResult) -> None:
        self.load()

    def action_close(self) -> None:
        self.dismiss(None)
