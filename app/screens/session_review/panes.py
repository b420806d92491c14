"""The review screen's panes: which one has the focus (marked on its border), keys that jump to each, and a key that
maximises the focused one (the list or the side pane) and brings the layout back."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import TabbedContent, TextArea

from cutline.app.screens.session_review.state import ReviewState
from cutline.app.widgets.message_list import MessageList

# the pane titles name their jump keys, as lazygit's do ("[1] messages")
LIST_TITLE = "[1] messages"
SIDE_TITLE = "[2] side pane · [3] editor"


class Panes(ReviewState):
    """Jump keys to the list, the side pane and the editor; `z` maximises the focused pane (again: back)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "1,f2",
            "focus_pane('list')",
            "To the list",
            show=False,
            id="review.pane_list",
            tooltip="Focus the message list (F2 from a text field)",
        ),
        Binding(
            "2,f3",
            "focus_pane('side')",
            "To the side pane",
            show=False,
            id="review.pane_side",
            tooltip="Focus the side pane: its open tab (F3 from a text field)",
        ),
        Binding(
            "3,f4",
            "focus_pane('editor')",
            "To the editor",
            show=False,
            id="review.pane_editor",
            tooltip="Focus the summary editor (F4 from a text field)",
        ),
        Binding(
            "z",
            "maximize_pane",
            "Maximise",
            show=False,
            id="review.maximize",
            tooltip="Maximise the focused pane (the list or the side pane); z again brings the layout back",
        ),
    ]

    def mark_panes(self) -> None:
        """Title each pane's border with its jump key (the border shows which pane has the focus)."""
        self.query_one(MessageList).border_title = LIST_TITLE
        self.query_one("#side", TabbedContent).border_title = SIDE_TITLE

    def action_focus_pane(self, pane: str) -> None:
        if pane == "list":
            self._show_pane(self.query_one(MessageList))
            self.query_one(MessageList).focus()
        elif pane == "side":
            side = self.query_one("#side", TabbedContent)
            self._show_pane(side)
            self._focus_side(side)
        else:
            editor = self.query_one("#summary-editor", TextArea)
            self._show_pane(self.query_one("#side", TabbedContent))
            self.query_one("#side", TabbedContent).active = "tab-summary"
            if editor.disabled:
                self.set_status("no open proposal to edit (r runs one)")
            else:
                editor.focus()

    def _show_pane(self, pane: Widget) -> None:
        """A jump to a pane hidden by the other one's maximising brings the layout back first."""
        if self.maximized is not None and self.maximized is not pane:
            self.minimize()

    def _focus_side(self, side: TabbedContent) -> None:
        """The active tab's content when it takes the focus, else the tab strip (arrows switch tabs there)."""
        pane = side.active_pane
        if pane is not None:
            for widget in pane.query("*"):
                if widget.focusable:
                    widget.focus()
                    return
        side.query_one("Tabs").focus()

    def action_maximize_pane(self) -> None:
        if self.maximized is not None:
            self.minimize()
            self.set_status("layout back: the list and the side pane")
            return
        focused = self.focused
        side = self.query_one("#side", TabbedContent)
        pane: Widget = (
            side if focused is not None and side in focused.ancestors_with_self else self.query_one(MessageList)
        )
        self.maximize(pane, container=False)
        self.set_status(f"{'side pane' if pane is side else 'message list'} maximised · z: back to both panes")
