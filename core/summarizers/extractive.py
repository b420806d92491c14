"""The offline summarizer: a summary an agent can continue from, with no model and no network.

One pass over the span (`session_state`) finds the task the user set, their latest
ask, the rules still in force (a later rule on the same subject replaces the earlier),
decisions, TODOs, the files touched and what happened to each, the failures still open
at the end (searches that found nothing and user aborts are not failures), what was
under way and the assistant's last stated plan. Acknowledgements, slash commands,
pasted output and the text agent programs inject into user turns are recognised and
left out (`user_text`). A previous summary is read back as whole items by section
(`earlier_summary`) and merged: its facts kept, updated by the new messages.

The text takes the shape the user's agent writes (`layouts`): pi's checkpoint, Claude
Code's nine sections, Codex's handoff, OpenClaw's five sections. It is kept short —
about what a model writes for the same span, and never longer than what it replaces.
The same request always gives the same text; the work is linear in the span.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Sequence

from cutline.core.models import Message
from cutline.core.summarizers import cues
from cutline.core.summarizers.base import Summarizer, SummaryRequest
from cutline.core.summarizers.earlier_summary import PLACEHOLDER, parse_items
from cutline.core.summarizers.layouts import OPENCLAW, Item, Layout, layout_for, render_within
from cutline.core.summarizers.opening_shape import content_words
from cutline.core.summarizers.sentence_function import on_topic, path_words
from cutline.core.summarizers.session_state import (
    MAX_LATEST_ASK_CHARS,
    SpanMessage,
    SpanState,
    clip,
    read_span,
    short_ask,
)
from cutline.core.summarizers.user_text import read_user_text

# the request's prompt_name that asks for OpenClaw's five required sections
OPENCLAW_SAFEGUARD_PROMPT = "openclaw-safeguard"

# Priorities: higher survives a tight budget longer.
P_LATEST = 100
P_GOAL = 98  # above the rules: the task outlasts them when space runs out (a span of 40 rules filled the budget and dropped the goal)
P_CONSTRAINT = 96
P_IN_PROGRESS = 85
P_BLOCKED = 82
P_NEXT = 80
P_TODO = 78
P_DECISION = 72
P_MODIFIED = 66
P_DONE = 60
P_EARLIER = 55  # an earlier summary's items that are not rules, goals or decisions
P_IDENTIFIER = 50
P_NAMES = 64
P_READ = 45
P_ASKS = 35
P_FIXED = 30
P_RESOLVE = 62
P_STATEMENT = 52
P_FIXES = 58
P_LEARNT = 94  # a constraint the assistant read from a failure still open
P_MEASURE = 57
P_ROLE = 56  # a file read whose role the assistant explained
P_FOCUS = 110

MAX_DONE_ASKS = 5
MAX_FILES = 15
MAX_IDENTIFIERS = 12
MAX_CODE_NAMES = 6
IDENTIFIER_MESSAGES = 10
# the length a model writes for a span, about: a third of the span, between these bounds
MIN_TARGET_CHARS = 1_200
MAX_TARGET_CHARS = 6_000

_EARLIER_PRIORITY = {
    "goal": P_GOAL - 1,
    "constraints": P_CONSTRAINT - 1,
    "decisions": P_DECISION - 1,
    "blocked": P_BLOCKED - 4,
    "next": P_NEXT - 10,
    "in_progress": P_IN_PROGRESS - 4,
    "done": P_DONE - 1,
    "files": P_MODIFIED - 2,
}


class _Items:
    """Items in arrival order, each text once per section."""

    def __init__(self) -> None:
        self.items: list[Item] = []
        self._seen: dict[tuple[str, str], Item] = {}

    def add(self, section: str, text: str, priority: int) -> None:
        text = text.strip()
        key = cues.words_of(text).strip()
        if not text or not key or key == "none":
            return
        seen = self._seen.get((section, key))
        if seen is not None:
            seen.priority = max(seen.priority, priority)
            return
        item = Item(section, text, priority, len(self.items))
        self._seen[(section, key)] = item
        self.items.append(item)


def latest_ask_text(text: str) -> str:
    """The latest ask verbatim (whitespace collapsed); a long one cut at a word boundary."""
    return clip(text, MAX_LATEST_ASK_CHARS)


def _earlier(items: _Items, summaries: list[str], *, moved_on: bool, stale_next: bool = False) -> None:
    """An earlier summary's items; once the user moved on, its in-progress work is done.

    Its next steps stay (pending tasks are facts) unless a later part of a merge took them over (`stale_next`).
    """
    for summary in summaries:
        for section, text in parse_items(summary):
            if stale_next and section == "next":
                continue
            if moved_on and section == "in_progress":
                section = "done"
            if (
                section in ("done", "in_progress", "context", "goal")
                and cues.is_strong_rule(cues.words_of(text))
                and "\n" not in text
            ):
                section = "constraints"
            items.add(section, text, _EARLIER_PRIORITY.get(section, P_EARLIER))


def _from_state(items: _Items, state: SpanState, *, turn_prefix: bool, has_goal: bool) -> None:
    if state.first_ask and not has_goal:
        only_ask = cues.words_of(state.first_ask) == cues.words_of(state.latest_ask)
        # the one ask of a short span is the latest ask already: its goal line goes first when space is short
        items.add("goal", short_ask(state.first_ask), P_DONE if only_ask else P_GOAL)
    asks = list(state.asks)
    finished = bool(state.latest_ask) and state.latest_done and not turn_prefix
    if finished:
        # a final answer ended its turn: finished, not what is under way (on a split turn that is in the prefix)
        items.add("done", latest_ask_text(state.latest_ask), P_LATEST)
    elif state.latest_ask:
        items.add("latest", latest_ask_text(state.latest_ask), P_LATEST)
    for ask in asks[:-1][-MAX_DONE_ASKS:]:
        if ask != state.first_ask or has_goal:
            items.add("done", short_ask(ask, 160), P_DONE)
    for ask in asks[-8:]:
        items.add("asks", short_ask(ask, 200), P_ASKS)
    _stated(items, state)
    _work(items, state, turn_prefix=turn_prefix, finished=finished)


def _stated(items: _Items, state: SpanState) -> None:
    """Rules, decisions, fixes, the user's statements of fact and TODOs."""
    for rule in state.rules:
        items.add("constraints", rule.text, P_CONSTRAINT)
    decisions = list(state.decisions.values())
    for text in decisions:
        # a sentence of a longer decision already listed (an answer's conclusion and its reason) goes once
        if not any(text != other and text in other for other in decisions):
            items.add("decisions", clip(text), P_DECISION)
    for text in state.fixes.values():
        items.add("done", clip(text), P_FIXES)
    if state.statements:
        # a statement that shares no word with the work (asks, rules, files, code names) is small talk
        topic = content_words(" ".join([*state.asks, *(rule.text for rule in state.rules)]))
        topic |= path_words(state.files) | content_words(" ".join(state.names.top(MAX_CODE_NAMES)))
        for text in state.statements.values():
            if text not in state.latest_ask and on_topic(text, topic):  # the latest ask is there verbatim
                items.add("context", clip(text), P_STATEMENT)
    for text in state.todos.values():
        items.add("todo", clip(text), P_TODO)
    for target, text in state.learnt.items():
        if target in state.failures:  # a failure later fixed was a bug, not a constraint
            items.add("constraints", text, P_LEARNT)
    for label, text in state.measures.items():
        items.add("done", f"{label}: {text}", P_MEASURE)


def _work(items: _Items, state: SpanState, *, turn_prefix: bool, finished: bool) -> None:
    """What was done last, the failures open and fixed, the plan and next steps, the files."""
    activity = list(state.activity)
    if activity and not finished:  # once the last ask is finished its actions are history (its files are listed)
        items.add("in_progress", "Last actions: " + "; ".join(activity), P_IN_PROGRESS)
    for failure in state.open_failures:
        line = f"{failure.label} failed: {failure.error}" if failure.error else f"{failure.label} failed"
        items.add("blocked", line, P_BLOCKED)
    for failure in state.resolved.values():
        items.add("fixed", f"{failure.label} failed ({failure.error}), later succeeded", P_FIXED)
    for step in state.plan:
        items.add("next", step, P_NEXT)
    if not turn_prefix and not state.plan:
        for failure in state.open_failures[-2:]:
            if failure.turn == state.turn:
                items.add("next", f"Resolve the failure of {failure.label}", P_RESOLVE)
        if state.latest_ask and state.at_cut in ("asked", "working"):  # cut before its turn ended
            items.add("next", short_ask(state.latest_ask, 200), P_RESOLVE + 1)
    names = state.names.top(MAX_CODE_NAMES)
    if names:
        items.add("names", "Code names worked on: " + ", ".join(f"`{name}`" for name in names), P_NAMES)
    files = heapq.nsmallest(MAX_FILES, state.files.values(), key=lambda f: (not f.modified, -f.order))
    for record in files:
        items.add("files", record.describe(), P_MODIFIED if record.modified else P_ROLE if record.role else P_READ)


# exact strings an agent must not paraphrase: code quotes, URLs, paths, hashes and ids
_EXACT = re.compile(
    r"`([^`\n]{2,80})`|(https?://[^\s)>\]]+)|((?:[\w.-]+/)+[\w.-]+\.\w+)|\b([0-9a-f]{7,40}|[0-9a-f]{8}-[0-9a-f-]{27})\b"
)


def find_identifiers(text: str) -> list[str]:
    """Exact identifiers in a text, in order: code quotes, URLs, file paths, commit hashes and UUIDs."""
    found: list[str] = []
    for match in _EXACT.finditer(text):
        value = next(group for group in match.groups() if group)
        if not (value.isalpha() and match.group(4)):  # a hex-looking word ("deadbeef" aside) needs a digit
            found.append(value.rstrip(".,;:"))
    return found


def _identifiers(items: _Items, messages: Sequence[Message]) -> None:
    """Exact identifiers of the last messages (those OpenClaw's guard protects)."""
    seen: set[str] = set()
    for message in messages[-IDENTIFIER_MESSAGES:]:
        for value in find_identifiers(message.text()):
            if value not in seen and len(seen) < MAX_IDENTIFIERS:
                seen.add(value)
                items.add("identifiers", f"`{value}`" if "`" not in value else value, P_IDENTIFIER)


def budget(request: SummaryRequest, replaced_chars: int) -> int:
    """The most characters the summary may take: about a model's length, never more than what it replaces."""
    target = min(max(replaced_chars // 3, MIN_TARGET_CHARS), MAX_TARGET_CHARS)
    if replaced_chars > 0:
        target = min(target, replaced_chars - 1)
    return min(target, max(request.max_tokens, 1) * 4)


def _walk_once(messages: Sequence[Message]) -> Iterable[SpanMessage]:
    """The messages for one reading of their values: a span's light walk where it has one (core.engine.span.MessageSpan.read_light)."""
    read_light = getattr(messages, "read_light", None)
    walk: Iterable[SpanMessage] = read_light() if callable(read_light) else messages
    return walk


def summarize_extractive(request: SummaryRequest) -> str:
    """The extractive summary for any request kind (history, update, turn_prefix, merge)."""
    layout: Layout = layout_for(request.prompt_name, request.kind)
    turn_prefix = request.kind == "turn_prefix"
    state = read_span(_walk_once(request.messages))
    items = _Items()
    earlier: list[str] = []
    if request.previous_summary:
        earlier.append(request.previous_summary)
    earlier.extend(p for p in request.partial_summaries if p.strip())
    earlier.extend(state.summaries)
    replaced = state.replaced_chars + sum(len(s) for s in earlier if s not in state.summaries)
    if request.kind == "merge" and request.partial_summaries:
        parts = [request.previous_summary or "", *request.partial_summaries]
        parts = [p for p in parts if p.strip()]
        for index, part in enumerate(parts):
            later = index < len(parts) - 1
            _earlier(items, [part], moved_on=later, stale_next=later)
        earlier = list(state.summaries)
    _earlier(items, earlier, moved_on=bool(state.ask_count))
    _from_state(
        items,
        state,
        turn_prefix=turn_prefix,
        has_goal=any(i.section == "goal" for i in items.items),
    )
    if layout is OPENCLAW:
        _identifiers(items, request.messages)
    focus = " ".join((request.custom_instructions or "").split())
    if focus and layout is not OPENCLAW:
        items.add("context", "Focus requested: " + focus, P_FOCUS)
    return render_within(layout, items.items, budget(request, replaced))


def name_turn_under_way(history: str, prompt_name: str, prefix: Sequence[Message]) -> str:
    """A split turn's history summary, written offline: an empty section of what is under way names the turn's ask.

    pi summarizes the history before a split turn and the turn's prefix apart; the history part ends with a
    finished turn, so on its own it says nothing is under way while the prefix's summary, joined after it, holds
    the ask. The engine calls this on the offline history summary with the prefix's messages."""
    ask = ""
    for message in prefix:
        if message.role == "user":
            read = read_user_text(message.text())
            if read.kind == "ask":
                ask = read.typed
            break
    if not ask:
        return history
    for section in layout_for(prompt_name, "history").sections:
        if "latest" not in section.keys:
            continue
        empty = f"{section.heading}\n{section.indent}- {PLACEHOLDER}" if section.bullet else ""
        marker = "1. " if section.bullet == "1." else section.bullet
        line = f"{section.indent}{marker}{short_ask(ask, 200)} (split turn: its start is in the turn context below)"
        if empty and empty in history:
            return history.replace(empty, f"{section.heading}\n{line}", 1)
    return history


def parse_summary(summary: str) -> list[tuple[str, str]]:
    """(section key, item text) pairs of a structured summary, in order (an item keeps its continuation lines)."""
    return [(section, re.sub(r"\s*\n\s*", " ", text)) for section, text in parse_items(summary)]


class ExtractiveSummarizer(Summarizer):
    """Deterministic, offline summaries in the agent's own format from the messages themselves."""

    name = "extractive"
    model = None
    reads_text = False  # it reads the messages themselves

    async def summarize(self, request: SummaryRequest) -> str:
        return summarize_extractive(request)
