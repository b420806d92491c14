"""What a terminal would show of a headless app: every update the app writes, applied to a grid of cells.

Why: a headless app renders each frame but writes nothing, and `export_screenshot`
renders the whole screen afresh; a widget that repaints only the rows it changed
(`refresh(Region)`) can only be checked against what its partial updates left drawn.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.segment import ControlType
from textual.app import App


class DrawnScreen:
    """The cells an app's frames have drawn so far, and how many frames there were."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        width, height = app.size
        self.cells = [[" "] * width for _ in range(height)]
        self.frames = 0
        self._console = Console(width=width, height=height, legacy_windows=False, force_terminal=True)
        display = app._display

        def drawn(screen: Any, update: Any) -> None:
            display(screen, update)
            if update is not None:
                self.apply(update)

        app._display = drawn  # type: ignore[method-assign]

    def apply(self, update: Any) -> None:
        """Write one update's segments where its cursor moves put them."""
        self.frames += 1
        x = y = 0
        for segment in update.__rich_console__(self._console, self._console.options):
            if segment.control:
                for code in segment.control:
                    if code[0] == ControlType.CURSOR_MOVE_TO:
                        x, y = code[1], code[2]
                continue
            if segment.text == "\n":
                continue
            for char in segment.text:
                if 0 <= y < len(self.cells) and 0 <= x < len(self.cells[y]):
                    self.cells[y][x] = char
                x += cell_len(char) or 1

    def line(self, y: int) -> str:
        return "".join(self.cells[y])

    def lines(self) -> list[str]:
        return [self.line(y) for y in range(len(self.cells))]


def rendered_now(app: App[Any]) -> list[str]:
    """The whole screen rendered afresh, every widget's line cache dropped first (what a full repaint would draw)."""
    for widget in app.screen.walk_children(with_self=True):
        widget._styles_cache.clear()  # type: ignore[attr-defined]
    return [strip.text for strip in app.screen._compositor.render_strips()]
