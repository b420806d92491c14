"""The message list holds 100,000 entries and renders only what is visible."""

from __future__ import annotations

from textual.app import App, ComposeResult

from cutline.app.widgets.message_list import EIGHTHS, MessageList, PlanMarks, token_bar
from cutline.core.models import Entry, Message, TextBlock, ToolCallBlock

ROWS = 100_000
HEIGHT = 30


def _entries(n: int) -> list[Entry]:
    entries: list[Entry] = []
    for i in range(n):
        kind = i % 3
        if kind == 0:
            message = Message(role="user", content=[TextBlock(text=f"request {i}")])
        elif kind == 1:
            message = Message(
                role="assistant", content=[ToolCallBlock(id=f"c{i}", name="read", arguments={"path": f"f{i}.py"})]
            )
        else:
            message = Message(
                role="toolResult", toolCallId=f"c{i - 1}", toolName="read", content=[TextBlock(text=f"body {i}")]
            )
        entries.append(Entry(id=f"{i:08x}", type="message", message=message))
    return entries


class ListApp(App[None]):
    def __init__(self, entries: list[Entry], tokens: list[int]) -> None:
        super().__init__()
        self.entries = entries
        self.tokens = tokens

    def compose(self) -> ComposeResult:
        yield MessageList()

    def on_mount(self) -> None:
        message_list = self.query_one(MessageList)
        message_list.set_entries(self.entries, self.tokens)
        message_list.focus()


async def test_hundred_thousand_rows_render_only_visible_lines() -> None:
    entries = _entries(ROWS)
    tokens = [(i * 37) % 5000 + 1 for i in range(ROWS)]
    app = ListApp(entries, tokens)
    async with app.run_test(size=(120, HEIGHT)) as pilot:
        await pilot.pause()
        message_list = app.query_one(MessageList)
        assert message_list.virtual_size.height == ROWS
        assert message_list.cursor == ROWS - 1
        assert message_list.rows_built <= 2 * HEIGHT, "only the visible rows were built"
        assert message_list.lines_rendered <= 6 * HEIGHT

        built = message_list.rows_built
        await pilot.press("home")
        await pilot.pause()
        assert message_list.cursor == 0 and round(message_list.scroll_y) == 0
        assert message_list.rows_built - built <= 2 * HEIGHT

        # a cursor move inside the view repaints a handful of lines, not the screen
        before = message_list.lines_rendered
        await pilot.press("down")
        await pilot.pause()
        assert 0 < message_list.lines_rendered - before <= 8

        # draw a plan: the cut row appears at the first kept entry, scrolling still works
        zones = bytes([2]) * 60_000 + bytes([4]) * (ROWS - 60_000)
        message_list.set_plan(PlanMarks(zones, 60_000, "cut"))
        assert message_list.virtual_size.height == ROWS + 1
        await pilot.press(".")
        await pilot.pause()
        assert message_list.cursor == 60_000
        top = round(message_list.scroll_y)
        height = message_list.scrollable_content_region.height
        painted = [message_list.render_line(y).text for y in range(height)]
        cut_at = message_list.display_row(60_000) - 1 - top
        assert 0 < cut_at < height - 1, "the cut is shown with context around it"
        assert "✂" in painted[cut_at] and "request 60000" in painted[cut_at + 1]
        assert message_list.rows_built < 10 * HEIGHT, "jumping far renders only the rows around the target"


def test_token_bar_uses_eighth_blocks() -> None:
    assert token_bar(0, 100) == " " * 8
    assert token_bar(100, 100) == "█" * 8
    assert token_bar(50, 100) == "████    "
    # 1/64 of the largest is one eighth of a cell; 9/64 is one cell and an eighth
    assert token_bar(1, 64) == EIGHTHS[1] + " " * 7
    assert token_bar(9, 64) == "█" + EIGHTHS[1] + " " * 6
    assert token_bar(1, 10_000) == EIGHTHS[1] + " " * 7, "a tiny entry still shows"
