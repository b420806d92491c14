"""The offline summarizer: fills pi's checkpoint sections with what the conversation said, verbatim.

No model and no network: user requests and rules, files touched, tool failures,
decisions and identifiers are picked out by the rules of `core.facts` and laid out in
pi's structured format. When the text would exceed the token budget (chars / 4), whole
items are dropped, lowest priority first (oldest first among equals), so nothing is ever
cut inside an identifier. The same request always gives the same text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from cutline.core.facts import (
    Fact,
    content_words,
    error_text,
    message_facts,
    normalize_sentence,
    normalize_text,
    sentences,
    summary_facts,
)
from cutline.core.models import Message, TextBlock, ToolCallBlock, ToolResultBlock
from cutline.core.summarizers.base import Summarizer, SummaryRequest

# ---------------------------------------------------------------------------
# Layouts: pi's checkpoint sections and its turn-prefix sections
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Section:
    key: str
    heading: str
    bullet: str  # "" for plain lines, "1." for a numbered list


CHECKPOINT_LAYOUT: tuple[_Section, ...] = (
    _Section("goal", "## Goal", "- "),
    _Section("constraints", "## Constraints & Preferences", "- "),
    _Section("done", "## Progress\n### Done", "- [x] "),
    _Section("in_progress", "### In Progress", "- [ ] "),
    _Section("blocked", "### Blocked", "- "),
    _Section("decisions", "## Key Decisions", "- "),
    _Section("next", "## Next Steps", "1."),
    _Section("context", "## Critical Context", "- "),
)

TURN_PREFIX_LAYOUT: tuple[_Section, ...] = (
    _Section("goal", "## Original Request", ""),
    _Section("done", "## Early Progress", "- "),
    _Section("context", "## Context for Suffix", "- "),
)

PLACEHOLDER = "(none)"

# Priorities: higher survives a tight budget longer.
P_FOCUS = 110
P_LATEST_REQUEST = 100
P_FIRST_REQUEST = 95
P_CONSTRAINT = 90
P_NEXT = 88
P_BLOCKED = 80
P_MODIFIED = 75
P_REQUEST = 70
P_DONE = 65
P_DECISION = 60
P_USER_IDENTIFIER = 55
P_IDENTIFIER = 50
P_READ = 45
P_CONTEXT = 45
P_RESOLVED_FAILURE = 40
FOCUS_BOOST = 25

# Sections of an existing summary and where their items go when it is updated or merged.
_HEADING_KEYS: tuple[tuple[str, str | None], ...] = (
    ("last exchange", None),
    ("original request", "goal"),
    ("goal", "goal"),
    ("constraint", "constraints"),
    ("preference", "constraints"),
    ("early progress", "done"),
    ("in progress", "in_progress"),
    ("done", "done"),
    ("blocked", "blocked"),
    ("decision", "decisions"),
    ("next step", "next"),
    ("progress", "done"),
    ("context", "context"),
    ("tool failure", "context"),
)
_SECTION_PRIORITY = {
    "goal": P_REQUEST + 10,
    "constraints": P_CONSTRAINT,
    "done": P_DONE,
    "in_progress": P_LATEST_REQUEST - 5,
    "blocked": P_BLOCKED,
    "decisions": P_DECISION,
    "next": P_NEXT,
    "context": P_CONTEXT,
}

_READ_TOOLS = frozenset({"read", "view", "cat", "read_file", "notebookread"})
_WRITE_TOOLS = frozenset({"write", "create", "write_file", "create_file"})
_EDIT_TOOLS = frozenset({"edit", "multiedit", "str_replace", "str_replace_editor", "apply_patch", "notebookedit"})
_PATH_KEYS = ("path", "file_path", "filepath", "notebook_path", "file")
_COMMAND_KEYS = ("command", "cmd")
_MAX_LATEST_REQUEST_CHARS = 600
# a decision in the last assistant message that speaks of the future is a next step
_PLAN = re.compile(
    r"\b(i'll|i will|we'll|we will|i'm going to|i am going to|next|then|plan is|plan to)\b", re.IGNORECASE
)
_MAX_ARG_CHARS = 160
_MAX_RESOLVE_STEPS = 3
# a later user message without a request adds its first sentence to the goal only if it says this much
_MIN_GOAL_WORDS = 3
# a user's condition or permission is a rule too, though core.facts' instruction words miss
# some ("inside-IR35 roles are allowed if the rate is £600 or more")
_CONDITION = re.compile(
    r"\b(allowed|permitted|acceptable|only if|unless|as long as|provided that|at least|at most|no more than|"
    r"no less than|up to|or more|or less|must|mustn't|must not|not allowed)\b",
    re.IGNORECASE,
)


@dataclass
class _Item:
    section: str
    text: str
    priority: int
    seq: int


def focus_words(text: str) -> set[str]:
    """Content words with names split at - _ . / so `payment-gateway` matches "payment gateway"."""
    return content_words(re.sub(r"[-_./]", " ", text))


class _Collector:
    """Items in arrival order, deduplicated per section by normalized text."""

    def __init__(self, focus_words: set[str]) -> None:
        self.items: list[_Item] = []
        self._seen: dict[tuple[str, str], _Item] = {}
        self._focus = focus_words

    def add(self, section: str, text: str, priority: int, *, boost: bool = True) -> None:
        text = text.strip()
        if text.endswith("\u2026") and " " in text:
            # a sentence clipped by core.facts: end at a word boundary so no identifier is cut
            text = text[:-1].rsplit(None, 1)[0] + " \u2026"
        key = normalize_sentence(text)
        if not text or not key or key == normalize_sentence(PLACEHOLDER):
            return
        if boost and self._focus and self._focus & focus_words(text):
            priority += FOCUS_BOOST
        existing = self._seen.get((section, key))
        if existing is not None:
            existing.priority = max(existing.priority, priority)
            return
        item = _Item(section, text, priority, len(self.items))
        self._seen[(section, key)] = item
        self.items.append(item)

    def texts(self, section: str) -> list[str]:
        return [i.text for i in self.items if i.section == section]


# ---------------------------------------------------------------------------
# Reading messages
# ---------------------------------------------------------------------------


def _own_text(message: Message) -> str:
    return "\n".join(b.text for b in message.content if isinstance(b, TextBlock))


def _arguments(call: ToolCallBlock) -> dict[str, Any]:
    args = call.arguments
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return {"command": args}
    return args if isinstance(args, dict) else {}


def _call_path(call: ToolCallBlock) -> str | None:
    args = _arguments(call)
    for key in _PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip() and "\n" not in value:
            return value.strip()
    return None


def _call_label(call: ToolCallBlock) -> str:
    """`name` plus its path or command when short enough to show whole."""
    args = _arguments(call)
    target = _call_path(call)
    if target is None:
        for key in _COMMAND_KEYS:
            value = args.get(key)
            if isinstance(value, str) and value.strip():
                target = value.strip()
                break
    if target and len(target) <= _MAX_ARG_CHARS and "\n" not in target:
        return f"`{call.name}` `{target}`"
    return f"`{call.name}`"


def _call_target(call: ToolCallBlock) -> str:
    """What a call acts on: its path, else the program its command runs (env assignments skipped).

    Why: a failing `pytest -v | tail` is resolved by a later passing `pytest -q`, and a
    failed edit of a file by a later successful edit of the same file.
    """
    path = _call_path(call)
    if path is not None:
        return f"{call.name}\x00{path}"
    args = _arguments(call)
    for key in _COMMAND_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            words = [w for w in value.split() if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=\S*", w)]
            return f"{call.name}\x00{words[0] if words else value.strip()}"
    return f"{call.name}\x00{json.dumps(args, sort_keys=True, default=str)}"


def _result_text(blocks: Sequence[object]) -> str:
    return "\n".join(b.text for b in blocks if isinstance(b, TextBlock))


@dataclass
class _ToolOutcome:
    call: ToolCallBlock
    failed: bool
    error: str
    seq: int


def _tool_outcomes(messages: list[Message]) -> list[_ToolOutcome]:
    """Each answered tool call with whether it failed, in the order the results came."""
    calls: dict[str, ToolCallBlock] = {}
    outcomes: list[_ToolOutcome] = []
    for message in messages:
        for call in message.tool_calls():
            if call.id:
                calls[call.id] = call
        results: list[tuple[str, bool, str]] = []
        if message.role == "toolResult" and message.toolCallId:
            results.append((message.toolCallId, message.isError, _result_text(message.content)))
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                results.append((block.toolCallId, block.isError, _result_text(block.content)))
        for call_id, failed, text in results:
            answered = calls.get(call_id)
            if answered is None:
                answered = ToolCallBlock(id=call_id, name=message.toolName or "tool", arguments={})
            outcomes.append(_ToolOutcome(answered, failed, error_text(text) if failed else "", len(outcomes)))
    return outcomes


def _user_messages(messages: list[Message]) -> list[str]:
    """Texts the user typed (tool results carried in user records excluded)."""
    return [text for m in messages if m.role == "user" and (text := _own_text(m).strip())]


def _requests_only(text: str) -> list[str]:
    """The request sentences of a later user message, else its first sentence unless it is a mere reply ("Nice.")."""
    requests = [
        f.text for f in message_facts(Message(role="user", content=[TextBlock(text=text)])) if f.kind == "request"
    ]
    if requests:
        return requests
    first = sentences(text)[:1]
    return first if first and len(content_words(first[0])) >= _MIN_GOAL_WORDS else []


def _request_items(text: str) -> list[str]:
    """The request sentences of one user message; its first sentence when none reads as a request."""
    requests = _requests_only(text)
    if requests:
        return requests
    first = sentences(text)
    return first[:1]


def _latest_request(text: str) -> list[str]:
    """The last user message whole (whitespace collapsed) when short, else its request sentences."""
    if len(text) <= _MAX_LATEST_REQUEST_CHARS and "```" not in text:
        return [re.sub(r"\s+", " ", text).strip()]
    return _request_items(text)


def _conditions(text: str) -> list[str]:
    """The sentences of a user message that state a condition or permission: rules, not requests."""
    return [sentence for sentence in sentences(text) if _CONDITION.search(sentence)]


def _latest_work(text: str) -> list[str]:
    """The last user message as work in progress: its condition sentences left out (they are rules), unless that is all it says."""
    rules = set(_conditions(text))
    if not rules:
        return _latest_request(text)
    rest = " ".join(sentence for sentence in sentences(text) if sentence not in rules)
    return _latest_request(rest) if rest.strip() else _latest_request(text)


# ---------------------------------------------------------------------------
# Building items
# ---------------------------------------------------------------------------


_IDENTIFIER_LABELS = {
    "path": "Path",
    "url": "URL",
    "hex": "Id",
    "number": "Number",
    "host_port": "Address",
    "email": "E-mail",
    "name": "Name",
}


def _collect_requests(users: list[str], out: _Collector, *, turn_prefix: bool) -> None:
    """The first request, the later ones (not the last, unless a turn prefix), and the latest work in progress."""
    for index, text in enumerate(users):
        if index == 0:
            for request in _latest_request(text):
                out.add("goal", request, P_FIRST_REQUEST)
        elif turn_prefix or index < len(users) - 1:
            for request in _requests_only(text):
                out.add("goal", request, P_REQUEST + min(index, 9))
    if users and not turn_prefix:
        for request in _latest_work(users[-1]):
            out.add("in_progress", request, P_LATEST_REQUEST)


def _gather_facts(messages: list[Message]) -> tuple[list[Fact], dict[str, str]]:
    """Every fact of the messages (earlier summaries' too, user conditions as rules), and who named each identifier first."""
    facts: list[Fact] = []
    identifier_roles: dict[str, str] = {}
    # the instruction keys gathered so far, kept as facts arrive (rebuilding it per user message was quadratic)
    ruled: set[str] = set()

    def add(fact: Fact) -> None:
        facts.append(fact)
        if fact.kind == "instruction":
            ruled.add(fact.key)

    for message in messages:
        if message.role in ("branchSummary", "compactionSummary"):
            for fact in summary_facts(message.summary or ""):
                add(fact)
            continue
        for fact in message_facts(message):
            add(fact)
            if fact.kind == "identifier":
                identifier_roles.setdefault(fact.key, message.role)
        if message.role == "user":
            for rule in _conditions(_own_text(message)):
                if normalize_sentence(rule) not in ruled:
                    add(Fact(kind="instruction", text=rule, key=normalize_sentence(rule)))
    return facts, identifier_roles


def _plan_keys(last_assistant: Message | None, *, turn_prefix: bool) -> set[str]:
    """The decisions of the last assistant message that announce what comes next."""
    if last_assistant is None or turn_prefix:
        return set()
    return {f.key for f in message_facts(last_assistant) if f.kind == "decision" and _PLAN.search(f.text)}


def _collect_rules_and_decisions(facts: list[Fact], plans: set[str], out: _Collector, *, turn_prefix: bool) -> None:
    constraints_key = "context" if turn_prefix else "constraints"
    for fact in facts:
        if fact.kind == "instruction":
            out.add(constraints_key, fact.text, P_CONSTRAINT)
        elif fact.kind == "decision" and fact.key not in plans:
            out.add("done" if turn_prefix else "decisions", fact.text, P_DECISION)


def _touched_files(messages: list[Message]) -> tuple[list[str], list[str]]:
    """The files the tool calls modified and read, each once, in the order first touched."""
    modified: dict[str, None] = {}
    read: dict[str, None] = {}
    for message in messages:
        for call in message.tool_calls():
            path = _call_path(call)
            name = call.name.lower()
            if path is None:
                continue
            if name in _WRITE_TOOLS or name in _EDIT_TOOLS:
                modified.setdefault(path)
            elif name in _READ_TOOLS:
                read.setdefault(path)
    return list(modified), list(read)


def _collect_files(messages: list[Message], out: _Collector) -> None:
    modified, read = _touched_files(messages)
    for path in modified:
        out.add("done", f"Modified `{path}`", P_MODIFIED)
    written = set(modified)
    for path in read:
        if path not in written:
            out.add("context", f"Read `{path}`", P_READ)


def _split_failures(outcomes: list[_ToolOutcome]) -> tuple[list[_ToolOutcome], list[_ToolOutcome]]:
    """Failed calls never followed by a success on the same target, and those that were; both in result order."""
    later_success: set[str] = set()
    unresolved: list[_ToolOutcome] = []
    resolved: list[_ToolOutcome] = []
    for outcome in reversed(outcomes):
        key = _call_target(outcome.call)
        if outcome.failed:
            (resolved if key in later_success else unresolved).append(outcome)
        else:
            later_success.add(key)
    return sorted(unresolved, key=lambda o: o.seq), sorted(resolved, key=lambda o: o.seq)


def _failure_lines(messages: list[Message]) -> list[tuple[str, str]]:
    """Failed shell runs, assistant errors and errors the user reported, as (kind, line): kind "blocked" or "reported"."""
    lines: list[tuple[str, str]] = []
    for message in messages:
        if message.role == "bashExecution" and message.exitCode not in (None, 0):
            lines.append(("blocked", f"`{message.command}` exited with code {message.exitCode}"))
        if message.role == "assistant" and message.stopReason == "error" and message.errorMessage:
            lines.append(("blocked", f"Assistant error: {error_text(message.errorMessage)}"))
        if message.role == "user":
            lines.extend(
                ("reported", f"Error the user reported: {fact.text}")
                for fact in message_facts(message)
                if fact.kind == "error"
            )
    return lines


def _collect_failures(
    messages: list[Message],
    unresolved: list[_ToolOutcome],
    resolved: list[_ToolOutcome],
    out: _Collector,
    *,
    turn_prefix: bool,
) -> None:
    blocked = "context" if turn_prefix else "blocked"
    for outcome in unresolved:
        label = _call_label(outcome.call)
        out.add(blocked, f"{label} failed: {outcome.error}" if outcome.error else f"{label} failed", P_BLOCKED)
    for outcome in resolved:
        line = f"{_call_label(outcome.call)} failed, later succeeded: {outcome.error}".rstrip(": ")
        out.add("context", line, P_RESOLVED_FAILURE)
    for kind, line in _failure_lines(messages):
        out.add(blocked if kind == "blocked" else "context", line, P_BLOCKED)


def _collect_next(
    last_assistant: Message | None, plans: set[str], unresolved: list[_ToolOutcome], out: _Collector
) -> None:
    """What the assistant said it would do next, then the unresolved failures to resolve."""
    if last_assistant is not None:
        for fact in message_facts(last_assistant):
            if fact.key in plans:
                out.add("next", fact.text, P_NEXT)
    for outcome in unresolved[-_MAX_RESOLVE_STEPS:]:
        out.add("next", f"Resolve the failure of {_call_label(outcome.call)}", P_NEXT - 2)


def _collect_identifiers(facts: list[Fact], identifier_roles: dict[str, str], out: _Collector) -> None:
    """Identifiers no item shows yet; those the user named rank higher."""
    shown = " \n ".join(normalize_text(i.text) for i in out.items)
    listed: set[str] = set()
    for fact in facts:
        if fact.kind != "identifier" or fact.key in shown or fact.key in listed:
            continue
        listed.add(fact.key)
        priority = P_USER_IDENTIFIER if identifier_roles.get(fact.key) == "user" else P_IDENTIFIER
        label = _IDENTIFIER_LABELS.get(fact.identifier_kind or "", "Identifier")
        out.add("context", f"{label}: `{fact.text}`" if "`" not in fact.text else f"{label}: {fact.text}", priority)


def _collect_history(messages: list[Message], out: _Collector, *, turn_prefix: bool = False) -> None:
    """Items for a conversation: requests, rules, files, failures, decisions, identifiers."""
    _collect_requests(_user_messages(messages), out, turn_prefix=turn_prefix)
    facts, identifier_roles = _gather_facts(messages)
    last_assistant = next((m for m in reversed(messages) if m.role == "assistant" and _own_text(m).strip()), None)
    plans = _plan_keys(last_assistant, turn_prefix=turn_prefix)
    _collect_rules_and_decisions(facts, plans, out, turn_prefix=turn_prefix)
    _collect_files(messages, out)
    unresolved, resolved = _split_failures(_tool_outcomes(messages))
    _collect_failures(messages, unresolved, resolved, out, turn_prefix=turn_prefix)
    if not turn_prefix:
        _collect_next(last_assistant, plans, unresolved, out)
    _collect_identifiers(facts, identifier_roles, out)


def _section_for_heading(title: str) -> str | None:
    lowered = title.lower()
    for needle, key in _HEADING_KEYS:
        if needle in lowered:
            return key
    return "context"


_BULLET = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\[[ xX]\]\s*)?")


def parse_summary(summary: str) -> list[tuple[str, str]]:
    """(section key, item text) pairs of a structured summary, in order.

    Heading names map onto pi's sections; `<read-files>` / `<modified-files>` blocks,
    placeholders, separators and the stale `Last Exchange` section are left out (the
    engine recomputes them).
    """
    items: list[tuple[str, str]] = []
    section: str | None = "context"
    in_file_block = False
    for raw in summary.splitlines():
        line = raw.strip()
        if not line:
            continue
        if re.fullmatch(r"</?(read-files|modified-files)>", line):
            in_file_block = line.startswith("<") and not line.startswith("</")
            continue
        if in_file_block or line == "---" or line.startswith("```"):
            continue
        heading = re.match(r"^#{1,6}\s+(.+?)\s*$", line) or re.match(r"^\*\*(.+?):?\*\*:?$", line)
        if heading:
            section = _section_for_heading(heading.group(1))
            continue
        if section is None:
            continue
        body = _BULLET.sub("", line, count=1).strip()
        if body and normalize_sentence(body) != normalize_sentence(PLACEHOLDER):
            items.append((section, body))
    return items


def _collect_summary(summary: str, out: _Collector, *, finished: bool) -> None:
    """Items of an earlier summary; with `finished`, its in-progress work counts as done."""
    for heading, text in parse_summary(summary):
        if finished and heading == "next":
            continue
        section = "done" if finished and heading == "in_progress" else heading
        out.add(section, text, _SECTION_PRIORITY.get(section, P_CONTEXT))


# ---------------------------------------------------------------------------
# Rendering within the budget
# ---------------------------------------------------------------------------


def _render(layout: tuple[_Section, ...], items: list[_Item]) -> str:
    blocks: list[str] = []
    for section in layout:
        texts = [i.text for i in items if i.section == section.key]
        lines = [section.heading]
        if not texts:
            texts_out = [f"- {PLACEHOLDER}" if section.bullet else PLACEHOLDER]
        elif section.bullet == "1.":
            texts_out = [f"{n}. {t}" for n, t in enumerate(texts, 1)]
        else:
            texts_out = [f"{section.bullet}{t}" for t in texts]
        lines.extend(texts_out)
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def render_within(layout: tuple[_Section, ...], items: list[_Item], max_chars: int) -> str:
    """The sections with as many items as fit in `max_chars`, dropping lowest priority (then oldest) first."""
    in_layout = [i for i in items if any(s.key == i.section for s in layout)]
    drop_order = sorted(in_layout, key=lambda i: (i.priority, i.seq))

    def text_without(count: int) -> str:
        dropped = {id(i) for i in drop_order[:count]}
        return _render(layout, [i for i in in_layout if id(i) not in dropped])

    if len(text_without(0)) <= max_chars:
        return text_without(0)
    low, high = 0, len(drop_order)
    while low < high:
        mid = (low + high) // 2
        if len(text_without(mid)) <= max_chars:
            high = mid
        else:
            low = mid + 1
    return text_without(low)


# ---------------------------------------------------------------------------
# The summarizer
# ---------------------------------------------------------------------------


class ExtractiveSummarizer(Summarizer):
    """Deterministic, offline summaries in pi's format from the messages themselves."""

    name = "extractive"
    model = None

    async def summarize(self, request: SummaryRequest) -> str:
        return summarize_extractive(request)


def summarize_extractive(request: SummaryRequest) -> str:
    """The extractive summary for any request kind (history, update, turn_prefix, merge)."""
    if request.prompt_name == OPENCLAW_SAFEGUARD_PROMPT:
        return summarize_openclaw_layout(request)
    focus = (request.custom_instructions or "").strip()
    out = _Collector(focus_words(focus))
    layout = CHECKPOINT_LAYOUT
    if request.kind == "turn_prefix":
        layout = TURN_PREFIX_LAYOUT
        _collect_history(request.messages, out, turn_prefix=True)
    elif request.kind == "merge":
        parts = [p for p in request.partial_summaries if p.strip()]
        if request.previous_summary:
            parts.insert(0, request.previous_summary)
        for index, part in enumerate(parts):
            _collect_summary(part, out, finished=index < len(parts) - 1 and _has_progress(parts[index + 1 :]))
        if request.messages:
            _collect_history(request.messages, out)
    else:
        if request.previous_summary:
            new_work = bool(_user_messages(request.messages))
            _collect_summary(request.previous_summary, out, finished=new_work)
        _collect_history(request.messages, out)
    if focus:
        out.add("context", "Focus requested: " + " ".join(focus.split()), P_FOCUS, boost=False)
    return render_within(layout, out.items, max(request.max_tokens, 1) * 4)


def _has_progress(later_parts: list[str]) -> bool:
    """Whether a later partial summary has in-progress work or requests (so earlier work is done)."""
    return any(section in ("in_progress", "goal") for part in later_parts for section, _ in parse_summary(part))


# ---------------------------------------------------------------------------
# OpenClaw 2026.9's safeguard layout
# ---------------------------------------------------------------------------

# the request's prompt_name that asks for OpenClaw's five required sections
OPENCLAW_SAFEGUARD_PROMPT = "openclaw-safeguard"

OPENCLAW_LAYOUT: tuple[_Section, ...] = (
    _Section("oc_decisions", "## Decisions", "- "),
    _Section("oc_todos", "## Open TODOs", "- "),
    _Section("oc_rules", "## Constraints/Rules", "- "),
    _Section("oc_asks", "## Pending user asks", "- "),
    _Section("oc_identifiers", "## Exact identifiers", "- "),
)

# where each of pi's checkpoint sections goes in OpenClaw's layout
_TO_OPENCLAW = {
    "decisions": "oc_decisions",
    "done": "oc_decisions",
    "goal": "oc_todos",
    "next": "oc_todos",
    "blocked": "oc_todos",
    "constraints": "oc_rules",
    "in_progress": "oc_asks",
    "context": "oc_identifiers",
}


def summarize_openclaw_layout(request: SummaryRequest) -> str:
    """The same items in OpenClaw 2026.9's five required sections, so its quality guard passes offline.

    The custom instructions are OpenClaw's identifier and /compact texts, not a topic to
    favour; the previous summary is re-distilled with the new messages.
    """
    out = _Collector(focus_words(""))
    if request.previous_summary:
        _collect_summary(request.previous_summary, out, finished=True)
    _collect_history(request.messages, out, turn_prefix=request.kind == "turn_prefix")
    items = [replace(item, section=_TO_OPENCLAW.get(item.section, "oc_identifiers")) for item in out.items]
    return render_within(OPENCLAW_LAYOUT, items, max(request.max_tokens, 1) * 4)
