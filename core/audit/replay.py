"""Replay a session under other compaction settings: where would auto-compaction have fired?

The conversation's messages are replayed in order with the transcript's own
compactions left out. After every assistant message that ends a turn (pi checks at
`agent_end`), the running context estimate is compared with the mode's trigger
(pi: `context > window - reserve`; first-and-tail: `compactionThresholdTokens`;
system-and-summary: `threshold`); after any assistant message a context larger than
the window counts as an overflow (pi compacts and retries). When either fires, the planner plans a compaction on the
replayed path, a compaction entry is appended and the replay continues from the
context it leaves: summary + kept entries.

The summary's size is not known without summarizing, so it is a fixed estimate:
`DEFAULT_SUMMARY_TOKENS` (2,000 tokens, the size pi's structured checkpoint summaries
of long coding sessions typically reach) unless `summary_tokens` says otherwise.
The running estimate uses one counter throughout (recorded usage stops describing
the replayed context as soon as the first replayed compaction differs from reality).
Every replayed compaction is planned with one rule set: the agent version that wrote
the session where the file tells (`core.engine.rules.choice.written_by`), else the
`rules` setting, or the one asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from cutline.core.audit.timeline import (
    Timeline,
    TimelineCompaction,
    TimelinePoint,
    _last_model,
    _turns,
    build_timeline,
    counter_tokens,
)
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.context import context_weight
from cutline.core.engine.modes import PI_FAMILY, get_mode, reserve_for
from cutline.core.engine.plan import CompactionPlan, plan
from cutline.core.engine.rules.choice import written_by
from cutline.core.engine.triggers import resolve_context_window
from cutline.core.models import CompactionRecord, Entry, Session

DEFAULT_SUMMARY_TOKENS = 2000


class ReplayCompaction(BaseModel):
    """One compaction the replay fired."""

    entry_id: str
    after_entry_id: str
    point_index: int
    turn: int
    tokens_before: int
    tokens_after: int
    first_kept_entry_id: str | None
    summarized_messages: int
    is_split_turn: bool
    reason: Literal["threshold", "overflow"] = "threshold"


class Replay(BaseModel):
    """The outcome of replaying a session under one set of settings."""

    session_id: str
    counter: str
    keep_recent_tokens: int
    context_window: int
    reserve_tokens: int
    threshold: int
    summary_tokens: int
    rules: str = "pi"
    rules_reason: str = ""
    compactions: list[ReplayCompaction] = Field(default_factory=list)
    points: list[TimelinePoint] = Field(default_factory=list)
    peak_tokens: int = 0

    def text(self) -> str:
        """One sentence: where compactions would fire."""
        head = f"with keepRecentTokens {self.keep_recent_tokens:,} (window {self.context_window:,}, reserve {self.reserve_tokens:,}, {self.counter})"
        if not self.compactions:
            return f"{head} no compaction would fire (peak context {self.peak_tokens:,} tokens, threshold {self.threshold:,})"
        turns = ", ".join(str(c.turn) + (" (overflow)" if c.reason == "overflow" else "") for c in self.compactions)
        return f"{head} compactions would fire at turns {turns} ({len(self.compactions)} in all)"


def mode_threshold(settings: CompactionSettings, window: int, reserve: int) -> int:
    """The context size above which the settings' mode compacts (pi's window − reserve, or the seeds' own)."""
    return get_mode(settings.mode).trigger_threshold(settings, window, reserve)


def _ends_turn(entry: Entry) -> bool:
    message = entry.message
    return (
        entry.type == "message"
        and message is not None
        and message.role == "assistant"
        and not entry.isSidechain
        and message.stopReason not in ("toolUse", "aborted")
        and not message.tool_calls()
    )


def _is_main_assistant(entry: Entry) -> bool:
    return (
        entry.type == "message"
        and entry.message is not None
        and entry.message.role == "assistant"
        and not entry.isSidechain
    )


@dataclass
class _Simulation:
    """The replayed path so far, its running context size and the compactions fired."""

    settings: CompactionSettings
    counter: str
    summary_tokens: int
    keeps_from_cut: bool  # pi's kind keeps the path from its cut on
    rules: str | None = None  # the planner rule set of every replayed compaction
    sim: list[Entry] = field(default_factory=list)
    sim_tokens: list[int] = field(default_factory=list)
    window_start: int = 0
    running: int = 0
    fired: list[ReplayCompaction] = field(default_factory=list)

    def plan_now(self) -> CompactionPlan | None:
        """The plan a compaction firing now would follow, None when it would not compact."""
        # pi only looks at the path from the previous compaction's first kept entry on, so plan that
        # tail alone: the same cut, without re-indexing the whole session at every compaction
        start = self.window_start
        p = plan(
            self.sim[start:],
            self.settings,
            self.counter,
            tokens=self.sim_tokens[start:],
            entry_tokens=False,
            rules=self.rules,
        )
        if p.alreadyCompacted or p.nothingToCompact or (p.firstKeptEntryId is None and self.keeps_from_cut):
            return None
        return p

    def compact(self, p: CompactionPlan, after: Entry) -> tuple[Entry, int, int]:
        """Append the compaction entry the plan makes; its entry, the context before and after."""
        before = self.running
        record = CompactionRecord(summary="", firstKeptEntryId=p.firstKeptEntryId, tokensBefore=before)
        entry = Entry(id=f"replay-{len(self.fired) + 1}", parentId=after.id, type="compaction", compaction=record)
        self.running = self.summary_tokens + p.keptTokens
        if self.keeps_from_cut and p.firstKeptPathIndex is not None:
            self.window_start += p.firstKeptPathIndex
        else:
            self.window_start = 0  # the other modes keep message 0 and look at the whole path
        self.sim.append(entry)
        self.sim_tokens.append(self.summary_tokens)
        return entry, before, self.running


def replay(
    session: Session,
    settings: CompactionSettings | None = None,
    counter: str = "chars4",
    summary_tokens: int | None = None,
    rules: str | None = None,
) -> Replay:
    """Simulate auto-compaction over the session's active path under `settings` (`rules` overrides the session's)."""
    settings = settings or CompactionSettings()
    writer = written_by(session.active_path(), session.format, session.version, settings.rules, rules)
    size = DEFAULT_SUMMARY_TOKENS if summary_tokens is None else summary_tokens
    original = [e for e in session.active_path() if e.type != "compaction" and not e.isCompactSummary]
    tokens = counter_tokens(session, original, counter)
    weights = context_weight(original)
    turns = _turns(original)
    window = resolve_context_window(settings, _last_model(original)).tokens
    reserve = reserve_for(settings)
    threshold = mode_threshold(settings, window, reserve)
    family = get_mode(settings.mode).plan_family == PI_FAMILY
    run = _Simulation(settings, counter, size, keeps_from_cut=family, rules=writer.rules)
    peak = 0
    points: list[TimelinePoint] = []
    for i, entry in enumerate(original):
        run.sim.append(entry)
        run.sim_tokens.append(tokens[i])
        if weights[i]:
            run.running += tokens[i]
        if _is_main_assistant(entry):
            estimates = {"replay": run.running}
            points.append(TimelinePoint(index=len(points), entry_id=entry.id, turn=turns[i], estimates=estimates))
            peak = max(peak, run.running)
        is_assistant = entry.type == "message" and entry.message is not None and entry.message.role == "assistant"
        overflow = is_assistant and settings.enabled and run.running > window
        if not overflow and (not _ends_turn(entry) or not (settings.enabled and run.running > threshold)):
            continue
        p = run.plan_now()
        if p is None:
            continue
        compaction, before, after = run.compact(p, entry)
        run.fired.append(
            ReplayCompaction(
                entry_id=compaction.id,
                after_entry_id=entry.id,
                point_index=len(points),
                turn=turns[i],
                tokens_before=before,
                tokens_after=after,
                first_kept_entry_id=p.firstKeptEntryId,
                summarized_messages=p.messagesToSummarize + p.turnPrefixMessages,
                is_split_turn=p.isSplitTurn,
                reason="overflow" if overflow else "threshold",
            )
        )
    return Replay(
        session_id=session.id,
        counter=counter,
        keep_recent_tokens=settings.keepRecentTokens,
        context_window=window,
        reserve_tokens=reserve,
        threshold=threshold,
        summary_tokens=size,
        rules=writer.rules,
        rules_reason=writer.reason,
        compactions=run.fired,
        points=points,
        peak_tokens=peak,
    )


def timeline_with_replay(
    session: Session,
    settings: CompactionSettings,
    counters: list[str] | None = None,
    replay_counter: str = "chars4",
    summary_tokens: int | None = None,
    counts: Callable[[str], Mapping[str, int]] | None = None,
    rules: str | None = None,
) -> tuple[Timeline, Replay]:
    """The session's timeline with the replay's context estimate and its compactions drawn over it (`counts`: see `build_timeline`)."""
    timeline = build_timeline(session, settings, counters, counts)
    result = replay(session, settings, replay_counter, summary_tokens, rules)
    by_entry = {p.entry_id: p.estimates["replay"] for p in result.points}
    for point in timeline.points:
        if point.entry_id in by_entry:
            point.estimates["replay"] = by_entry[point.entry_id]
    timeline.counters = [*timeline.counters, "replay"]
    positions = {p.entry_id: p.index for p in timeline.points}
    for c in result.compactions:
        timeline.compactions.append(
            TimelineCompaction(
                entry_id=c.entry_id,
                index=positions.get(c.after_entry_id, c.point_index - 1) + 1,
                turn=c.turn,
                tokens_before=c.tokens_before,
                tokens_after=c.tokens_after,
                replayed=True,
            )
        )
    return timeline, result
