"""The proposal pane: summary, injected last-turn block, recovery turn, memory flush, appended sections, rebuilt context, validation, quality guard."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from cutline.app.widgets.labels import plural
from cutline.app.widgets.plain_markdown import plain_markdown
from cutline.app.widgets.safe_text import one_line, visible

if TYPE_CHECKING:
    from cutline.core.engine.compact import Proposal
    from cutline.core.engine.quality_guard import QualityVerdict
    from cutline.core.models import Message

CONTEXT_ROWS_SHOWN = 300


# the sections a person jumps between, in the order shown: (widget id, rule title)
SECTIONS: tuple[tuple[str, str], ...] = (
    ("summary", "summary"),
    ("injected", "injected last-turn block"),
    ("recovery", "recovery turn"),
    ("memory-flush", "memory flush"),
    ("appended", "appended sections"),
    ("context", "rebuilt context"),
    ("validation", "validation"),
    ("quality", "quality guard"),
    ("notes", "notes"),
)
NO_PROPOSAL = "No proposal yet. Press r to run a compaction with the current settings."


class ProposalView(VerticalScroll):
    """Read-only view of a proposal in sections one can jump between; the summary shown is the latest version's text."""

    DEFAULT_CSS = """
    ProposalView > .proposal-section { height: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._body = Static(Text(NO_PROPOSAL, style="dim"), id="proposal-head")
        self._sections = {key: Static("", id=f"section-{key}", classes="proposal-section") for key, _ in SECTIONS}
        for section in self._sections.values():
            section.display = False
        self._jumped: str | None = None  # the section the last jump scrolled to

    def compose(self) -> ComposeResult:
        yield self._body
        yield from self._sections.values()

    def _hide_sections(self) -> None:
        for section in self._sections.values():
            section.display = False

    def show_progress(self, lines: list[str]) -> None:
        self._hide_sections()
        self._body.update(Text("\n".join(visible(line) for line in lines)))

    def show(self, proposal: Proposal | None, summary: str | None = None, status: str = "") -> None:
        if proposal is None:
            self._hide_sections()
            self._body.update(Text(NO_PROPOSAL, style="dim"))
            return
        text = summary if summary is not None else proposal.summary
        guard = shown_guard(proposal, text)
        self._body.update(Group(*_head(proposal, status, guard)))
        parts = _sections(proposal, text, guard)
        for key, title in SECTIONS:
            section = self._sections[key]
            body = parts.get(key)
            section.display = body is not None
            if body is not None:
                section.update(Group(Rule(_titles(proposal).get(key, title), style="dim"), body))

    # -- jumping between sections -------------------------------------------

    def shown_sections(self) -> list[str]:
        """The keys of the sections on view, in order."""
        return [key for key, _ in SECTIONS if self._sections[key].display]

    def _start(self, key: str) -> int:
        return self._sections[key].virtual_region.y

    def _current_index(self, shown: list[str]) -> int:
        """The index in `shown` of the section being read (-1 above the first).

        That is the section the last jump went to while the pane stays where the jump left
        it (the last sections are too short to reach the top: the pane stops at its end),
        else the last section starting at or above the top.
        """
        top = round(self.scroll_y)
        if self._jumped in shown and top == min(self._start(self._jumped), round(self.max_scroll_y)):
            return shown.index(self._jumped)
        return max((i for i, key in enumerate(shown) if self._start(key) <= top), default=-1)

    def current_section(self) -> str | None:
        """The key of the section being read, None above the first."""
        shown = self.shown_sections()
        index = self._current_index(shown)
        return shown[index] if index >= 0 else None

    def jump(self, delta: int) -> str | None:
        """Scroll the next (`delta` 1) or previous (-1) section to the top; its title, or None when there is none."""
        shown = self.shown_sections()
        index = self._current_index(shown)
        if (
            delta < 0
            and index >= 0
            and self._jumped != shown[index]
            and self._start(shown[index]) < round(self.scroll_y)
        ):
            target = index  # inside a section: back to its start first
        else:
            target = index + (1 if delta > 0 else -1)
        if not 0 <= target < len(shown):
            return None
        self._jumped = shown[target]
        self.scroll_to(y=self._start(self._jumped), animate=False, immediate=True)
        return dict(SECTIONS)[self._jumped]


def _titles(p: Proposal) -> dict[str, str]:
    return {"context": f"rebuilt context ({len(p.context)} messages, as the agent will see it)"}


def shown_guard(p: Proposal, summary: str) -> QualityVerdict | None:
    """The quality guard's verdict on the summary shown (an edit may fix or break what the run's summary did)."""
    verdict = p.quality
    if verdict is None or summary == p.summary:
        return verdict
    from cutline.core.engine.quality_guard import verdict_for

    return verdict_for(
        summary, verdict.inputs, attempts=verdict.attempts, enforced=verdict.enforced, strict=verdict.strict
    )


def _head(p: Proposal, status: str, guard: QualityVerdict | None) -> list[RenderableType]:
    """The proposal's id and status, a failed guard, the run's figures and the validity verdict."""
    parts: list[RenderableType] = []
    head = Text()
    head.append(f"proposal {p.id}", style="bold")
    if status:
        head.append(f"  [{status}]", style="bold")
    parts.append(head)
    if guard is not None and not guard.ok:
        # said at the top, above "✓ valid", not only in the quality guard section eight sections below
        from cutline.core.audit.before_accept import guard_words

        reasons = guard_words(guard)
        failed = Text()
        failed.append("✗ quality guard failed: ", style="bold red")
        failed.append(visible(reasons[0] if reasons else guard.summary()))
        if len(reasons) > 1:
            failed.append(f" (+{len(reasons) - 1} more)")
        failed.append(" · } to its section", style="dim")
        parts.append(failed)
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
    return parts


def _sections(p: Proposal, summary: str, guard: QualityVerdict | None) -> dict[str, RenderableType]:
    """Each section's body by key; a section the proposal does not have is left out."""
    parts: dict[str, RenderableType] = {"summary": plain_markdown(visible(summary) or "(empty)")}
    if p.injected.last_turn:
        parts["injected"] = Text(visible(p.injected.last_turn))
    else:
        parts["injected"] = Text("none — the last exchange stays in the kept part (or injection is off)", style="dim")
    if p.injected.recovery_turn:
        parts["recovery"] = Text(visible(p.injected.recovery_turn))
    else:
        parts["recovery"] = Text("none (postCompaction off)", style="dim")
    if p.injected.memory_flush is not None:
        parts["memory-flush"] = _memory_flush(p.injected.memory_flush.prompt, p.injected.memory_flush.system_prompt)
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
    parts["appended"] = appended
    context: list[RenderableType] = [context_table(p)]
    if len(p.context) > CONTEXT_ROWS_SHOWN:
        context.append(Text(f"… {len(p.context) - CONTEXT_ROWS_SHOWN:,} more messages", style="dim"))
    parts["context"] = Group(*context)
    parts["validation"] = _validation(p, guard)
    if guard is not None:
        parts["quality"] = _quality(guard)
    if p.notes:
        parts["notes"] = Text("\n".join(visible(n) for n in p.notes))
    return parts


def _memory_flush(prompt: str, system_prompt: str) -> Text:
    """The flush turn as a person reads it: each prompt under its name, its lines as written (not a Python dict)."""
    text = Text()
    text.append("prompt (the user turn)\n", style="bold")
    text.append(visible(prompt.strip() or "(empty)"))
    text.append("\n\nadded to the system prompt\n", style="bold")
    text.append(visible(system_prompt.strip() or "(empty)"))
    return text


def _validation(p: Proposal, guard: QualityVerdict | None) -> Text:
    text = Text()
    if p.validation.ok:
        text.append("✓ valid", style="bold green")
        text.append(": the rebuilt context is one the API accepts")
        if guard is not None and not guard.ok:
            text.append(" — but the summary fails the quality guard (next section)", style="bold red")
        return text
    text.append(f"✗ {plural(len(p.validation.problems), 'problem', 'problems')}", style="bold red")
    for problem in p.validation.problems:
        text.append(visible(f"\n  {problem.code}: {problem}"))
    return text


def _quality(verdict: QualityVerdict) -> Text:
    text = Text()
    text.append("✓ " if verdict.ok else "✗ ", style="bold green" if verdict.ok else "bold red")
    text.append(visible(verdict.summary()))
    if not verdict.ok:
        from cutline.core.audit.before_accept import guard_words

        for line in guard_words(verdict):
            text.append(visible(f"\n  · {line}"))
        text.append("\nto fix: edit the summary (e), or accept anyway", style="italic")
    mode = "enforced (regenerates on failure)" if verdict.enforced else "advisory"
    text.append(f"\n{mode}{', strict' if verdict.strict else ''} · {plural(verdict.attempts, 'attempt', 'attempts')}")
    inputs = verdict.inputs
    if inputs.requiredSections:
        text.append(visible("\nsections asked: " + ", ".join(inputs.requiredSections)), style="dim")
    if inputs.identifiers:
        text.append(visible("\nidentifiers to keep: " + ", ".join(inputs.identifiers[:20])), style="dim")
    ask = inputs.latestUnresolvedRequest or inputs.latestUserAsk
    if ask:
        text.append(visible("\nlatest ask: " + one_line(ask, 200)), style="dim")
    return text


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
