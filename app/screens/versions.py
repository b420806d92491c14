"""Summary versions (diff any two, revert) and the session's compaction history."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.console import Group
from rich.rule import Rule
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, Select, Static
from textual.worker import Worker

from cutline.app.desk import OnDesk
from cutline.app.widgets.safe_text import one_line, short_path, visible
from cutline.core.models import Entry


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

    def __init__(self, versions: Sequence[Version]) -> None:
        super().__init__(classes="modal")
        self.versions = list(versions)

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
            yield Static("r reverts to the left-hand version · escape closes", classes="dialog-intro")

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

    def action_revert(self) -> None:
        value = self.query_one("#diff-left", Select).value
        self.dismiss(value if isinstance(value, int) else None)

    def action_close(self) -> None:
        self.dismiss(None)


class HistoryLoaded(Message):
    def __init__(self, proposals: list[dict[str, Any]]) -> None:
        self.proposals = proposals
        super().__init__()


class HistoryScreen(OnDesk, ModalScreen[None]):
    """Compactions in the session file and proposals made here, with their decisions."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,H", "close", "Close", id="history.close")]

    def __init__(self, session_id: str, path: Sequence[Entry], compactions: list[int] | None = None) -> None:
        super().__init__(classes="modal")
        self.session_id = session_id
        self.path = path
        self.compaction_indices = compactions  # where the compactions are, when known (a long path read as needed)

    def compose(self) -> ComposeResult:
        with Vertical(id="history-dialog", classes="dialog"):
            yield Label("Compaction history", classes="dialog-title")
            with VerticalScroll(id="history-view"):
                yield Static(self._history([], loading=True), id="history-body")

    def on_mount(self) -> None:
        self.query_one("#history-view").focus()
        self.load()

    @work(thread=True, exclusive=True, group="history", exit_on_error=False, description="Loading the history")
    def load(self) -> None:
        from cutline.core import review

        store = self.desk.store
        rows: list[dict[str, Any]] = []
        for info in review.list_proposals(store, self.session_id):
            row = info.model_dump()
            decided = review.decisions(store, info.id)
            row["written_to"] = decided[-1].written_to if decided else None
            rows.append(row)
        self.post_message(HistoryLoaded(rows))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.desk.report_worker(event)

    @on(HistoryLoaded)
    def _loaded(self, message: HistoryLoaded) -> None:
        self.query_one("#history-body", Static).update(self._history(message.proposals))

    def _history(self, proposals: list[dict[str, Any]], loading: bool = False) -> Group:
        parts: list[Any] = [Rule("in the session file", style="dim")]
        compactions = [
            (i, e, record)
            for i, e in (
                enumerate(self.path)
                if self.compaction_indices is None
                else ((i, self.path[i]) for i in self.compaction_indices)
            )
            if e.type == "compaction" and (record := e.compaction) is not None
        ]
        if not compactions:
            parts.append(Text("No compaction in this session yet.", style="dim"))
        else:
            # Why the widths: at 80 columns a full timestamp and a 36-character uuid left the summary 2
            # characters wide (or no column at all); ids are cut to 8, the summary takes what is left, one line
            table = Table(box=None, header_style="dim", expand=True)
            table.add_column("#", no_wrap=True, justify="right")
            table.add_column("when", no_wrap=True)
            table.add_column("before", no_wrap=True, justify="right")
            table.add_column("first kept", no_wrap=True, max_width=10, overflow="ellipsis")
            table.add_column("summary", no_wrap=True, overflow="ellipsis", ratio=1, min_width=16)
            for i, entry, record in compactions:
                table.add_row(
                    str(i),
                    Text(visible(str(entry.timestamp or ""))[:16].replace("T", " ")),
                    f"{record.tokensBefore:,}",
                    Text(visible((record.firstKeptEntryId or "—")[:8])),
                    Text(one_line(record.summary, 200)),
                )
            parts.append(table)
        parts.append(Rule("proposals made here", style="dim"))
        if loading:
            parts.append(Text("loading…", style="dim"))
        elif not proposals:
            parts.append(Text("No proposal yet.", style="dim"))
        else:
            table = Table(box=None, header_style="dim", expand=True)
            table.add_column("proposal", no_wrap=True, min_width=20)
            table.add_column("created", no_wrap=True)
            table.add_column("status", no_wrap=True)
            table.add_column("summarizer", overflow="fold")
            table.add_column("tokens", no_wrap=True)
            table.add_column("versions", no_wrap=True)
            table.add_column("written to", overflow="fold", ratio=1)
            colours = {"accepted": "green", "rejected": "red", "open": "yellow"}
            for row in proposals:
                table.add_row(
                    Text(visible(str(row["id"]))),
                    Text(visible(str(row["created_at"] or ""))[:16].replace("T", " ")),
                    Text(str(row["status"]), style=colours.get(row["status"], "")),
                    Text(visible(f"{row['summarizer'] or ''} {row['model'] or ''}".strip())),
                    f"{row['tokens_before'] or 0:,} → {row['tokens_after'] or 0:,}",
                    str(row["versions"]),
                    Text(short_path(row["written_to"]) if row["written_to"] else "—"),
                )
            parts.append(table)
        return Group(*parts)

    def action_close(self) -> None:
        self.dismiss(None)
