"""The detail pane: one entry in full — markdown text, JSON tool arguments, highlighted code, tokens under every counter, usage."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.rule import Rule
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from cutline.app.widgets.plain_markdown import plain_markdown
from cutline.app.widgets.safe_text import visible
from cutline.core.models import (
    Block,
    Entry,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)

SHOWN_CHARS = 20_000


@dataclass(frozen=True)
class EntryFacts:
    """What the detail pane shows next to the content: where the plan puts the entry and its counts."""

    zone: str
    tokens: dict[str, int | None]


def _clip(text: str) -> str:
    text = visible(text)
    if len(text) > SHOWN_CHARS:
        return text[:SHOWN_CHARS] + f"\n… {len(text) - SHOWN_CHARS:,} more characters"
    return text


def _lexer_for(path: str | None, text: str) -> str | None:
    if not path:
        return None
    ext = os.path.splitext(path)[1].lower()
    known = {
        ".py": "python",
        ".js": "javascript",
        ".ts": "typescript",
        ".tsx": "tsx",
        ".json": "json",
        ".toml": "toml",
        ".yaml": "yaml",
        ".yml": "yaml",
        ".rs": "rust",
        ".go": "go",
        ".sh": "bash",
        ".md": "markdown",
        ".html": "html",
        ".css": "css",
        ".sql": "sql",
        ".c": "c",
        ".h": "c",
        ".java": "java",
        ".rb": "ruby",
        ".tcss": "css",
    }
    return known.get(ext)


class DetailPane(VerticalScroll):
    """Shows the selected entry."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._body = Static("", id="detail-body")
        self.call_paths: dict[str, str] = {}
        self._pending: tuple[Entry | None, EntryFacts | None, Message | None] | None = None

    def compose(self) -> ComposeResult:
        yield self._body

    def show(self, entry: Entry | None, facts: EntryFacts | None = None, message: Message | None = None) -> None:
        """Render one entry (`message` overrides the entry's own, e.g. a compaction's summary message).

        While another tab hides the pane, the entry is drawn when the pane is next shown:
        a drawn entry (its code highlighted) is a layout pass of the whole screen, which a
        cursor following the cut would otherwise pay on every settings change.
        """
        self._pending = (entry, facts, message)
        if all(node.display for node in self.ancestors_with_self if isinstance(node, Widget)):
            self._draw()

    def on_show(self) -> None:
        if self._pending is not None:
            self._draw()

    def _draw(self) -> None:
        if self._pending is None:
            return
        entry, facts, message = self._pending
        self._pending = None
        if entry is None:
            self._body.update(Text("No entry selected.", style="dim"))
            return
        self._body.update(Group(*self._parts(entry, facts, message or entry.message)))
        self.scroll_home(animate=False)

    def _syntax_theme(self) -> str:
        return "monokai" if self.app.current_theme.dark else "default"

    def _syntax(self, code: str, lexer: str) -> Syntax:
        background = self.app.theme_variables.get("background", "default")
        return Syntax(code, lexer, theme=self._syntax_theme(), word_wrap=True, background_color=background)

    def _parts(self, entry: Entry, facts: EntryFacts | None, message: Message | None) -> list[RenderableType]:
        parts: list[RenderableType] = []
        head = Text()
        head.append(message.role if message is not None else entry.type, style="bold")
        head.append(f"  {entry.id}", style="dim")
        if entry.timestamp:
            head.append(f"  {visible(str(entry.timestamp))}", style="dim")
        if entry.line:
            head.append(f"  line {entry.line}", style="dim")
        if facts is not None:
            head.append(f"  [{facts.zone}]", style="bold")
        parts.append(head)
        if message is not None and message.model:
            parts.append(
                Text(visible(f"model {message.provider + '/' if message.provider else ''}{message.model}"), style="dim")
            )
        if entry.type == "compaction" and entry.compaction is not None:
            record = entry.compaction
            parts.append(
                Text(
                    visible(
                        f"first kept entry {record.firstKeptEntryId or '— (whole history replaced)'} · tokens before {record.tokensBefore:,}"
                    ),
                    style="dim",
                )
            )
            parts.append(Rule(style="dim"))
            parts.append(plain_markdown(_clip(record.summary or "(empty summary)")))
        elif message is not None:
            parts.extend(self._message_parts(message))
        else:
            parts.append(Rule(style="dim"))
            parts.append(self._syntax(_clip(json.dumps(entry.raw, indent=2, ensure_ascii=False)), "json"))
        if facts is not None:
            parts.append(Rule("tokens", style="dim"))
            table = Table.grid(padding=(0, 2))
            table.add_column(style="dim")
            table.add_column(justify="right")
            for counter, value in facts.tokens.items():
                table.add_row(counter, "…" if value is None else f"{value:,}")
            parts.append(table)
        if message is not None and message.usage is not None:
            usage = message.usage
            parts.append(Rule("usage (recorded by the provider)", style="dim"))
            table = Table.grid(padding=(0, 2))
            table.add_column(style="dim")
            table.add_column(justify="right")
            for label, value in (
                ("input", usage.input),
                ("output", usage.output),
                ("cache read", usage.cacheRead),
                ("cache write", usage.cacheWrite),
                ("total", usage.totalTokens),
                ("prompt (input+cache)", usage.prompt_tokens),
            ):
                table.add_row(label, f"{value:,}")
            parts.append(table)
        return parts

    def _message_parts(self, message: Message) -> list[RenderableType]:
        parts: list[RenderableType] = []
        if message.role == "toolResult":
            parts.append(
                Text(
                    visible(f"result of {message.toolName or 'tool'} ({message.toolCallId or '?'})")
                    + ("  ERROR" if message.isError else ""),
                    style="bold red" if message.isError else "dim",
                )
            )
        if message.errorMessage:
            parts.append(Text(visible(f"error: {message.errorMessage}"), style="bold red"))
        if message.role == "bashExecution":
            parts.append(Rule(style="dim"))
            parts.append(Text(_clip(f"$ {message.command or ''}"), style="bold"))
            parts.append(Text(_clip(message.output or "")))
            if message.exitCode not in (None, 0):
                parts.append(Text(f"exit code {message.exitCode}", style="bold red"))
        if message.role in ("branchSummary", "compactionSummary") and message.summary:
            parts.append(Rule(style="dim"))
            parts.append(plain_markdown(_clip(message.summary)))
        lexer = _lexer_for(self.call_paths.get(message.toolCallId or ""), "")
        for block in message.content:
            parts.append(Rule(style="dim"))
            parts += self._block_parts(message, block, lexer)
        return parts

    def _arguments(self, arguments: object) -> list[RenderableType]:
        """A tool call's arguments: short values as `key: value`, multi-line text as text, an edit as a diff."""
        from cutline.app.widgets.tool_call import tool_call_pieces

        parts: list[RenderableType] = []
        for piece in tool_call_pieces(arguments):
            if piece.kind == "line":
                line = Text(visible(f"{piece.label}: "), style="bold")
                line.append(_clip(piece.body))
                parts.append(line)
                continue
            if piece.label:
                parts.append(Text(visible(f"{piece.label}:"), style="bold"))
            if piece.kind == "text":
                parts.append(Padding(Text(_clip(piece.body)), (0, 0, 0, 2)))
            else:
                parts.append(self._syntax(_clip(piece.body), "diff" if piece.kind == "diff" else "json"))
        return parts

    def _block_parts(self, message: Message, block: Block, lexer: str | None) -> list[RenderableType]:
        """One content block of a message: text (highlighted for tool output), thinking, a tool call, an image or a result."""
        parts: list[RenderableType] = []
        if isinstance(block, TextBlock):
            if message.role == "toolResult" and lexer:
                parts.append(self._syntax(_clip(block.text), lexer))
            elif message.role == "toolResult":
                parts.append(Text(_clip(block.text)))
            else:
                parts.append(plain_markdown(_clip(block.text)))
        elif isinstance(block, ThinkingBlock):
            parts.append(Text("thinking", style="bold magenta"))
            parts.append(Padding(Text(_clip(block.thinking), style="italic"), (0, 0, 0, 2)))
        elif isinstance(block, ToolCallBlock):
            parts.append(Text(visible(f"⚒ {block.name}  ({block.id})"), style="bold"))
            parts += self._arguments(block.arguments)
        elif isinstance(block, ImageBlock):
            parts.append(
                Text(
                    visible(f"▣ image {block.mimeType or ''} ({len(block.data):,} base64 characters)"),
                    style="bold cyan",
                )
            )
        elif isinstance(block, ToolResultBlock):
            parts.append(
                Text(
                    visible(f"↳ result of {block.toolCallId}") + ("  ERROR" if block.isError else ""),
                    style="bold red" if block.isError else "bold",
                )
            )
            for inner in block.content:
                if isinstance(inner, TextBlock):
                    parts.append(Text(_clip(inner.text)))
                else:
                    parts.append(Text(f"▣ image {inner.mimeType}", style="bold cyan"))
        return parts
