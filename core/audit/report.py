"""What a compaction lost, and why: lost facts by kind, retention scores, warnings and the reason the cut fell where it did.

Works the same way for compactions already in a transcript and for proposals made
here: the entries in the agent's context before the compaction that are not in it
afterwards are the summarized part; their facts are checked against what the agent
still sees (the summary with any injected block, the kept messages, extra turns).
"""

from __future__ import annotations

import difflib
import json
import re
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Literal

from pydantic import BaseModel, Field

from cutline.core.agents.index_facts import PI_CURRENT_SIGN
from cutline.core.agents.path_window import PathWindow
from cutline.core.audit.compare import FactView, Passages, judge, passages
from cutline.core.audit.light_models import as_entry
from cutline.core.audit.quality import quality_of
from cutline.core.audit.verdicts import (
    IMPORTANT_WEIGHT,
    AuditFact,
    ConversationScan,
    mark_recovered,
    weighted_retention,
)
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compact import Proposal
from cutline.core.engine.context import build_context, context_indices, entry_message, sum_context_tokens
from cutline.core.engine.last_turn import SECTION_HEADING, message_text
from cutline.core.engine.modes import PI_FAMILY, get_mode
from cutline.core.engine.plan import CompactionPlan, PathIndex, index_path, plan
from cutline.core.engine.quality_guard import QualityVerdict, identifiers_of
from cutline.core.engine.rules.choice import OPENCLAW, PI_073, PI_CURRENT, Writer, canonical, written_by
from cutline.core.engine.validation import ContextProblem, validate_context
from cutline.core.errors import CutlineError, NotFoundError
from cutline.core.facts import (
    FACT_KINDS,
    Fact,
    FactKind,
    message_facts,
    normalize_text,
)
from cutline.core.models import Entry, Message, Session, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from cutline.core.releases.pi_0_73.decide import find_cut_point
from cutline.core.store.memory import no_cyclic_gc
from cutline.core.tokens import least_squares, path_tokens, stored_calls, stored_sample_rows, usage_samples

USAGE_RATIO_WARNING = 1.2
# the upper bound of a keepRecentTokens range that has none (the walk never reaches the value)
OPEN_END = 10**9
_PAIR_CODES = frozenset({"orphan-result", "duplicate-result", "result-after-text", "missing-result"})

WarningCode = Literal[
    "last-exchange-summarized",
    "latest-request-not-visible",
    "broken-tool-pairs",
    "invalid-context",
    "usage-exceeds-estimate",
    "tool-failures-vanished",
    "previous-summary-dropped",
    "first-kept-missing",
]


class KindRetention(BaseModel):
    """How many facts of one kind are still visible."""

    kind: FactKind
    kept: int
    total: int

    @property
    def lost(self) -> int:
        return self.total - self.kept

    @property
    def score(self) -> float | None:
        """kept / total, None when there was nothing of this kind."""
        return self.kept / self.total if self.total else None


class AuditWarning(BaseModel):
    """Something that likely made the agent lose its place; `recovered` says whether an injected block saved it."""

    code: WarningCode
    message: str
    entry_ids: list[str] = Field(default_factory=list)
    recovered: bool | None = None


class CutExplanation(BaseModel):
    """Why the cut fell where it did: sentences for a person and the figures behind them."""

    text: str
    steps: list[str] = Field(default_factory=list)
    keep_recent_tokens: int | None = None
    reproduced: bool | None = None
    reproducing_ranges: list[tuple[int, int]] = Field(default_factory=list)
    context_window: int | None = None
    reserve_tokens: int | None = None
    threshold: int | None = None
    tokens_before_recorded: int | None = None
    tokens_before_estimate: int | None = None
    summarized_tokens: int | None = None
    kept_tokens: int | None = None
    crossing_entry_id: str | None = None
    cut_entry_id: str | None = None
    is_split_turn: bool | None = None
    # the planner rule set the cut was re-planned with, and why that one (core.engine.rules.choice.written_by)
    rules: str | None = None
    rules_reason: str | None = None
    # when no reasonable keepRecentTokens reproduces the cut under `rules`: the rule set that does (or None)
    other_rules: str | None = None
    other_rules_ranges: list[tuple[int, int]] = Field(default_factory=list)


class AuditReport(BaseModel):
    """The audit of one compaction or proposal."""

    session_id: str
    target: Literal["compaction", "proposal"]
    target_id: str
    format: str
    summary: str
    first_kept_entry_id: str | None = None
    summarized_entry_ids: list[str] = Field(default_factory=list)
    kept_entry_ids: list[str] = Field(default_factory=list)
    tokens_before: int | None = None
    tokens_after: int | None = None
    counter: str = "chars4"
    facts: list[AuditFact] = Field(default_factory=list)
    retention: list[KindRetention] = Field(default_factory=list)
    warnings: list[AuditWarning] = Field(default_factory=list)
    why: CutExplanation
    # OpenClaw 2026.9's quality guard on the summary (sections asked of OpenClaw sessions only)
    quality: QualityVerdict | None = None

    @property
    def lost(self) -> list[AuditFact]:
        """Facts the agent no longer sees or now sees stated otherwise: contradicted first, then in order."""
        return sorted((f for f in self.facts if not f.retained), key=lambda f: f.verdict != "contradicted")

    @property
    def contradicted(self) -> list[AuditFact]:
        return [f for f in self.lost if f.verdict == "contradicted"]

    @property
    def reworded(self) -> list[AuditFact]:
        return [f for f in self.facts if f.verdict == "reworded" and not f.superseded]

    @property
    def weighted_retention(self) -> float:
        """Retention weighted by importance: kept 1, reworded 0.9, lost 0, contradicted -0.5 (floored at 0)."""
        return weighted_retention(self.facts)

    def important_losses(self, minimum: float = IMPORTANT_WEIGHT) -> list[AuditFact]:
        """Contradicted facts, then lost facts of weight `minimum` or more (not those read again later)."""
        return [f for f in self.lost if f.verdict == "contradicted" or (f.weight >= minimum and not f.recovered)]

    def lost_by_kind(self) -> dict[str, list[AuditFact]]:
        """Lost facts grouped by kind, in the fixed kind order (kinds with none left out), contradicted first."""
        groups: dict[str, list[AuditFact]] = {}
        for kind in FACT_KINDS:
            items = [f for f in self.lost if f.kind == kind]
            if items:
                groups[kind] = items
        return groups

    def retention_of(self, kind: str) -> KindRetention:
        return next(r for r in self.retention if r.kind == kind)

    def warning(self, code: str) -> AuditWarning | None:
        return next((w for w in self.warnings if w.code == code), None)

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON: lost facts, retention per kind, warnings and the why-explanation."""
        return {
            "session": self.session_id,
            "target": self.target,
            "id": self.target_id,
            "format": self.format,
            "firstKeptEntryId": self.first_kept_entry_id,
            "summarizedEntries": len(self.summarized_entry_ids),
            "keptEntries": len(self.kept_entry_ids),
            "tokensBefore": self.tokens_before,
            "tokensAfter": self.tokens_after,
            "counter": self.counter,
            "rules": self.why.rules,
            "rulesReason": self.why.rules_reason,
            "retention": {
                r.kind: {"kept": r.kept, "total": r.total, "score": None if r.score is None else round(r.score, 3)}
                for r in self.retention
            },
            "weightedRetention": round(self.weighted_retention, 3),
            "lost": [_fact_json(f) for f in self.lost],
            "reworded": [_fact_json(f) for f in self.reworded],
            "warnings": [w.model_dump(exclude_none=True) for w in self.warnings],
            "why": {
                **self.why.model_dump(exclude_none=True),
                # an open-ended range ("this value or more") ends in null
                "reproducing_ranges": [[lo, hi if hi < OPEN_END else None] for lo, hi in self.why.reproducing_ranges],
                "other_rules_ranges": [[lo, hi if hi < OPEN_END else None] for lo, hi in self.why.other_rules_ranges],
            },
        }


def _fact_json(f: AuditFact) -> dict[str, Any]:
    return {
        "kind": f.kind,
        "verdict": f.verdict,
        "text": f.text,
        "sourceEntryId": f.source_entry_id,
        "weight": f.weight,
        **({"closest": f.closest} if f.closest and f.verdict != "lost" else {}),
        **({"reason": f.reason} if f.reason else {}),
        **({"recovered": True} if f.recovered else {}),
        **({"identifierKind": f.identifier_kind} if f.identifier_kind else {}),
        **({"origin": f.origin} if f.origin != "conversation" else {}),
    }


# ---------------------------------------------------------------------------
# What the agent sees
# ---------------------------------------------------------------------------


def visible_text(message: Message) -> str:
    """Everything of a message the model reads: text, thinking, tool calls with arguments, tool results, summaries."""
    parts: list[str] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif isinstance(block, ThinkingBlock):
            parts.append(block.thinking)
        elif isinstance(block, ToolCallBlock):
            args = (
                block.arguments if isinstance(block.arguments, str) else json.dumps(block.arguments, ensure_ascii=False)
            )
            parts.append(f"{block.name} {args}")
        elif isinstance(block, ToolResultBlock):
            parts.extend(b.text for b in block.content if isinstance(b, TextBlock))
    if message.summary:
        parts.append(message.summary)
    if message.role == "bashExecution":
        parts.append(f"{message.command or ''}\n{message.output or ''}")
    return "\n".join(p for p in parts if p)


def _strings(value: Any) -> list[str]:
    """Every string inside a JSON value (used for Codex replacement histories)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def path_to(session: Session, entry_id: str) -> list[Entry]:
    """Entries from the root to `entry_id` (following parents, so it works off the active branch too)."""
    path = session.path_to(entry_id)
    if not path:
        raise NotFoundError(f"no entry {entry_id!r} in session {session.id}")
    return path


def latest_compaction_id(session: Session) -> str:
    """The newest compaction on the active path, else the newest anywhere in the session."""
    for entry in reversed(session.active_path()):
        if entry.type == "compaction":
            return entry.id
    compactions = session.compactions()
    if not compactions:
        raise NotFoundError(f"session {session.id} holds no compaction (audit a proposal with --proposal)")
    return compactions[-1].id


# ---------------------------------------------------------------------------
# The shared audit
# ---------------------------------------------------------------------------


@dataclass
class _Cut:
    """One compaction seen as before/after: the path before it (a list, or a `PathWindow`) and the context after it."""

    path: Sequence[Entry]
    after: list[Message]
    after_ids: list[str | None]
    summary: str
    extra_visible: list[str] = field(default_factory=list)
    # entries after the compaction on the active path (a lost path read again there is recovered)
    later: list[Entry] = field(default_factory=list)


def _retention(facts: list[AuditFact]) -> list[KindRetention]:
    return [
        KindRetention(
            kind=kind,
            kept=sum(1 for f in facts if f.kind == kind and f.retained),
            total=sum(1 for f in facts if f.kind == kind),
        )
        for kind in FACT_KINDS
    ]


def _is_user_turn(entry: Entry) -> bool:
    """A user message a person typed (Claude Code tool-result carriers and meta records are not)."""
    message = entry.message
    if entry.type != "message" or message is None or message.role != "user" or entry.isMeta or entry.isCompactSummary:
        return False
    if any(isinstance(b, ToolResultBlock) for b in message.content):
        return False
    return bool(message_text(message).strip())


_AUTOMATED = re.compile(r"^\s*(\[[A-Za-z][\w .:/-]{0,40}\]|<[a-z][\w-]*[\s>])")


def is_automated(entry: Entry) -> bool:
    """A user-role message a program wrote (subagent announcements "[subagent report] …", "<system-reminder>" blocks).

    Why: the root cause of a displaced last exchange is many such messages arriving
    near the cut and filling the kept window; they are not the person's last turn.
    """
    return entry.message is not None and bool(_AUTOMATED.match(message_text(entry.message)))


def _clip(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _injected_section(summary: str) -> str:
    at = summary.find(SECTION_HEADING)
    return summary[at:] if at >= 0 else ""


@dataclass(frozen=True)
class _Recovery:
    """How a summarized user message still reaches the agent, if it does."""

    injected: bool  # re-injected verbatim under the last-exchange heading
    replayed: bool  # kept verbatim in the replacement history
    quoted: bool  # quoted by the summary

    def describe(self) -> str:
        if self.injected:
            return "it was re-injected verbatim under \u201c## Last Exchange (Verbatim)\u201d"
        if self.replayed:
            return "its user message is kept verbatim in the replacement history"
        if self.quoted:
            return "it was not re-injected (the summary quotes the user message, not the exchange)"
        return "it was not re-injected"


def _recovery(cut: _Cut, user_text: str) -> _Recovery:
    probe = normalize_text(user_text)[:160]
    section = _injected_section(cut.summary)
    return _Recovery(
        injected=bool(section) and probe in normalize_text(section),
        replayed=bool(probe) and any(probe in normalize_text(text) for text in cut.extra_visible),
        quoted=bool(probe) and probe in normalize_text(cut.summary),
    )


def _answer_after(path: Sequence[Entry], before: list[int], last_user: int) -> str | None:
    """The id of the first assistant message answering the user turn.

    Only entries after the turn are read: on a lazy window each read rebuilds an entry
    (a Claude Code session's audit read ~22,000 it did not need at 50,000 records).
    """
    for i in before:
        if i <= last_user:
            continue
        message = path[i].message
        if message is not None and message.role == "assistant":
            return path[i].id
    return None


def _exchange_summarized_text(entry_id: str, user_text: str, automated_after: int, recovery: _Recovery) -> str:
    text = (
        f"the last user\u2194assistant exchange (user message {entry_id}: \u201c{_clip(user_text, 80)}\u201d) "
        "fell into the summarized part"
    )
    if automated_after:
        plural = "s" if automated_after != 1 else ""
        text += f" while {automated_after} automated user message{plural} after it stayed in the kept window"
    return f"{text}; {recovery.describe()}"


def _requests_of(entry: Entry, message: Message, user_text: str) -> list[Fact]:
    """The requests and instructions of a user message; the message itself (clipped) when none are found."""
    requests = [f for f in message_facts(message, entry.id) if f.kind in ("request", "instruction")]
    if requests:
        return requests
    clipped = _clip(user_text, 300)
    return [Fact(kind="request", text=clipped, key=normalize_text(clipped), source_entry_id=entry.id)]


def _request_not_visible_warning(
    entry: Entry, message: Message, user_text: str, visible: Passages
) -> AuditWarning | None:
    judged = [
        (f, judge(FactView(f.text, f.kind, open_task=True), visible)) for f in _requests_of(entry, message, user_text)
    ]
    missing = [(f, j) for f, j in judged if j.verdict in ("lost", "contradicted")]
    if not missing:
        return None
    contradicted = [(f, j) for f, j in missing if j.verdict == "contradicted"]
    if contradicted:
        f, j = contradicted[0]
        text = (
            f"the summary states the latest user request otherwise ({j.reason}): "
            f"\u201c{_clip(f.text)}\u201d vs \u201c{_clip(j.closest)}\u201d"
        )
    else:
        text = "the latest user request is not in what the agent still sees: " + "; ".join(
            f"\u201c{_clip(f.text)}\u201d" for f, _ in missing[:3]
        )
    return AuditWarning(code="latest-request-not-visible", message=text, entry_ids=[entry.id], recovered=False)


def _last_exchange_warnings(
    cut: _Cut, before: list[int], summarized_ids: set[str], visible: Passages, turns: tuple[int | None, list[int]]
) -> list[AuditWarning]:
    """Whether the person's last exchange fell into the summary, and whether their latest request is still seen.

    `turns` is the last user turn a person typed (else the last user turn at all) and every user turn (`_Read`).
    """
    path = cut.path
    last_user, users = turns
    if last_user is None:
        return []
    entry = path[last_user]
    message = entry.message
    if message is None or entry.id not in summarized_ids:
        return []
    ids = _ids(path)
    automated_after = sum(1 for i in users if i > last_user and ids[i] not in summarized_ids)
    user_text = message_text(message)
    recovery = _recovery(cut, user_text)
    answer = _answer_after(path, before, last_user)
    summarized = AuditWarning(
        code="last-exchange-summarized",
        message=_exchange_summarized_text(entry.id, user_text, automated_after, recovery),
        entry_ids=[entry.id] + ([answer] if answer else []),
        recovered=recovery.injected or recovery.replayed,
    )
    unseen = _request_not_visible_warning(entry, message, user_text, visible)
    return [summarized] + ([unseen] if unseen is not None else [])


def _usage_warning(cut: _Cut, tokens: list[int], whole_history: bool) -> AuditWarning | None:
    """Warn when the recorded usage grows clearly faster than the chars4 estimate of the same context.

    Why a fit: usage also counts the system prompt and tool schemas, which are not in
    the transcript; with three or more responses the slope of usage against the
    estimate separates that fixed overhead from the per-token under-count. With fewer,
    the plain ratio of the last response is used.
    """
    path = cut.path
    if isinstance(path, PathWindow):
        samples = _window_samples(path, tokens)
    else:
        samples = [(s.estimate, s.real, s.entryId) for s in usage_samples(list(path), tokens) if s.estimate > 0]
    if not samples:
        return None
    last_estimate, last_real, last_id = samples[-1]
    fitted = least_squares([(estimate, real) for estimate, real, _ in samples])
    if fitted is not None and fitted[0] > 0:
        ratio, overhead = fitted
        how = (
            f"recorded usage grows {ratio:.2f} tokens per chars4 token over {len(samples)} responses "
            f"(fixed overhead \u2248 {max(0, round(overhead)):,} tokens for system prompt and tools; last: "
            f"{last_real:,} recorded vs {last_estimate:,} estimated)"
        )
    else:
        ratio = last_real / last_estimate
        how = f"recorded usage {last_real:,} tokens vs chars4 estimate {last_estimate:,} for the same context ({ratio:.2f}x)"
    if ratio <= USAGE_RATIO_WARNING:
        return None
    effect = (
        "the summary replaced a context larger than estimated"
        if whole_history
        else "the keepRecentTokens walk and the budget ran on estimates"
    )
    return AuditWarning(
        code="usage-exceeds-estimate",
        message=f"{how}: {effect} about {(1 - 1 / ratio) * 100:.0f}% too low",
        entry_ids=[last_id],
    )


@dataclass(frozen=True)
class _Target:
    """What is audited: a compaction entry or a proposal, with its recorded figures."""

    kind: Literal["compaction", "proposal"]
    id: str
    first_kept: str | None
    tokens_before: int | None
    tokens_after: int | None
    counter: str = "chars4"


@dataclass(frozen=True)
class _Split:
    """Which context entries before the cut were summarized away (the rest stayed visible)."""

    before: list[int]  # path indices of the context before the compaction
    summarized: list[int]
    summarized_ids: list[str]


def _window_samples(window: PathWindow, tokens: list[int]) -> list[tuple[int, int, str]]:
    """`usage_samples` of a window's whole path as (estimate, real, entry id), those with an estimate above 0.

    From the stored facts (`stored_sample_rows`: no context_edit is on a window's path).
    """
    rows = stored_sample_rows(window.ids, window.kinds, stored_calls(window.facts), tokens)
    return [row for row in rows if row[0] > 0]


def _ids(path: Sequence[Entry]) -> Sequence[str]:
    """The entry ids of a path, by position (a window's stored ones: no entry read)."""
    return path.ids if isinstance(path, PathWindow) else [e.id for e in path]


def _split(cut: _Cut) -> _Split:
    """The context before the cut and the part of it the agent no longer sees."""
    path = cut.path
    before = path.context_indices() if isinstance(path, PathWindow) else context_indices(list(path))
    after_set = {i for i in cut.after_ids if i is not None}
    ids = _ids(path)
    summarized = [i for i in before if ids[i] not in after_set]
    return _Split(before=before, summarized=summarized, summarized_ids=[ids[i] for i in summarized])


# entries read at once by the audit's walk over the summarized part (as `MessageSpan` reads a summary's)
_BLOCK = 512


def _blocks(path: Sequence[Entry], positions: list[int]) -> Iterator[tuple[list[int], list[Entry]]]:
    """The entries at these path positions (ascending), `_BLOCK` at a time with their positions; a window's not kept.

    A window's messages are read light (`PathWindow.read_light`: msgspec, only the positions
    asked for) and put into models without a second validation (`light_models.as_entry`);
    a block out of path order (a compacted path's context begins with its compaction, then
    the kept entries before it) is read as before (`read_unkept`).
    """
    for at in range(0, len(positions), _BLOCK):
        chunk = positions[at : at + _BLOCK]
        if not isinstance(path, PathWindow):
            yield chunk, [path[i] for i in chunk]
        elif all(a < b for a, b in pairwise(chunk)):
            yield chunk, [as_entry(entry) for entry in path.read_light(chunk)]
        else:
            yield chunk, path.read_unkept(chunk)


@dataclass
class _Read:
    """What one walk over the context before the cut gives the audit."""

    verdicts: list[AuditFact]
    seen: Passages
    turns: tuple[int | None, list[int]]  # the last user turn a person typed (else the last at all), every user turn
    identifiers: list[str]  # the quality guard's inputs (`quality_of`)
    latest_ask: str | None


def _read_cut(session: Session, cut: _Cut, split: _Split) -> _Read:
    """Every fact of the summarized conversation and of earlier summaries, judged against what stays visible.

    The summarized part is read once, a block at a time (`ConversationScan`), and the rest of the
    context before the cut (the kept part) for its user turns: on a window nothing read is kept.
    """
    path = cut.path
    seen = passages([visible_text(m) for m in cut.after] + cut.extra_visible, session.cwd)
    scan = ConversationScan(seen)
    previous: list[tuple[str, str]] = []
    automated: dict[int, bool] = {}  # path position of each user turn -> whether a program wrote it
    for chunk, entries in _blocks(path, split.summarized):
        for i, entry in zip(chunk, entries, strict=True):
            if entry.type == "compaction":
                if entry.compaction is not None:
                    previous.append((entry.id, entry.compaction.summary))
                continue
            scan.add(entry, entry_message(entry))
            if _is_user_turn(entry):
                automated[i] = is_automated(entry)
    summarized = set(split.summarized)
    for chunk, entries in _blocks(path, [i for i in split.before if i not in summarized]):
        for i, entry in zip(chunk, entries, strict=True):
            if _is_user_turn(entry):
                automated[i] = is_automated(entry)
    users = [i for i in split.before if i in automated]
    people = [i for i in users if not automated[i]]
    last_user = people[-1] if people else users[-1] if users else None
    latest = _ids(path)[last_user] if last_user is not None else None
    verdicts = mark_recovered(scan.judge(previous, latest), cut.later)
    return _Read(verdicts, seen, (last_user, users), identifiers_of(list(scan.last_messages)), scan.latest_ask)


def _context_warnings(cut: _Cut) -> list[AuditWarning]:
    """Broken tool pairs and other reasons the rebuilt context would be refused."""
    problems = validate_context(cut.after, cut.after_ids).problems
    groups: list[tuple[WarningCode, list[ContextProblem], str]] = [
        (
            "broken-tool-pairs",
            [p for p in problems if p.code in _PAIR_CODES],
            "broken tool pairs in the rebuilt context",
        ),
        ("invalid-context", [p for p in problems if p.code not in _PAIR_CODES], "the rebuilt context would be refused"),
    ]
    return [
        AuditWarning(
            code=code,
            message=f"{what}: " + _clip("; ".join(str(p) for p in group), 300),
            entry_ids=[p.entry_id for p in group if p.entry_id],
        )
        for code, group, what in groups
        if group
    ]


def _lost_errors_warning(verdicts: list[AuditFact]) -> AuditWarning | None:
    """Errors of the conversation that nothing visible mentions any more (one copied without what it led to,
    `without-answer`, is still mentioned)."""
    lost = [
        f
        for f in verdicts
        if f.kind == "error" and not f.retained and f.origin == "conversation" and f.rule != "without-answer"
    ]
    if not lost:
        return None
    return AuditWarning(
        code="tool-failures-vanished",
        message=f"{len(lost)} error{'s' if len(lost) != 1 else ''} vanished from what the agent sees, e.g. \u201c{_clip(lost[0].text)}\u201d",
        entry_ids=[f.source_entry_id for f in lost if f.source_entry_id],
    )


def _dropped_summary_warning(verdicts: list[AuditFact]) -> AuditWarning | None:
    """Facts of the previous summary the update no longer carries."""
    dropped = [f for f in verdicts if f.origin == "previous_summary" and not f.retained]
    if not dropped:
        return None
    total = sum(1 for f in verdicts if f.origin == "previous_summary")
    return AuditWarning(
        code="previous-summary-dropped",
        message=(
            f"the update dropped {len(dropped)} of {total} facts of the previous summary, e.g. "
            f"\u201c{_clip(dropped[0].text)}\u201d"
        ),
        entry_ids=sorted({f.source_entry_id for f in dropped if f.source_entry_id}),
    )


def _first_kept_missing_warning(target: _Target, path: Sequence[Entry]) -> AuditWarning | None:
    """A compaction whose first kept entry is not on the path keeps nothing verbatim."""
    first_kept = target.first_kept
    if target.kind != "compaction" or first_kept is None:
        return None
    if first_kept in path.ids if isinstance(path, PathWindow) else any(e.id == first_kept for e in path):
        return None
    return AuditWarning(
        code="first-kept-missing",
        message=f"firstKeptEntryId {first_kept} is not on the path before the compaction: the agent keeps nothing verbatim",
        entry_ids=[],
    )


def _audit(
    session: Session,
    cut: _Cut,
    target: _Target,
    why: CutExplanation,
    tokens: list[int] | None = None,
    details: Any = None,
) -> AuditReport:
    """Judge a cut: which facts survive, and every warning the cut deserves."""
    path = cut.path
    split = _split(cut)
    with no_cyclic_gc():  # the walk's models are freed by reference count; the collector would rescan what stays
        read = _read_cut(session, cut, split)
    verdicts = read.verdicts
    tokens = tokens if tokens is not None else path_tokens(list(path), "chars4")
    optional = (
        _usage_warning(cut, tokens, whole_history=not target.first_kept),
        _lost_errors_warning(verdicts),
        _dropped_summary_warning(verdicts),
        _first_kept_missing_warning(target, path),
    )
    warnings = [
        *_last_exchange_warnings(cut, split.before, set(split.summarized_ids), read.seen, read.turns),
        *_context_warnings(cut),
        *(w for w in optional if w is not None),
    ]
    path_ids = set(path.ids) if isinstance(path, PathWindow) else {e.id for e in path}
    return AuditReport(
        session_id=session.id,
        target=target.kind,
        target_id=target.id,
        format=session.format,
        summary=cut.summary,
        first_kept_entry_id=target.first_kept,
        summarized_entry_ids=split.summarized_ids,
        kept_entry_ids=[i for i in cut.after_ids if i is not None and i in path_ids],
        tokens_before=target.tokens_before,
        tokens_after=target.tokens_after,
        counter=target.counter,
        facts=verdicts,
        retention=_retention(verdicts),
        warnings=warnings,
        why=why,
        quality=quality_of(
            session,
            read.identifiers,
            read.latest_ask,
            cut.summary,
            details if details is not None else _details_of(session, target.id),
        ),
    )


def _details_of(session: Session, entry_id: str) -> Any:
    """The recorded details of the compaction entry `entry_id` (None for a proposal or another entry)."""
    # the last entry with that id, as `by_id` would give, without a dict of every entry
    entry = next((e for e in reversed(session.entries) if e.id == entry_id), None)
    return entry.compaction.details if entry is not None and entry.compaction is not None else None


# ---------------------------------------------------------------------------
# Why the cut fell there
# ---------------------------------------------------------------------------


def reproducing_ranges(index: PathIndex, start: int, first_kept: int) -> list[tuple[int, int]]:
    """The keepRecentTokens values (inclusive ranges) for which pi's walk cuts exactly at `first_kept`.

    Why: an imported compaction does not record its settings; the walk's result is a
    step function of keepRecentTokens, so the values that reproduce the cut can be read
    off the message sizes.
    """
    n = index.n
    total = index.tokens_in(start, n)
    ranges: list[tuple[int, int]] = []
    upper_prev = 0  # the walk's sum at the previous (later) message
    messages = [m for m in index.messages if m >= start]
    for m in reversed(messages):
        reached = index.prefix[n] - index.prefix[m]
        lo, hi = upper_prev + 1, reached
        upper_prev = reached
        if hi < lo:
            continue
        if find_cut_point(index, start, n, hi).firstKeptIndex == first_kept:
            ranges.append((lo, hi))
    if find_cut_point(index, start, n, total + 1).firstKeptIndex == first_kept:
        ranges.append((total + 1, OPEN_END))
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def _cut_position(index: PathIndex, settings: CompactionSettings, rules: str, keep: int) -> int:
    """Where a rule set's plan for `keep` cuts: -1 when it keeps everything, past the end when it refuses."""
    p = plan(index, settings.with_overrides(keepRecentTokens=keep), entry_tokens=False, rules=rules)
    if p.refusal:
        return index.n
    return -1 if p.firstKeptPathIndex is None else p.firstKeptPathIndex


def rule_reproducing_ranges(
    index: PathIndex, settings: CompactionSettings, rules: str, first_kept: int
) -> list[tuple[int, int]]:
    """The keepRecentTokens values (one inclusive range) for which a rule set's plan cuts exactly at `first_kept`.

    Why: current pi and OpenClaw walk other token counts than pi 0.73 (custom messages,
    images, OpenClaw's usage scaling), but each cuts earlier as keepRecentTokens grows:
    the values that reproduce a cut are one range, found by bisection on the plan itself.
    """

    def first_at_most(target: int) -> int:
        """The smallest keepRecentTokens whose cut is at or before `target` (OPEN_END when none is)."""
        lo, hi = 0, OPEN_END
        if _cut_position(index, settings, rules, hi) > target:
            return OPEN_END
        while lo < hi:
            mid = (lo + hi) // 2
            if _cut_position(index, settings, rules, mid) <= target:
                hi = mid
            else:
                lo = mid + 1
        return lo

    lo = first_at_most(first_kept)
    if lo >= OPEN_END or _cut_position(index, settings, rules, lo) != first_kept:
        return []
    hi = first_at_most(first_kept - 1) - 1
    return [(lo, hi if hi < OPEN_END - 1 else OPEN_END)]


# a keepRecentTokens range narrower than this is a coincidence of message sizes, not a setting someone chose
REASONABLE_RANGE = 64
ALL_RULES = (PI_073, PI_CURRENT, OPENCLAW)


def _reasonable(ranges: list[tuple[int, int]], preferred: int) -> bool:
    """A range someone could have set: one that holds the configured value or spans REASONABLE_RANGE tokens or more."""
    return any(lo <= preferred <= hi or hi - lo + 1 >= REASONABLE_RANGE for lo, hi in ranges)


def _ranges_for(index: PathIndex, settings: CompactionSettings, rules: str, first_kept: int) -> list[tuple[int, int]]:
    if rules == PI_073:
        start = plan(index, settings, rules=rules).boundaryStart
        return reproducing_ranges(index, start, first_kept) if first_kept >= start else []
    return rule_reproducing_ranges(index, settings, rules, first_kept)


def other_rule_sets(
    index: PathIndex, settings: CompactionSettings, rules: str, first_kept: int, fmt: str
) -> list[tuple[str, list[tuple[int, int]]]]:
    """The other rule sets whose plan reproduces the cut with a reasonable keepRecentTokens range.

    The agent's own family first (pi's rule sets for a pi file, OpenClaw's for an OpenClaw one),
    then the widest range.
    """
    found: list[tuple[bool, int, str, list[tuple[int, int]]]] = []
    for other in ALL_RULES:
        if other == rules:
            continue
        ranges = _ranges_for(index, settings, other, first_kept)
        if ranges and _reasonable(ranges, settings.keepRecentTokens):
            family = (other == OPENCLAW) == (fmt == "openclaw")
            found.append((family, max(hi - lo for lo, hi in ranges), other, ranges))
    found.sort(key=lambda item: (not item[0], -item[1]))
    return [(other, ranges) for _, _, other, ranges in found]


def _pick_keep(ranges: list[tuple[int, int]], preferred: int) -> int:
    for lo, hi in ranges:
        if lo <= preferred <= hi:
            return preferred
    best = min(ranges, key=lambda r: min(abs(r[0] - preferred), abs(r[1] - preferred)))
    return best[0] if abs(best[0] - preferred) <= abs(best[1] - preferred) else best[1]


def _range_text(ranges: list[tuple[int, int]]) -> str:
    parts = [f"{lo:,}\u2013{hi:,}" if hi < OPEN_END else f"{lo:,} or more" for lo, hi in ranges]
    return ", ".join(parts)


def _explanation_from_plan(p: CompactionPlan, prefix: list[str], extra: dict[str, Any]) -> CutExplanation:
    steps = [*prefix, *(s.text for s in p.explanation)]
    path_ids = extra.pop("path_ids", [])
    crossing = (
        path_ids[p.crossingPathIndex]
        if p.crossingPathIndex is not None and p.crossingPathIndex < len(path_ids)
        else None
    )
    return CutExplanation(
        text="\n".join(steps),
        steps=steps,
        keep_recent_tokens=p.keepRecentTokens,
        context_window=p.contextWindow,
        reserve_tokens=p.reserveTokens,
        threshold=p.threshold,
        tokens_before_estimate=p.tokensBefore,
        summarized_tokens=p.summarizedTokens + p.turnPrefixTokens,
        kept_tokens=p.keptTokens,
        crossing_entry_id=crossing,
        cut_entry_id=p.firstKeptEntryId,
        is_split_turn=p.isSplitTurn,
        **extra,
    )


def explain_compaction(
    path_before: Sequence[Entry],
    record_first_kept: str | None,
    settings: CompactionSettings,
    fmt: str,
    tokens_before: int | None,
    *,
    from_hook: bool | None = None,
    tokens: list[int] | None = None,
    writer: Writer | None = None,
) -> CutExplanation:
    """Re-run the plan on the path as it was when the compaction happened, and find the settings that reproduce it.

    `writer` names the rule set of the agent version that wrote the compaction (default:
    what the path shows, `written_by`); the re-plan and the reproducing range use it.
    A `PathWindow` path is indexed from its stored facts.
    """
    writer = writer or written_by(list(path_before), fmt, setting=settings.rules)
    rules = writer.rules
    if record_first_kept is None:
        agent = {
            "claude_code": "Claude Code compactions replace",
            "codex": "Codex compactions replace",
            "qwen_code": "Qwen Code compressions replace",
        }.get(fmt, "this compaction records no firstKeptEntryId: it replaces")
        text = (
            f"{agent} the whole history with the summary: nothing before the compaction "
            "stays verbatim, so there is no cut point to explain"
            + (f"; the context held {tokens_before:,} tokens when it fired" if tokens_before else "")
        )
        return CutExplanation(
            text=text,
            steps=[text],
            tokens_before_recorded=tokens_before or None,
            reproduced=None,
            rules=rules,
            rules_reason=writer.reason,
        )
    if fmt != "pi" or get_mode(settings.mode).plan_family != PI_FAMILY:
        settings = settings.with_overrides(mode="pi")
    tokens = tokens if tokens is not None else path_tokens(list(path_before), "chars4")
    if isinstance(path_before, PathWindow):
        w = path_before
        index = PathIndex.from_facts(w, tokens, "chars4", w.ids, w.kinds, w.facts)
    else:
        index = index_path(list(path_before), tokens, "chars4")
    first_kept = index.index_of(record_first_kept)
    baseline = plan(index, settings, rules=rules)
    start = baseline.boundaryStart
    if first_kept < 0:
        text = f"firstKeptEntryId {record_first_kept} is not on the path before the compaction: the cut cannot be re-planned"
        return CutExplanation(
            text=text,
            steps=[text],
            reproduced=False,
            tokens_before_recorded=tokens_before or None,
            rules=rules,
            rules_reason=writer.reason,
        )
    if rules == PI_073:
        ranges = reproducing_ranges(index, start, first_kept) if first_kept >= start else []
    else:
        ranges = rule_reproducing_ranges(index, settings, rules, first_kept)
    prefix: list[str] = []
    other: str | None = None
    other_ranges: list[tuple[int, int]] = []
    others: list[tuple[str, list[tuple[int, int]]]] = []
    if not _reasonable(ranges, settings.keepRecentTokens):
        others = other_rule_sets(index, settings, rules, first_kept, fmt)
        if others:
            other, other_ranges = others[0]
    if ranges:
        keep = _pick_keep(ranges, settings.keepRecentTokens)
        chosen = plan(index, settings.with_overrides(keepRecentTokens=keep), rules=rules)
        reproduced = chosen.firstKeptEntryId == record_first_kept
        if keep == settings.keepRecentTokens:
            prefix.append(
                f"re-planned with keepRecentTokens {keep:,} (chars4): the plan reproduces firstKeptEntryId {record_first_kept} "
                f"(values reproducing it: {_range_text(ranges)})"
            )
        else:
            prefix.append(
                f"keepRecentTokens {settings.keepRecentTokens:,} would "
                + (f"cut elsewhere ({baseline.firstKeptEntryId})" if baseline.firstKeptEntryId else "make no plan")
                + "; "
                f"values {_range_text(ranges)} reproduce firstKeptEntryId {record_first_kept}: re-planned with {keep:,}"
            )
    else:
        chosen = baseline
        reproduced = False
        prefix.append(
            f"no keepRecentTokens value reproduces firstKeptEntryId {record_first_kept} with "
            + ("pi's walk" if rules == PI_073 else f"the {rules} plan")
            + " over chars4 estimates"
            + (" (the compaction came from a hook or extension)" if from_hook else "")
            + f"; showing the plan for keepRecentTokens {settings.keepRecentTokens:,} (cuts at {baseline.firstKeptEntryId})"
        )
    if not _reasonable(ranges, settings.keepRecentTokens):
        what = f"only {_range_text(ranges)}" if ranges else "none"
        if other is not None:
            also = "".join(f"; the {o} rules too ({_range_text(r)})" for o, r in others[1:])
            prefix.append(
                f"no reasonable keepRecentTokens reproduces this cut under the {rules} rules ({what}); "
                f"the {other} rules reproduce it with {_range_text(other_ranges)}: that rule set probably wrote it "
                f"(audit with --rules {other}){also}"
            )
        else:
            prefix.append(
                f"no reasonable keepRecentTokens reproduces this cut under the {rules} rules ({what}), "
                "and none of the other rule sets does either: another program or a hand wrote it"
            )
    if tokens_before:
        prefix.append(
            f"recorded tokensBefore {tokens_before:,} against a threshold of {chosen.threshold:,} "
            f"({'over' if tokens_before > chosen.threshold else 'not over'}: "
            + (
                "an automatic compaction"
                if tokens_before > chosen.threshold
                else "a manual or overflow compaction, or a smaller window"
            )
            + ")"
        )
    return _explanation_from_plan(
        chosen,
        prefix,
        {
            "path_ids": path_before.ids if isinstance(path_before, PathWindow) else [e.id for e in path_before],
            "reproduced": reproduced,
            "reproducing_ranges": ranges,
            "tokens_before_recorded": tokens_before or None,
            "rules": rules,
            "rules_reason": writer.reason,
            "other_rules": other,
            "other_rules_ranges": other_ranges,
        },
    )


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------


def audit_compaction(
    session: Session,
    compaction_entry_id: str | None = None,
    settings: CompactionSettings | None = None,
    chars4: Mapping[str, int] | None = None,
    rules: str | None = None,
    window: PathWindow | None = None,
    later: Sequence[Entry] | None = None,
) -> AuditReport:
    """Audit a compaction already in the transcript (default: the latest one).

    `chars4` are the entries' chars4 counts by id when the caller has them (the store's
    cache): a big session is then not counted again. The cut is explained with the rules
    of the agent version that wrote the compaction where the file tells (`written_by`),
    else the assumed ones; `rules` overrides both. `window` is the active path through the
    compaction as a stored session's `PathWindow` (see `compaction_window_fits`), `session`
    then a header without entries: the same report without the whole session in memory;
    `later` are then the entries after the compaction on the active path (for `recovered`).
    """
    settings = settings or CompactionSettings()
    full: Sequence[Entry]
    if window is not None:
        full, entry_id = window, window.ids[-1]
    else:
        entry_id = compaction_entry_id or latest_compaction_id(session)
        full = path_to(session, entry_id)
    entry = full[-1]
    if entry.type != "compaction" or entry.compaction is None:
        raise CutlineError(f"entry {entry_id} is a {entry.type} entry, not a compaction")
    record = entry.compaction
    path: Sequence[Entry]
    if isinstance(full, PathWindow):
        path = full.head(len(full) - 1)
        after_indices = full.context_indices()
        after = build_context(full.tail())
        tokens = full.counts[:-1]
        writer = window_writer(full, session, settings, rules)
    else:
        path = full[:-1]
        after_indices = context_indices(full)
        after = build_context(full)
        tokens = _chars4_of(path, chars4)
        writer = written_by(full, session.format, session.version, settings.rules, rules)
    after_ids: list[str | None] = [full[i].id if full[i].type != "compaction" else None for i in after_indices]
    extra: list[str] = []
    details = record.details if isinstance(record.details, dict) else {}
    if details.get("replacement_history"):
        extra.extend(_strings(details["replacement_history"]))
    cut = _Cut(
        path=path,
        after=after,
        after_ids=after_ids,
        summary=record.summary,
        extra_visible=extra,
        later=list(later) if later is not None else _entries_after(session, entry_id) if window is None else [],
    )
    why = explain_compaction(
        path,
        record.firstKeptEntryId,
        settings,
        session.format,
        record.tokensBefore or None,
        from_hook=record.fromHook,
        tokens=tokens,
        writer=writer,
    )
    tokens_after = record.tokensAfter if record.tokensAfter else sum_context_tokens(after)
    target = _Target(
        kind="compaction",
        id=entry_id,
        first_kept=record.firstKeptEntryId,
        tokens_before=record.tokensBefore or why.tokens_before_estimate,
        tokens_after=tokens_after,
    )
    return _audit(session, cut, target, why, tokens=tokens, details=record.details if window is not None else None)


def _entries_after(session: Session, entry_id: str) -> list[Entry]:
    """The entries after `entry_id` on the active path (none when it is not on it)."""
    active = session.active_path()
    at = next((i for i, e in enumerate(active) if e.id == entry_id), None)
    return list(active[at + 1 :]) if at is not None else []


def window_writer(window: PathWindow, session: Session, settings: CompactionSettings, rules: str | None) -> Writer:
    """`written_by` of a window's whole path, from the only entries that can tell on a pi path.

    Those are the entries the facts flag as current pi's (`PI_CURRENT_SIGN`: system,
    context_edit and usage entries) and compactions (one carrying a `systemMessage`);
    `written_by` names the first of them in path order, so the first flagged entry and
    the compactions before it give the same answer as every entry.
    """
    flagged = next((i for i, fact in enumerate(window.facts) if fact["f"] & PI_CURRENT_SIGN), len(window))
    telling = [i for i, kind in enumerate(window.kinds[:flagged]) if kind == "compaction"]
    if flagged < len(window):
        telling.append(flagged)
    return written_by([window[i] for i in telling], session.format, session.version, settings.rules, rules)


def compaction_window_fits(
    window: PathWindow, session: Session, settings: CompactionSettings, rules: str | None = None
) -> bool:
    """Whether a compaction's audit may run on a `PathWindow`: settings in mode pi, explained with pi 0.73's or current pi's rules.

    Why: OpenClaw 2026.9's planner and context walk the whole path, and the other modes
    were not checked entry by entry; those load the whole session.
    """
    return settings.mode == "pi" and window_writer(window, session, settings, rules).rules != OPENCLAW


def _proposal_settings(proposal: Proposal) -> CompactionSettings:
    """The settings a proposal was made with (keys at their defaults left unset, as the planner resolves windows)."""
    defaults = CompactionSettings().model_dump(mode="json")
    changed = {k: v for k, v in proposal.settings.items() if k in defaults and defaults[k] != v}
    try:
        return CompactionSettings.model_validate(changed)
    except ValueError:
        return CompactionSettings()


def _chars4_of(path: list[Entry], chars4: Mapping[str, int] | None) -> list[int]:
    """Per-entry chars4 counts of a path: looked up when given by entry id, else counted."""
    if chars4 is None:
        return path_tokens(path, "chars4")
    return [chars4.get(e.id, 0) for e in path]


def audit_proposal(
    session: Session,
    proposal: Proposal,
    summary: str | None = None,
    chars4: Mapping[str, int] | None = None,
    window: PathWindow | None = None,
) -> AuditReport:
    """Audit a proposal made here, against the session path it was planned on.

    `summary` audits another version of the summary (an edit) in the generated one's place;
    `chars4` are the entries' chars4 counts by id when the caller has them (the store's cache).
    `window` is that path (through the proposal's parent entry) as a stored session's
    `PathWindow` with its chars4 counts, `session` then a header without entries: the
    same report without the whole session in memory (see `proposal_window_fits`).
    """
    if window is not None:
        return _audit_proposal_on(session, proposal, summary, window, window.counts, window.ids)
    path = session.active_path()
    if proposal.parentEntryId is not None:
        ids = [e.id for e in path]
        if proposal.parentEntryId in ids:
            path = path[: ids.index(proposal.parentEntryId) + 1]
        else:
            path = path_to(session, proposal.parentEntryId)
    return _audit_proposal_on(session, proposal, summary, path, _chars4_of(path, chars4), [e.id for e in path])


def proposal_window_fits(proposal: Proposal, window: PathWindow) -> bool:
    """Whether a proposal's audit may run on a `PathWindow`: planned in mode pi with pi 0.73's or current pi's rules.

    Why: OpenClaw 2026.9's planner and context walk the whole path, and the other modes
    were not checked entry by entry; those load the whole session.
    """
    if _proposal_settings(proposal).mode != "pi":
        return False
    chosen = proposal.rules or ("pi" if window.current_pi_sign() else None) or _proposal_settings(proposal).rules
    return canonical(chosen or "pi") != OPENCLAW


def _audit_proposal_on(
    session: Session,
    proposal: Proposal,
    summary: str | None,
    path: Sequence[Entry],
    tokens: list[int],
    path_ids: list[str],
) -> AuditReport:
    """`audit_proposal` on the path it was planned on (a list or a `PathWindow`) with its chars4 counts."""
    extra = [t for t in (proposal.injected.recovery_turn,) if t]
    if proposal.injected.memory_flush is not None:
        extra.append(proposal.injected.memory_flush.model_dump_json())
    after = proposal.context_with(summary) if summary is not None else list(proposal.context)
    cut = _Cut(
        path=path,
        after=after,
        after_ids=list(proposal.context_entry_ids),
        summary=proposal.entry_summary(summary),
        extra_visible=extra,
    )
    counter = proposal.counter if proposal.counter in ("chars4", "tiktoken") else "chars4"
    with no_cyclic_gc():
        why = _proposal_why(proposal, path, tokens, path_ids)
    target = _Target(
        kind="proposal",
        id=proposal.id,
        first_kept=proposal.firstKeptEntryId,
        tokens_before=proposal.tokensBefore,
        tokens_after=proposal.tokensAfter if summary is None else sum_context_tokens(after, counter),
        counter=proposal.counter if summary is None else counter,
    )
    return _audit(session, cut, target, why, tokens=tokens)


def _proposal_why(proposal: Proposal, path: Sequence[Entry], tokens: list[int], path_ids: list[str]) -> CutExplanation:
    """Why the proposal's cut fell there: the path re-planned with its settings.

    A function of its own so the plan's index (one item per path entry: ~75 MB at 100,000)
    is let go before the audit reads the summarized part.
    """
    settings = _proposal_settings(proposal)
    if isinstance(path, PathWindow):
        index = PathIndex.from_facts(path, tokens, "chars4", path.ids, path.kinds, path.facts)
    else:
        index = index_path(list(path), tokens, "chars4")
    p = plan(index, settings, rules=proposal.rules or None)
    prefix = [f"proposal {proposal.id} made with mode {proposal.mode}, summarizer {proposal.summarizer or '?'}"]
    if p.firstKeptEntryId != proposal.firstKeptEntryId and get_mode(proposal.mode).plan_family == PI_FAMILY:
        prefix.append(
            f"note: re-planning now cuts at {p.firstKeptEntryId}, the proposal cut at {proposal.firstKeptEntryId}"
        )
    return _explanation_from_plan(
        p,
        prefix,
        {
            "path_ids": path_ids,
            "reproduced": p.firstKeptEntryId == proposal.firstKeptEntryId,
            "rules": p.rules,
            "rules_reason": "the rules the proposal was planned with"
            if proposal.rules
            else "chosen as a plan of this session would be",
        },
    )


# ---------------------------------------------------------------------------
# Side by side
# ---------------------------------------------------------------------------


class KindComparison(BaseModel):
    """Retention of one kind in both audits."""

    kind: FactKind
    a: KindRetention
    b: KindRetention


_COLUMN = 34


def _side_by_side(label: str, left: str, right: str) -> list[str]:
    """One row of the comparison table; a cell longer than its column wraps onto more lines instead of pushing the next one."""
    a = textwrap.wrap(left, _COLUMN) or [""]
    b = textwrap.wrap(right, _COLUMN) or [""]
    lines = []
    for n in range(max(len(a), len(b))):
        cell_a = a[n] if n < len(a) else ""
        cell_b = b[n] if n < len(b) else ""
        lines.append(f"{label if n == 0 else '':<12} {cell_a:<{_COLUMN}} {cell_b:<{_COLUMN}}".rstrip())
    return lines


class Comparison(BaseModel):
    """Two compactions or proposals side by side: summaries diffed, retention per kind, tokens after."""

    a_id: str
    b_id: str
    a_target: str
    b_target: str
    summary_diff: list[str] = Field(default_factory=list)
    summary_similarity: float
    a_summary_chars: int
    b_summary_chars: int
    retention: list[KindComparison] = Field(default_factory=list)
    a_tokens_after: int | None = None
    b_tokens_after: int | None = None
    lost_only_in_a: list[AuditFact] = Field(default_factory=list)
    lost_only_in_b: list[AuditFact] = Field(default_factory=list)
    a_warnings: list[str] = Field(default_factory=list)
    b_warnings: list[str] = Field(default_factory=list)

    def text(self) -> str:
        """A plain-text side-by-side report."""

        def score(r: KindRetention) -> str:
            return f"{r.kept}/{r.total}" + (f" ({r.score:.0%})" if r.score is not None else "")

        rows = _side_by_side("", f"A {self.a_target} {self.a_id}", f"B {self.b_target} {self.b_id}")
        for k in self.retention:
            rows += _side_by_side(k.kind, score(k.a), score(k.b))
        after_a = f"{self.a_tokens_after:,}" if self.a_tokens_after is not None else "?"
        after_b = f"{self.b_tokens_after:,}" if self.b_tokens_after is not None else "?"
        rows += _side_by_side("tokens after", after_a, after_b)
        rows += _side_by_side("summary", f"{self.a_summary_chars:,} chars", f"{self.b_summary_chars:,} chars")
        for n in range(max(len(self.a_warnings), len(self.b_warnings))):
            left = self.a_warnings[n] if n < len(self.a_warnings) else ""
            right = self.b_warnings[n] if n < len(self.b_warnings) else ""
            rows += _side_by_side("warnings" if n == 0 else "", left, right)
        rows.append(f"summaries {self.summary_similarity:.0%} similar")
        for label, facts in (("lost only in A", self.lost_only_in_a), ("lost only in B", self.lost_only_in_b)):
            if facts:
                rows.append(f"{label}:")
                rows.extend(f"  [{f.kind}] {f.text}" for f in facts)
        if self.summary_diff:
            rows.append("summary diff (A -> B):")
            rows.extend(self.summary_diff)
        return "\n".join(rows)


def compare(a: AuditReport, b: AuditReport) -> Comparison:
    """Compare two audits: which facts each lost that the other kept, the summaries' diff and sizes."""
    a_lost = {(f.kind, f.key) for f in a.lost}
    b_lost = {(f.kind, f.key) for f in b.lost}
    a_all = {(f.kind, f.key) for f in a.facts}
    b_all = {(f.kind, f.key) for f in b.facts}
    diff = list(
        difflib.unified_diff(
            a.summary.splitlines(),
            b.summary.splitlines(),
            fromfile=f"A {a.target_id}",
            tofile=f"B {b.target_id}",
            lineterm="",
        )
    )
    return Comparison(
        a_id=a.target_id,
        b_id=b.target_id,
        a_target=a.target,
        b_target=b.target,
        summary_diff=diff,
        summary_similarity=round(difflib.SequenceMatcher(None, a.summary, b.summary, autojunk=False).ratio(), 3)
        if len(a.summary) + len(b.summary) < 200_000
        else round(difflib.SequenceMatcher(None, a.summary.splitlines(), b.summary.splitlines()).ratio(), 3),
        a_summary_chars=len(a.summary),
        b_summary_chars=len(b.summary),
        retention=[KindComparison(kind=kind, a=a.retention_of(kind), b=b.retention_of(kind)) for kind in FACT_KINDS],
        a_tokens_after=a.tokens_after,
        b_tokens_after=b.tokens_after,
        lost_only_in_a=[f for f in a.lost if (f.kind, f.key) not in b_lost and (f.kind, f.key) in b_all],
        lost_only_in_b=[f for f in b.lost if (f.kind, f.key) not in a_lost and (f.kind, f.key) in a_all],
        a_warnings=[_warning_label(w) for w in a.warnings],
        b_warnings=[_warning_label(w) for w in b.warnings],
    )


def _warning_label(warning: AuditWarning) -> str:
    return warning.code + (" (recovered)" if warning.recovered else "")
