"""The proposal pane: summary, injected last-turn block, recovery turn, appended sections, rebuilt context, validation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from cutline.app.widgets.plain_markdown import plain_markdown
from cutline.app.widgets.safe_text import one_line, visible

if TYPE_CHECKING:
    from cutline.core.engine.compact import Proposal
    from cutline.core.models import Message

CONTEXT_ROWS_SHOWN = 300


class ProposalView(VerticalScroll):
    """Read-only view of a proposal; the summary shown is the latest version's text."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._body = Static(
            Text("No proposal yet. Press r to run a compaction with the current settings.", style="dim")
        )

    def compose(self) -> ComposeResult:
        yield self._body

    def show_progress(self, lines: list[str]) -> None:
        self._body.update(Text("\n".join(visible(line) for line in lines)))

    def show(self, proposal: Proposal | None, summary: str | None = None, status: str = "") -> None:
        if proposal is None:
            self._body.update(
                Text("No proposal yet. Press r to run a compaction with the current settings.", style="dim")
            )
            return
        self._body.update(Group(*self._parts(proposal, summary if summary is not None else proposal.summary, status)))

    def _parts(self, p: Proposal, summary: str, status: str) -> list[RenderableType]:
        parts: list[RenderableType] = []
        head = Text()
        head.append(f"proposal {p.id}", style="bold")
        if status:
            head.append(f"  [{status}]", style="bold")
        parts.append(head)
        facts = Text(style="dim")
        facts.append(visible(f"{p.mode} · {p.summarizer}{' / ' + p.model if p.model else ''} · prompt {p.prompt_name}"))
        facts.append(
            f"\n{p.tokensBefore:,} → {p.tokensAfter:,} tokens ({p.counter}) · summarized {p.summarizedCount:,} · kept {p.keptCount:,}"
        )
        facts.append(f" · first kept {p.firstKeptEntryId or '—'}")
        if p.degraded != "none":
            facts.append(f"\nfallback used: {p.degraded}", style="bold yellow")
        parts.append(facts)
        verdict = Text()
        if p.validation.ok:
            verdict.append("✓ valid: ", style="bold green")
            verdict.append("every tool result follows its call, no call lacks its result, roles in an accepted order")
        else:
            verdict.append("✗ invalid — cannot be accepted: ", style="bold red")
            verdict.append(visible(p.validation.summary()))
        parts.append(verdict)

        parts.append(Rule("summary", style="dim"))
        parts.append(plain_markdown(visible(summary) or "(empty)"))

        parts.append(Rule("injected last-turn block", style="dim"))
        if p.injected.last_turn:
            parts.append(Text(visible(p.injected.last_turn)))
        else:
            parts.append(Text("none — the last exchange stays in the kept part (or injection is off)", style="dim"))

        parts.append(Rule("recovery turn", style="dim"))
        if p.injected.recovery_turn:
            parts.append(Text(visible(p.injected.recovery_turn)))
        else:
            parts.append(Text("none (postCompaction off)", style="dim"))
        if p.injected.memory_flush is not None:
            parts.append(Rule("memory flush", style="dim"))
            parts.append(Text(visible(str(p.injected.memory_flush.model_dump()))))

        parts.append(Rule("appended sections", style="dim"))
        details = p.details
        appended = Text()
        appended.append(f"tool failures ({len(details.toolFailures)})\n", style="bold")
        for failure in details.toolFailures[:8]:
            appended.append(visible(f"  ✗ {failure.toolName}: {one_line(failure.summary, 160)}\n"))
        appended.append(f"read files ({len(details.readFiles)})\n", style="bold")
        for path in details.readFiles[:30]:
            appended.append(visible(f"  {path}\n"))
        appended.append(f"modified files ({len(details.modifiedFiles)})\n", style="bold")
        for path in details.modifiedFiles[:30]:
            appended.append(visible(f"  {path}\n"))
        parts.append(appended)

        parts.append(Rule(f"rebuilt context ({len(p.context)} messages, as the agent will see it)", style="dim"))
        table = context_table(p)
        parts.append(table)
        if len(p.context) > CONTEXT_ROWS_SHOWN:
            parts.append(Text(f"… {len(p.context) - CONTEXT_ROWS_SHOWN:,} more messages", style="dim"))
        if p.notes:
            parts.append(Rule("notes", style="dim"))
            parts.append(Text("\n".join(visible(n) for n in p.notes)))
        return parts


def context_table(p: Proposal) -> Table:
    """The rebuilt context, one message a row: index, role and source keep their width, content takes the rest."""
    table = Table(box=None, pad_edge=False, show_header=True, header_style="dim", expand=True)
    table.add_column("#", justify="right", style="dim", no_wrap=True, min_width=2)
    table.add_column("role", no_wrap=True, min_width=9, max_width=18)
    table.add_column("from", no_wrap=True, min_width=8, max_width=12, overflow="ellipsis")
    table.add_column("content", overflow="ellipsis", no_wrap=True, ratio=1)
    ids = p.context_entry_ids
    for i, message in enumerate(p.context[:CONTEXT_ROWS_SHOWN]):
        source = ids[i] if i < len(ids) and ids[i] else "new"
        table.add_row(str(i), message.role, Text(visible(source or "")), Text(one_line(message_line(message), 200)))
    return table


def message_line(message: Message) -> str:
    """What a message says in one line; a message of tool calls only names its calls."""
    text = message.text() or ""
    if text.strip():
        return text
    calls = message.tool_calls()
    if calls:
        return " · ".join(f"⚒ {call.name} {_arguments(call.arguments)}".rstrip() for call in calls)
    return "(empty)"


def _arguments(arguments: object) -> str:
    if isinstance(arguments, dict):
        return " ".join(str(v) for v in arguments.values() if isinstance(v, str | int | float))
    return ""
