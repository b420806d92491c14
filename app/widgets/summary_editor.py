"""The summary editor: a TextArea that shows control characters as visible pictures instead of sending them to the terminal."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.widgets import TextArea

from cutline.app.widgets.safe_text import visible


class SummaryEditor(TextArea):
    """Edits the summary text exactly; an escape character in it is drawn as ␛, never emitted.

    Read-only (the proposal was decided while it had the focus), it still takes the letters
    typed into it, so none of them runs as one of the screen's one-letter commands.
    """

    def get_line(self, line_index: int) -> Text:
        line = self.document.get_line(line_index)
        return Text(visible(line), end="", no_wrap=True)

    async def _on_key(self, event: events.Key) -> None:
        if self.read_only and (event.is_printable or event.key in ("enter", "tab")):
            event.stop()
            event.prevent_default()
            self.app.bell()
            return
        await super()._on_key(event)
