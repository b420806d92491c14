"""The summary editor: a TextArea that shows control characters as visible pictures instead of sending them to the terminal."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import TextArea

from cutline.app.widgets.safe_text import visible


class SummaryEditor(TextArea):
    """Edits the summary text exactly; an escape character in it is drawn as ␛, never emitted."""

    def get_line(self, line_index: int) -> Text:
        line = self.document.get_line(line_index)
        return Text(visible(line), end="", no_wrap=True)
