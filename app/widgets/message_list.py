"""The message list: one row per entry of the active path, drawn with the Line API.

Only visible rows are rendered (`render_line`), rows and strips live in LRU caches,
and moving the cursor repaints just the rows that change, so 100,000 entries
scroll as smoothly as 100. The compaction plan is drawn on the list: a cut line
above the first kept entry, summarized rows dimmed, the split-turn prefix marked,
earlier compactions as dividers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from cutline.app.widgets.rows import PAIR_COLOURS, Row, entry_row
from cutline.core.models import Entry
from cutline.core.workbench.entries import StoredEntries, pair_numbers

EIGHTHS = " ▏▎▍▌▋▊▉█"
BAR_CELLS = 8


def token_bar(tokens: int, largest: int, cells: int = BAR_CELLS) -> str:
    """A bar of `cells` cells for `tokens`, scaled so `largest` fills it, in eighths of a cell."""
    if largest <= 0 or tokens <= 0:
        return " " * cells
    eighths = round(tokens / largest * cells * 8)
    eighths = max(1, min(cells * 8, eighths))
    full, part = divmod(eighths, 8)
    bar = "█" * full + (EIGHTHS[part] if part else "")
    return bar.ljust(cells)


def changed_span(old: bytes, new: bytes) -> tuple[int, int] | None:
    """First and last index where two equal-length zone strings differ (None when equal), by halving: no per-byte loop."""
    if old == new:
        return None
    n = len(old)
    low, high = 0, n  # the first difference is in [low, high)
    while high - low > 1:
        mid = (low + high) // 2
        if old[low:mid] == new[low:mid]:
            low = mid
        else:
            high = mid
    first = low
    low, high = first, n - 1  # the last difference is in [low, high]
    while low < high:
        mid = (low + high + 1) // 2
        if old[mid:] == new[mid:]:
            high = mid - 1
        else:
            low = mid
    return first, low


ZONES = ("context", "outside", "summarized", "prefix", "kept")


@dataclass(frozen=True)
class PlanMarks:
    """Where a plan puts each entry of the path: one zone code per path index (see ZONES).

    `first_kept` is the path index the cut line is drawn above (None: no cut).
    """

    zones: bytes
    first_kept: int | None
    cut_label: str = ""

    def zone(self, index: int) -> str:
        return ZONES[self.zones[index]] if 0 <= index < len(self.zones) else "context"


ZONE_BAR = {"outside": " ", "context": "│", "summarized": "┊", "prefix": "┃", "kept": "┃"}
KIND_CLASS = {
    "user": "user",
    "assistant": "assistant",
    "toolResult": "tool",
    "bashExecution": "tool",
    "custom": "custom",
    "branchSummary": "summary",
    "compactionSummary": "summary",
    "system": "custom",
    "compaction": "divider",
    "note": "note",
}


class MessageList(ScrollView, can_focus=True):
    """A scrolling list of session entries with a cursor, token bars and the plan drawn on it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Up", show=False),
        Binding("down,j", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home,g", "first", "First", show=False),
        Binding("end,G", "last", "Last", show=False),
        Binding("full_stop", "jump_cut", "Jump to cut", show=False, id="list.jump_cut"),
        Binding("p", "jump_partner", "Call ↔ result", show=False, id="list.partner"),
        Binding("enter", "select", "Show entry", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "message-list--cursor",
        "message-list--partner",
        "message-list--user",
        "message-list--assistant",
        "message-list--tool",
        "message-list--custom",
        "message-list--summary",
        "message-list--note",
        "message-list--divider",
        "message-list--time",
        "message-list--muted",
        "message-list--outside",
        "message-list--summarized",
        "message-list--prefix",
        "message-list--kept",
        "message-list--context",
        "message-list--cut",
        "message-list--bar",
        "message-list--count",
        "message-list--error",
        "message-list--thinking",
        "message-list--image",
        *(f"message-list--pair-{n}" for n in range(PAIR_COLOURS)),
    }

    DEFAULT_CSS = """
    MessageList {
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-gutter: stable;
    }
    """

    cursor: reactive[int] = reactive(0, repaint=False, init=False)

    class Highlighted(Message):
        """The cursor moved to another entry."""

        def __init__(self, message_list: MessageList, index: int) -> None:
            self.message_list = message_list
            self.index = index
            super().__init__()

    class RowsRead(Message):
        """A window of stored rows has been read (in a worker) and can be drawn."""

        def __init__(self, window: int) -> None:
            self.window = window
            super().__init__()

    class Selected(Message):
        """Enter was pressed on an entry."""

        def __init__(self, message_list: MessageList, index: int) -> None:
            self.message_list = message_list
            self.index = index
            super().__init__()

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.entries: Sequence[Entry] = ()
        self.tokens: Sequence[int] = ()
        self.largest = 0
        self.marks: PlanMarks | None = None
        self._pairs: dict[int, int] = {}
        self._partners: dict[int, int] = {}
        self._rows: LRUCache[int, Row] = LRUCache(4096)
        self._strips: LRUCache[tuple[object, ...], Strip] = LRUCache(4096)
        self._styles: dict[str, Style] = {}
        self.lines_rendered = 0
        self.rows_built = 0
        self._reading: set[int] = set()
        # keys pressed before there is anything to act on (the session is loading): replayed once it is planned,
        # unless `hold` takes them (the review screen keeps them in order with its own keys)
        self.queued: list[str] = []
        self.hold: Callable[[str], bool] | None = None
        # a re-plan is being made: the cut drawn is the last plan's, so a jump to the cut waits for the new one
        self.marks_pending = False

    # -- data ---------------------------------------------------------------

    def set_entries(
        self,
        entries: Sequence[Entry],
        tokens: Sequence[int],
        pairs: tuple[dict[int, int], dict[int, int]] | None = None,
        keep_cursor: bool = False,
    ) -> None:
        """Show these entries with these token counts (same length); the cursor goes to the last entry.

        `pairs` is `pair_numbers(entries)` when the caller computed it off the UI thread
        (a `StoredEntries` preview is shown without pairs); `keep_cursor` leaves the
        cursor where it is (the same path shown in full after its preview).
        """
        self.entries = entries
        if pairs is not None:
            self._pairs, self._partners = pairs
        elif isinstance(entries, StoredEntries):
            self._pairs, self._partners = {}, {}
        else:
            self._pairs, self._partners = pair_numbers(entries)
        self._rows.clear()
        self._reading.clear()
        self.set_tokens(tokens)
        self._update_virtual_size()
        if not keep_cursor:
            self.set_reactive(MessageList.cursor, max(0, len(entries) - 1))
        self.call_after_refresh(self._scroll_cursor_into_view)
        self.post_message(self.Highlighted(self, self.cursor))

    def set_tokens(self, tokens: Sequence[int]) -> None:
        """Replace the token counts (e.g. when the counter changes)."""
        self.tokens = tokens
        self.largest = max(tokens, default=0)
        self._strips.clear()
        self.refresh()

    def set_plan(self, marks: PlanMarks | None) -> None:
        """Draw another plan: the cut line moves, zones recolour."""
        old = self.marks
        old_cut = old.first_kept if old else None
        self.marks = marks
        # strips are keyed by zone, so only rows whose zone changed are drawn again
        self._update_virtual_size()
        if old_cut != (marks.first_kept if marks else None):
            self._scroll_cursor_into_view()
        self._refresh_changed(old, marks)
        if marks is not None and self.entries and self.queued and not self.marks_pending:
            queued, self.queued = self.queued, []
            for action in queued:
                getattr(self, f"action_{action}")()

    def _refresh_changed(self, old: PlanMarks | None, new: PlanMarks | None) -> None:
        """Repaint only the visible rows a new plan changes (zones, the cut line and the rows it shifts).

        Why: on a long session a settings change moves the cut a few rows; repainting the
        whole list (and everything the compositor draws under it) cost most of the change.
        """
        if old is None or new is None or len(old.zones) != len(new.zones):
            self.refresh()
            return
        span = changed_span(old.zones, new.zones)
        cuts = [c for c in (old.first_kept, new.first_kept) if c is not None]
        if (old.first_kept is None) != (new.first_kept is None):
            self.refresh()  # a cut line appears or goes: every row below it moves
            return
        indices = [*cuts, *(span or ())]
        if not indices:
            return
        top = min(indices)
        bottom = max(indices) + 2  # the cut line and the row it pushes down
        scroll = round(self.scroll_y)
        height = self.scrollable_content_region.height
        start, stop = max(top, scroll), min(bottom + 1, scroll + height)
        if stop > start:
            self.refresh(Region(0, start - scroll, self.scrollable_content_region.width, stop - start))

    def _queue(self, action: str) -> bool:
        """Keep a key pressed while there is nothing to act on yet; True when it was queued."""
        if self.entries and (action != "jump_cut" or (self.marks is not None and not self.marks_pending)):
            return False
        if self.hold is None or not self.hold(action):
            self.queued.append(action)
        return True

    def row(self, index: int) -> Row | None:
        """The row model of entry `index` (built on first use); None while its stored window is being read."""
        row = self._rows.get(index)
        if row is None:
            entries = self.entries
            if isinstance(entries, StoredEntries):
                entry = entries.cached(index)
                if entry is None:
                    self._read_window(entries, entries.window_of(index))
                    return None
            else:
                entry = entries[index]
            row = entry_row(entry, self._pairs.get(index))
            self._rows[index] = row
            self.rows_built += 1
        return row

    def _read_window(self, entries: StoredEntries, window: int) -> None:
        """Read a window of stored rows in a thread worker; the rows are drawn when it is read."""
        if window in self._reading:
            return
        self._reading.add(window)

        def read() -> None:
            entries.load_window(window)
            if entries is self.entries:
                self.post_message(self.RowsRead(window))

        self.run_worker(read, thread=True, group="list-rows", exit_on_error=False, description="Reading rows")

    def on_message_list_rows_read(self, message: MessageList.RowsRead) -> None:
        self._reading.discard(message.window)
        self.refresh()

    # -- geometry -----------------------------------------------------------

    @property
    def cut_row(self) -> int | None:
        """Display row of the cut line, or None when there is no cut."""
        if self.marks is None or self.marks.first_kept is None or not self.entries:
            return None
        return min(self.marks.first_kept, len(self.entries))

    @property
    def row_count(self) -> int:
        return len(self.entries) + (1 if self.cut_row is not None else 0)

    def display_row(self, index: int) -> int:
        cut = self.cut_row
        return index + 1 if cut is not None and index >= cut else index

    def entry_at(self, display_y: int) -> int | None:
        """Entry index shown on display row `display_y` (None for the cut line or past the end)."""
        cut = self.cut_row
        if cut is not None:
            if display_y == cut:
                return None
            if display_y > cut:
                display_y -= 1
        if 0 <= display_y < len(self.entries):
            return display_y
        return None

    def _update_virtual_size(self) -> None:
        self.virtual_size = Size(0, self.row_count)

    def _scroll_cursor_into_view(self, center: bool = False) -> None:
        if not self.entries:
            return
        y = self.display_row(self.cursor)
        height = max(1, self.scrollable_content_region.height)
        top = round(self.scroll_y)
        if center:
            self.scroll_to(y=max(0, y - height // 2), animate=False, immediate=True)
        elif y < top:
            self.scroll_to(y=y, animate=False, immediate=True)
        elif y >= top + height:
            self.scroll_to(y=y - height + 1, animate=False, immediate=True)

    def centre_cursor(self) -> None:
        """Scroll the cursor's row to the middle, its context above it (after a jump from elsewhere, e.g. the audit's g)."""
        self._scroll_cursor_into_view(center=True)

    # -- cursor -------------------------------------------------------------

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self.entries) - 1)) if self.entries else 0

    def watch_cursor(self, old: int, new: int) -> None:
        for index in {old, new, self._partners.get(old, -1), self._partners.get(new, -1)}:
            if 0 <= index < len(self.entries):
                self.refresh_line(self.display_row(index))
        self._scroll_cursor_into_view()
        self.post_message(self.Highlighted(self, new))

    def action_cursor_up(self) -> None:
        if self._queue("cursor_up"):
            return
        self.cursor -= 1

    def action_cursor_down(self) -> None:
        if self._queue("cursor_down"):
            return
        self.cursor += 1

    def action_page_up(self) -> None:
        if self._queue("page_up"):
            return
        self.cursor -= max(1, self.scrollable_content_region.height - 1)

    def action_page_down(self) -> None:
        if self._queue("page_down"):
            return
        self.cursor += max(1, self.scrollable_content_region.height - 1)

    def action_first(self) -> None:
        if self._queue("first"):
            return
        self.cursor = 0

    def action_last(self) -> None:
        if self._queue("last"):
            return
        self.cursor = len(self.entries) - 1

    def action_jump_cut(self) -> None:
        if self._queue("jump_cut"):
            return
        if self.marks is not None and self.marks.first_kept is not None:
            self.cursor = self.marks.first_kept
            self._scroll_cursor_into_view(center=True)

    def action_jump_partner(self) -> None:
        partner = self._partners.get(self.cursor)
        if partner is not None:
            self.cursor = partner

    def action_select(self) -> None:
        if self._queue("select"):
            return
        self.post_message(self.Selected(self, self.cursor))

    def on_click(self, event: events.Click) -> None:
        index = self.entry_at(round(self.scroll_y) + event.y)
        if index is not None:
            self.cursor = index
            if event.chain > 1:
                self.action_select()

    # -- rendering ----------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()

    def render_line(self, y: int) -> Strip:
        self.lines_rendered += 1
        width = self.scrollable_content_region.width
        display_y = round(self.scroll_y) + y
        if display_y >= self.row_count or width <= 0:
            return Strip.blank(width, self.rich_style)
        index = self.entry_at(display_y)
        is_cursor = index is not None and index == self.cursor
        is_partner = index is not None and self._partners.get(self.cursor) == index
        if index is None:
            key: tuple[object, ...] = (-1, width, self.marks.cut_label if self.marks else "")
        else:
            zone = self.marks.zone(index) if self.marks else "context"
            key = (index, width, is_cursor, is_partner, zone)
        strip = self._strips.get(key)
        if strip is None:
            if index is None:
                strip = self._cut_strip(width)
            else:
                row = self.row(index)
                if row is None:  # its stored window is being read: drawn again when it arrives
                    return self._waiting_strip(width, is_cursor)
                strip = self._row_strip(index, row, width, is_cursor, is_partner)
            self._strips[key] = strip
        return strip

    def _waiting_strip(self, width: int, is_cursor: bool) -> Strip:
        base = self.rich_style + self._style("cursor") if is_cursor else self.rich_style
        return Strip([Segment("   …", base + self._style("muted"))]).adjust_cell_length(width, base)

    def _style(self, name: str) -> Style:
        """A component's style; only the cursor and partner rows bring a background."""
        style = self._styles.get(name)
        if style is None:
            full = self.get_component_rich_style(f"message-list--{name}")
            if name in ("cursor", "partner"):
                style = full
            else:
                style = Style(color=full.color, bold=full.bold, italic=full.italic, strike=full.strike, dim=full.dim)
            self._styles[name] = style
        return style

    def _cut_strip(self, width: int) -> Strip:
        base = self.rich_style
        style = base + self._style("cut")
        label = f" ✂ {self.marks.cut_label} " if self.marks and self.marks.cut_label else " ✂ cut "
        label = set_cell_size(label, max(0, width - 4)) if cell_len(label) > width - 4 else label
        line = "──" + label
        line += "─" * max(0, width - cell_len(line))
        return Strip([Segment(line, style)], width)

    def _row_strip(self, index: int, row: Row, width: int, is_cursor: bool, is_partner: bool) -> Strip:
        base = self.rich_style
        if is_cursor:
            base = base + self._style("cursor")
        elif is_partner:
            base = base + self._style("partner")
        zone = self.marks.zone(index) if self.marks else "context"
        faded = zone in ("summarized", "outside")
        muted = self._style("muted")
        kind_style = self._style(KIND_CLASS.get(row.kind, "note"))
        text_style = muted if faded else Style()
        if zone == "outside":
            text_style = self._style("outside")
        segments: list[Segment] = []

        def add(text: str, style: Style | None = None) -> None:
            segments.append(Segment(text, base + style if style else base))

        add(ZONE_BAR[zone], self._style(zone))
        if row.pair is not None and (row.is_call or row.is_result):
            pair_style = self._style(f"pair-{row.pair % PAIR_COLOURS}")
            add("╭" if row.is_call else "╰", pair_style)
        else:
            add(" ")
        add(row.glyph, muted if faded else kind_style)
        add(" ")
        add((row.time or "").ljust(5), self._style("time"))
        add(" ")
        add(set_cell_size(row.label, 10), (muted if faded else kind_style))
        add(" ")

        counted = index < len(self.tokens)  # a stored preview may come before its counts
        tokens = self.tokens[index] if counted else 0
        show_bar = width >= 60
        tail = 1 + 3 + (1 + BAR_CELLS if show_bar else 0) + 1 + 7
        preview_width = max(0, width - 1 - 1 - 1 - 1 - 5 - 1 - 10 - 1 - tail)
        preview = row.preview
        if row.divider:
            preview = f"━━ {preview} "
            add(set_cell_size(preview, preview_width), self._style("divider"))
        else:
            if cell_len(preview) > preview_width > 1:
                preview = set_cell_size(preview, preview_width - 1) + "…"
            add(set_cell_size(preview, preview_width), text_style if faded or zone == "outside" else None)
        add(" ")
        add("✻" if row.thinking else " ", self._style("thinking"))
        add("▣" if row.image else " ", self._style("image"))
        add("✗" if row.error else " ", self._style("error"))
        if show_bar:
            add(" ")
            add(token_bar(tokens, self.largest), self._style("bar") + (muted if faded else Style()))
        add(" ")
        if not counted:
            add(" " * 7)
        else:
            add(f"{tokens:>7,}" if tokens < 10_000_000 else f"{tokens / 1e6:>6.1f}M", self._style("count"))
        return Strip(segments).adjust_cell_length(width, base)
