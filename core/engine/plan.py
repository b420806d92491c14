"""Where a compaction cuts, what it summarizes and keeps, and why: pi's prepareCompaction/findCutPoint, exactly, and the seeds' other modes.

pi walks back over the entries once per plan. Here a `PathIndex` holds prefix sums
and sorted lists of cut points, turn starts and file operations, so each plan is a
few binary searches: the review desk can re-plan while a person drags a setting.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate
from typing import Any

from pydantic import BaseModel, Field

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.context import (
    ContextEstimate,
    branch_summary_text,
    context_indices,
    entry_message,
    has_valid_usage,
    text_of,
)
from cutline.core.engine.triggers import (
    CONTEXT_WINDOW_HARD_MIN_TOKENS,
    CONTEXT_WINDOW_WARN_BELOW_TOKENS,
    ContextWindow,
    guard_context_window,
    history_share,
    reserve_for,
    resolve_context_window,
    should_compact,
)
from cutline.core.models import Entry, Message, TextBlock, ToolResultBlock

# roles pi accepts as the first kept message (never a toolResult: it must follow its call)
_CUT_ROLES = frozenset({"bashExecution", "custom", "branchSummary", "compactionSummary", "user", "assistant"})
_TURN_START_ROLES = frozenset({"user", "bashExecution"})
_FILE_TOOLS = {"read": 0, "write": 1, "edit": 2}

# ---------------------------------------------------------------------------
# The plan
# ---------------------------------------------------------------------------


class Span(BaseModel):
    """Path indices start..stop-1 (half-open), every entry in between included."""

    start: int
    stop: int

    def __len__(self) -> int:
        return max(0, self.stop - self.start)


class ExplanationStep(BaseModel):
    """One step of the planner's reasoning, as data and as a sentence."""

    step: str
    text: str
    pathIndex: int | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class CompactionPlan(BaseModel):
    """What a compaction would do to a session path now, with the figures and reasons behind it.

    Path indices are 0-based on the active path, the session header not counted.
    Summarized, turn-prefix and kept entries are spans of path indices (expand with
    `summarize_indices()` etc.): at 100k entries, index lists cost more to build and
    validate than the whole plan. `entryTokens` holds every path entry's count.
    File lists: `readFiles`, `writtenFiles`, `editedFiles` are the raw sets pi collects;
    `modifiedFiles` = edited ∪ written and `readOnlyFiles` = read − modified are what
    pi writes into the summary and the compaction's details (its computeFileLists).
    """

    mode: str
    counter: str
    rules: str = Field(default="pi-0.73", description="the planner rule set (agent version) that decided")
    pathLength: int
    alreadyCompacted: bool = False
    nothingToCompact: bool = False
    firstKeptEntryId: str | None = None
    firstKeptPathIndex: int | None = None
    isSplitTurn: bool = False
    turnStartPathIndex: int | None = None
    tokensBefore: int = 0
    contextEstimate: ContextEstimate | None = None
    boundaryStart: int = 0
    previousCompactionIndex: int | None = None
    previousSummary: str | None = None
    summarizeSpans: list[Span] = Field(default_factory=list)
    turnPrefixSpans: list[Span] = Field(default_factory=list)
    keptSpans: list[Span] = Field(default_factory=list)
    messagesToSummarize: int = 0
    turnPrefixMessages: int = 0
    keptMessages: int = 0
    summarizedTokens: int = 0
    turnPrefixTokens: int = 0
    keptTokens: int = 0
    readFiles: list[str] = Field(default_factory=list)
    writtenFiles: list[str] = Field(default_factory=list)
    editedFiles: list[str] = Field(default_factory=list)
    modifiedFiles: list[str] = Field(default_factory=list)
    readOnlyFiles: list[str] = Field(default_factory=list)
    shouldCompact: bool = False
    contextWindow: int = 200000
    contextWindowSource: str = "default"
    reserveTokens: int = 16384
    threshold: int = 0
    keepRecentTokens: int = 20000
    crossingPathIndex: int | None = None
    cutCandidatePathIndex: int | None = None
    protectedHeadPathIndex: int | None = None
    lastUserPathIndex: int | None = None
    lastUserRequest: str | None = None
    latestUnresolvedUserRequest: str | None = None
    refusal: str | None = Field(default=None, description="why the rule set refuses to plan (OpenClaw's error)")
    historyBudgetTokens: int | None = None
    historyExceedsShare: bool | None = None
    windowGuard: ContextWindow | None = Field(
        default=None, description="OpenClaw's context-window guard on contextWindow"
    )
    entryTokens: list[int] = Field(default_factory=list)
    explanation: list[ExplanationStep] = Field(default_factory=list)

    def _expand(self, spans: list[Span]) -> list[int]:
        return [i for span in spans for i in range(span.start, span.stop)]

    def summarize_indices(self) -> list[int]:
        return self._expand(self.summarizeSpans)

    def turn_prefix_indices(self) -> list[int]:
        return self._expand(self.turnPrefixSpans)

    def kept_indices(self) -> list[int]:
        return self._expand(self.keptSpans)

    def explanation_text(self) -> str:
        """The explanation as plain sentences, one per line."""
        return "\n".join(step.text for step in self.explanation)


# ---------------------------------------------------------------------------
# The precomputed index of a path
# ---------------------------------------------------------------------------


def _carries_tool_results(message: Message) -> bool:
    return any(isinstance(b, ToolResultBlock) for b in message.content)


def _role_label(entry: Entry) -> str:
    if entry.type == "message" and entry.message is not None:
        return entry.message.role
    return entry.type


def js_sorted(values: Any) -> list[str]:
    """Strings sorted as JavaScript's default sort does (by UTF-16 code units).

    Code-point order (Python's) differs only when astral characters meet U+E000..U+FFFF,
    so the slower UTF-16 key is used only for non-ASCII input.
    """
    ordered = sorted(values)
    if "".join(ordered).isascii():
        return ordered
    return sorted(ordered, key=lambda s: s.encode("utf-16-be", "surrogatepass"))


class PathIndex:
    """Everything about a path that does not depend on the settings, for O(log n) plans.

    Build it once per path and token list (`index_path`); `plan` accepts it in place of
    the path.
    """

    def __init__(self, path: list[Entry], tokens: list[int], counter: str) -> None:
        if len(tokens) != len(path):
            raise ValueError(f"{len(tokens)} token counts for {len(path)} path entries")
        self.path = path
        self.tokens = tokens
        self.counter = counter
        n = len(path)
        self.n = n
        message_tokens = [0] * n
        producer_tokens = [0] * n
        context_tokens = [0] * n  # tokens of entries that reach the model when in the kept context
        context_flags = [0] * n
        self.messages: list[int] = []  # type == "message"
        self.cut_points: list[int] = []
        self.turn_starts: list[int] = []
        self.barriers: list[int] = []  # a message or a compaction: the cut never moves back past one
        self.producers: list[int] = []  # entries giving a message to summarize (not compactions)
        self.compactions: list[int] = []
        self.fileop_index: list[int] = []
        self.fileop_kind: list[int] = []
        self.fileop_path: list[str] = []
        append_msg = self.messages.append
        append_cut = self.cut_points.append
        append_turn = self.turn_starts.append
        append_barrier = self.barriers.append
        append_producer = self.producers.append
        for i, entry in enumerate(path):
            kind = entry.type
            if kind == "message":
                message = entry.message
                if message is None or entry.isSidechain or entry.isCompactSummary:
                    continue  # never in context (Claude Code sidechains, compact-summary records)
                append_barrier(i)
                append_msg(i)
                message_tokens[i] = producer_tokens[i] = context_tokens[i] = tokens[i]
                context_flags[i] = 1
                append_producer(i)
                role = message.role
                if role in _CUT_ROLES:
                    if role == "user" and _carries_tool_results(message):
                        continue  # Claude Code: tool results ride in user records; treat like pi's toolResult
                    append_cut(i)
                    if role in _TURN_START_ROLES:
                        append_turn(i)
                    elif role == "assistant":
                        for block in message.content:
                            if block.type == "toolCall" and block.name in _FILE_TOOLS:
                                args = block.arguments
                                if isinstance(args, dict):
                                    target = args.get("path")
                                    if isinstance(target, str) and target:
                                        self.fileop_index.append(i)
                                        self.fileop_kind.append(_FILE_TOOLS[block.name])
                                        self.fileop_path.append(target)
            elif kind == "compaction":
                append_barrier(i)
                self.compactions.append(i)
            elif kind == "branch_summary" or kind == "custom_message":
                append_cut(i)
                append_turn(i)
                append_producer(i)
                producer_tokens[i] = tokens[i]
                if kind == "custom_message" or branch_summary_text(entry):
                    context_tokens[i] = tokens[i]
                    context_flags[i] = 1
        # prefix[i] = tokens of message entries before i; the walk back from the end sums these
        self.prefix = [0, *accumulate(message_tokens)]
        self.producer_prefix = [0, *accumulate(producer_tokens)]
        self.context_prefix = [0, *accumulate(context_tokens)]
        self.context_count = [0, *accumulate(context_flags)]
        self._ids: list[str] | None = None
        self._found: dict[str, int] = {}
        self._context: ContextEstimate | None = None
        self._context_indices: list[int] | None = None

    def index_of(self, entry_id: str | None, before: int | None = None) -> int:
        """Path index of an entry id, -1 when absent; with `before`, searched backwards from there first.

        Ids on a path are unique (readers rename duplicates), so the backward search
        finds what pi's findIndex finds, usually within a few entries of a compaction.
        """
        if entry_id is None:
            return -1
        if entry_id not in self._found:
            found = -1
            if before is not None:
                path = self.path
                for i in range(min(before, self.n) - 1, -1, -1):
                    if path[i].id == entry_id:
                        found = i
                        break
            else:
                if self._ids is None:
                    self._ids = [e.id for e in self.path]
                if entry_id in self._ids:
                    found = self._ids.index(entry_id)
            self._found[entry_id] = found
        return self._found[entry_id]

    def context(self) -> list[int]:
        """Path indices of the context as it stands (see core.engine.context.context_indices)."""
        if self._context_indices is None:
            self._context_indices = context_indices(self.path)
        return self._context_indices

    def context_estimate(self) -> ContextEstimate:
        """pi's estimateContextTokens over the current context (buildSessionContext), from prefix sums.

        The context is the latest compaction's summary, its kept entries [firstKept, c)
        and everything after it; the scan for the last usable usage record walks back
        over message entries only until it finds one.
        """
        if self._context is None:
            n = self.n
            cp = self.context_prefix
            cc = self.context_count
            tokens = self.tokens
            path = self.path
            compaction = self.compactions[-1] if self.compactions else -1
            kept_from = -1
            head_tokens = head_count = 0
            if compaction >= 0:
                record = path[compaction].compaction
                kept_from = self.index_of(record.firstKeptEntryId if record is not None else None, before=compaction)
                head_tokens, head_count = tokens[compaction], 1
            after = compaction + 1  # the whole path when there is no compaction
            after_tokens = cp[n] - cp[after]
            kept_tokens = cp[compaction] - cp[kept_from] if kept_from >= 0 else 0
            kept_count = cc[compaction] - cc[kept_from] if kept_from >= 0 else 0
            estimate: ContextEstimate | None = None
            messages = self.messages
            k = len(messages) - 1
            while k >= 0:
                i = messages[k]
                k -= 1
                if i < after and (kept_from < 0 or i < kept_from):
                    break
                if after <= i or kept_from <= i < compaction:
                    message = path[i].message
                    if message is not None and has_valid_usage(message):
                        if i >= after:
                            trailing = cp[n] - cp[i + 1]
                            position = head_count + kept_count + cc[i] - cc[after]
                        else:
                            trailing = cp[compaction] - cp[i + 1] + after_tokens
                            position = head_count + cc[i] - cc[kept_from]
                        usage_tokens = message.usage.context_tokens if message.usage is not None else 0
                        estimate = ContextEstimate(
                            tokens=usage_tokens + trailing,
                            usageTokens=usage_tokens,
                            trailingTokens=trailing,
                            lastUsageIndex=position,
                            counter=self.counter,
                        )
                        break
            if estimate is None:
                total = head_tokens + kept_tokens + after_tokens
                estimate = ContextEstimate(
                    tokens=total, usageTokens=0, trailingTokens=total, lastUsageIndex=None, counter=self.counter
                )
            self._context = estimate
        return self._context

    # -- range queries ------------------------------------------------------

    def is_cut_point(self, i: int) -> bool:
        """Whether pi may start the kept part at path index i."""
        k = bisect_left(self.cut_points, i)
        return k < len(self.cut_points) and self.cut_points[k] == i

    @staticmethod
    def count_in(sorted_indices: list[int], start: int, stop: int) -> int:
        if stop <= start:
            return 0
        return bisect_left(sorted_indices, stop) - bisect_left(sorted_indices, start)

    def tokens_in(self, start: int, stop: int) -> int:
        """Message-entry tokens in start..stop-1."""
        if stop <= start:
            return 0
        return self.prefix[stop] - self.prefix[start]

    def producer_tokens_in(self, start: int, stop: int) -> int:
        """Tokens of every entry in range that gives a message (custom_message and branch_summary too)."""
        if stop <= start:
            return 0
        return self.producer_prefix[stop] - self.producer_prefix[start]


def index_path(path: list[Entry], tokens: list[int] | None = None, counter: str = "chars4") -> PathIndex:
    """Build the settings-independent index of a path (tokens default to the counter's per-entry counts)."""
    if tokens is None:
        from cutline.core.tokens import path_tokens

        tokens = path_tokens(path, counter)
    return PathIndex(path, tokens, counter)


# ---------------------------------------------------------------------------
# pi's cut point
# ---------------------------------------------------------------------------


class CutPoint(BaseModel):
    """findCutPoint's answer plus where the walk crossed and where the cut was before moving back."""

    firstKeptIndex: int
    turnStartIndex: int
    isSplitTurn: bool
    crossingIndex: int | None
    candidateIndex: int | None
    fellBack: bool
    movedOver: list[int]


def find_cut_point(index: PathIndex, start: int, end: int, keep_recent_tokens: int) -> CutPoint:
    """pi's findCutPoint over path[start:end] with prefix sums and binary search instead of a walk."""
    if end != index.n:
        raise ValueError("find_cut_point plans the whole path: end must be the path length")
    cuts = index.cut_points
    lo = bisect_left(cuts, start)
    if lo >= len(cuts):
        return CutPoint(
            firstKeptIndex=start,
            turnStartIndex=-1,
            isSplitTurn=False,
            crossingIndex=None,
            candidateIndex=None,
            fellBack=True,
            movedOver=[],
        )
    cut = cuts[lo]
    crossing: int | None = None
    fell_back = True
    prefix = index.prefix
    total = prefix[end]
    # the walk's running sum at message i is total - prefix[i]; find the last i where it reaches keep
    j = bisect_right(prefix, total - keep_recent_tokens, 0, end) - 1  # largest j < end with prefix[j] <= total-keep
    if j >= start:
        messages = index.messages
        k = bisect_right(messages, j) - 1  # the message at or before j
        if k >= 0 and messages[k] >= start:
            crossing = messages[k]
            c = bisect_left(cuts, crossing)
            if c < len(cuts):
                cut = cuts[c]
                fell_back = False
    candidate = cut
    # move back over non-message entries, stopping at a message or a compaction
    barriers = index.barriers
    b = bisect_left(barriers, cut) - 1
    previous_barrier = barriers[b] if b >= 0 else -1
    if cut > start:
        cut = max(start, previous_barrier + 1)
    moved_over = list(range(cut, candidate))
    entry = index.path[cut]
    is_user = entry.type == "message" and entry.message is not None and entry.message.role == "user"
    turn_start = -1
    if not is_user:
        t = bisect_right(index.turn_starts, cut) - 1
        if t >= 0 and index.turn_starts[t] >= start:
            turn_start = index.turn_starts[t]
    return CutPoint(
        firstKeptIndex=cut,
        turnStartIndex=turn_start,
        isSplitTurn=not is_user and turn_start != -1,
        crossingIndex=crossing,
        candidateIndex=candidate,
        fellBack=fell_back,
        movedOver=moved_over,
    )


# ---------------------------------------------------------------------------
# Explanation helpers
# ---------------------------------------------------------------------------


def _n(value: int) -> str:
    return f"{value:,}"


def _describe_entry(index: PathIndex, i: int) -> str:
    entry = index.path[i]
    label = _role_label(entry)
    if entry.type == "message":
        return f"a {label} message"
    return f"a {label} entry"


def _moved_over_text(index: PathIndex, moved: list[int]) -> str:
    counts: dict[str, int] = {}
    for i in moved:
        entry = index.path[i]
        if entry.isCompactSummary:
            kind = "compact-summary record"
        elif entry.isSidechain:
            kind = "sidechain record"
        elif entry.type == "message":
            kind = "empty message entry"
        else:
            kind = f"{entry.type} entry"
        counts[kind] = counts.get(kind, 0) + 1
    parts = [f"{count} {kind}" + ("" if count == 1 else "s") for kind, count in counts.items()]
    return ", ".join(p.replace("entrys", "entries") for p in parts)


def _range_text(start: int, stop: int) -> str:
    if stop - start <= 0:
        return "nothing"
    if stop - start == 1:
        return f"path index {start}"
    return f"path indices {start}..{stop - 1}"


# ---------------------------------------------------------------------------
# Planning
# ---------------------------------------------------------------------------


def _budget(settings: CompactionSettings, index: PathIndex) -> tuple[int, str, int]:
    model = None
    for i in range(index.n - 1, -1, -1):
        entry = index.path[i]
        if entry.type == "message" and entry.message is not None and entry.message.role == "assistant":
            model = entry.message.model
            break
    window = resolve_context_window(settings, model)
    return window.tokens, window.source, reserve_for(settings)


def _file_lists(index: PathIndex, start: int, stop: int, previous: int) -> dict[str, list[str]]:
    read: set[str] = set()
    written: set[str] = set()
    edited: set[str] = set()
    if previous >= 0:
        record = index.path[previous].compaction
        details = record.details if record is not None else None
        if record is not None and not record.fromHook and isinstance(details, dict) and details:
            if isinstance(details.get("readFiles"), list):
                read.update(f for f in details["readFiles"] if isinstance(f, str))
            if isinstance(details.get("modifiedFiles"), list):
                edited.update(f for f in details["modifiedFiles"] if isinstance(f, str))
    lo = bisect_left(index.fileop_index, start)
    hi = bisect_left(index.fileop_index, stop)
    targets = (read, written, edited)
    kinds = index.fileop_kind
    paths = index.fileop_path
    for k in range(lo, hi):
        targets[kinds[k]].add(paths[k])
    modified = written | edited
    read_sorted = js_sorted(read)
    return {
        "readFiles": read_sorted,
        "writtenFiles": js_sorted(written),
        "editedFiles": js_sorted(edited),
        "modifiedFiles": js_sorted(modified),
        "readOnlyFiles": [f for f in read_sorted if f not in modified],
    }


def _trigger_step(estimate: ContextEstimate, window: int, reserve: int, source: str) -> ExplanationStep:
    threshold = window - reserve
    if estimate.lastUsageIndex is not None:
        how = (
            f"last assistant usage {_n(estimate.usageTokens)} + {estimate.counter} estimate "
            f"{_n(estimate.trailingTokens)} of the messages after it"
        )
    else:
        how = f"{estimate.counter} estimates of every context message (no usage record)"
    verdict = "would trigger" if estimate.tokens > threshold else "would not trigger yet"
    return ExplanationStep(
        step="trigger",
        text=(
            f"context window {_n(window)} ({source}) − reserve {_n(reserve)} = threshold {_n(threshold)}; "
            f"context is {_n(estimate.tokens)} tokens ({how}); compaction {verdict} "
            f"({_n(estimate.tokens)} {'>' if estimate.tokens > threshold else '<='} {_n(threshold)})"
        ),
        data={"contextWindow": window, "reserveTokens": reserve, "threshold": threshold, "tokens": estimate.tokens},
    )


def _pi_plan(index: PathIndex, settings: CompactionSettings, entry_tokens: bool) -> CompactionPlan:
    n = index.n
    path = index.path
    window, source, reserve = _budget(settings, index)
    keep = settings.keepRecentTokens
    base: dict[str, Any] = dict(
        mode=settings.mode,
        counter=index.counter,
        pathLength=n,
        contextWindow=window,
        contextWindowSource=source,
        reserveTokens=reserve,
        threshold=window - reserve,
        keepRecentTokens=keep,
        entryTokens=index.tokens if entry_tokens else [],
    )
    if n == 0:
        return CompactionPlan(
            **base,
            nothingToCompact=True,
            explanation=[ExplanationStep(step="empty", text="the path is empty: nothing to compact")],
        )
    estimate = index.context_estimate()
    steps: list[ExplanationStep] = [_trigger_step(estimate, window, reserve, source)]
    should = should_compact(estimate.tokens, window, reserve, settings.enabled)
    if path[-1].type == "compaction":
        steps.append(
            ExplanationStep(
                step="already-compacted",
                pathIndex=n - 1,
                text=f"the last entry (path index {n - 1}) is a compaction: pi has nothing to prepare",
            )
        )
        return CompactionPlan(
            **base,
            alreadyCompacted=True,
            tokensBefore=estimate.tokens,
            contextEstimate=estimate,
            previousCompactionIndex=n - 1,
            shouldCompact=False,
            explanation=steps,
        )
    previous = index.compactions[-1] if index.compactions else -1
    previous_summary: str | None = None
    start = 0
    if previous >= 0:
        record = path[previous].compaction
        previous_summary = record.summary if record is not None else ""
        kept_at = index.index_of(record.firstKeptEntryId if record is not None else None, before=previous)
        start = kept_at if kept_at >= 0 else previous + 1
        steps.append(
            ExplanationStep(
                step="boundary",
                pathIndex=start,
                text=(
                    f"previous compaction at path index {previous}"
                    + (f" kept from path index {kept_at}" if kept_at >= 0 else " kept nothing before it")
                    + f": the window starts at path index {start} and its summary is the previous summary"
                ),
                data={"previousCompactionIndex": previous, "boundaryStart": start},
            )
        )
    else:
        steps.append(
            ExplanationStep(
                step="boundary",
                pathIndex=0,
                text="no previous compaction: the window starts at path index 0",
                data={"boundaryStart": 0},
            )
        )
    cut = find_cut_point(index, start, n, keep)
    window_tokens = index.tokens_in(start, n)
    if cut.crossingIndex is None:
        if cut.candidateIndex is None:
            steps.append(
                ExplanationStep(
                    step="walk",
                    text=f"no valid cut point after path index {start}: the cut stays at {start}",
                )
            )
        else:
            steps.append(
                ExplanationStep(
                    step="walk",
                    pathIndex=cut.candidateIndex,
                    text=(
                        f"walked back from path index {n - 1} summing {index.counter} estimates of message entries; "
                        f"never reached {_n(keep)} (the window holds {_n(window_tokens)}): pi keeps everything from "
                        f"the first valid cut point {cut.candidateIndex} ({_role_label(path[cut.candidateIndex])})"
                    ),
                    data={"windowTokens": window_tokens},
                )
            )
    else:
        crossing = cut.crossingIndex
        reached = index.tokens_in(crossing, n)
        valid = index.is_cut_point(crossing)
        steps.append(
            ExplanationStep(
                step="walk",
                pathIndex=crossing,
                text=(
                    f"walked back from path index {n - 1} summing {index.counter} estimates of message entries; "
                    f"reached {_n(keep)} at path index {crossing} ({_n(reached)} tokens; "
                    f"{_describe_entry(index, crossing)}, {'a valid cut point' if valid else 'not a valid cut point'})"
                ),
                data={"crossingPathIndex": crossing, "accumulated": reached},
            )
        )
        if cut.fellBack:
            steps.append(
                ExplanationStep(
                    step="cut",
                    pathIndex=cut.candidateIndex,
                    text=(
                        f"no valid cut point at or after {crossing}: pi falls back to the first valid cut point "
                        f"{cut.candidateIndex} ({_role_label(path[cut.candidateIndex or 0])})"
                    ),
                )
            )
        elif cut.candidateIndex != crossing:
            steps.append(
                ExplanationStep(
                    step="cut",
                    pathIndex=cut.candidateIndex,
                    text=(
                        f"moved to the next valid cut point {cut.candidateIndex} "
                        f"({_role_label(path[cut.candidateIndex or 0])})"
                    ),
                )
            )
    if cut.movedOver:
        steps.append(
            ExplanationStep(
                step="move-back",
                pathIndex=cut.firstKeptIndex,
                text=f"moved back over {_moved_over_text(index, cut.movedOver)}: the cut is at path index {cut.firstKeptIndex}",
                data={"movedOver": cut.movedOver},
            )
        )
    first = cut.firstKeptIndex
    history_end = cut.turnStartIndex if cut.isSplitTurn else first
    if cut.isSplitTurn:
        steps.append(
            ExplanationStep(
                step="split-turn",
                pathIndex=cut.turnStartIndex,
                text=(
                    f"cut is mid-turn: the turn starts at {cut.turnStartIndex} ({_role_label(path[cut.turnStartIndex])}), "
                    f"so {cut.turnStartIndex}..{first - 1} is the turn prefix (summarized on its own)"
                ),
            )
        )
    else:
        entry = path[first]
        if entry.type == "message" and entry.message is not None and entry.message.role == "user":
            steps.append(
                ExplanationStep(step="split-turn", text=f"the cut is at a user message ({first}): no turn is split")
            )
        else:
            steps.append(
                ExplanationStep(
                    step="split-turn",
                    text=f"no user message starts a turn between {start} and {first}: no turn is split",
                )
            )
    summarized = index.count_in(index.producers, start, history_end)
    prefix_count = index.count_in(index.producers, cut.turnStartIndex, first) if cut.isSplitTurn else 0
    kept = index.count_in(index.producers, first, n)
    summarized_tokens = index.producer_tokens_in(start, history_end)
    prefix_tokens = index.producer_tokens_in(cut.turnStartIndex, first) if cut.isSplitTurn else 0
    kept_tokens = index.producer_tokens_in(first, n)
    files = _file_lists(index, start, first, previous)
    steps.append(
        ExplanationStep(
            step="result",
            pathIndex=first,
            text=(
                f"summarize {_range_text(start, history_end)} ({summarized} messages, {_n(summarized_tokens)} tokens)"
                + (
                    f"; turn prefix {_range_text(cut.turnStartIndex, first)} ({prefix_count} messages, {_n(prefix_tokens)} tokens)"
                    if cut.isSplitTurn
                    else ""
                )
                + f"; keep {_range_text(first, n)} ({kept} messages, {_n(kept_tokens)} tokens)"
            ),
        )
    )
    if settings.mode == "safeguard":
        share = history_share(estimate.tokens, window, settings.maxHistoryShare)
        base["historyBudgetTokens"] = share.budgetTokens
        base["historyExceedsShare"] = share.exceeds
        steps.append(
            ExplanationStep(
                step="history-share",
                text=(
                    f"safeguard: history {_n(share.historyTokens)} tokens against a budget of {_n(share.budgetTokens)} "
                    f"({share.maxHistoryShare:g} of the window): "
                    + (
                        "over budget, the oldest chunks are dropped and summarized first"
                        if share.exceeds
                        else "within budget"
                    )
                ),
            )
        )
    # every field is built here from typed values: skip re-validating a 100k-entry token list
    return CompactionPlan.model_construct(
        **base,
        firstKeptEntryId=path[first].id,
        firstKeptPathIndex=first,
        isSplitTurn=cut.isSplitTurn,
        turnStartPathIndex=cut.turnStartIndex if cut.isSplitTurn else None,
        tokensBefore=estimate.tokens,
        contextEstimate=estimate,
        boundaryStart=start,
        previousCompactionIndex=previous if previous >= 0 else None,
        previousSummary=previous_summary,
        summarizeSpans=[Span(start=start, stop=history_end)] if history_end > start else [],
        # pi can report a split turn with an empty prefix (the cut entry itself starts the turn)
        turnPrefixSpans=[Span(start=cut.turnStartIndex, stop=first)]
        if cut.isSplitTurn and first > cut.turnStartIndex
        else [],
        keptSpans=[Span(start=first, stop=n)],
        messagesToSummarize=summarized,
        turnPrefixMessages=prefix_count,
        keptMessages=kept,
        summarizedTokens=summarized_tokens,
        turnPrefixTokens=prefix_tokens,
        keptTokens=kept_tokens,
        shouldCompact=should,
        crossingPathIndex=cut.crossingIndex,
        cutCandidatePathIndex=cut.candidateIndex,
        explanation=steps,
        **files,
    )


def _is_tool_result(message: Message | None) -> bool:
    return message is not None and (message.role == "toolResult" or _carries_tool_results(message))


def _spans(indices: list[int]) -> list[Span]:
    """Ascending path indices as spans of consecutive runs."""
    spans: list[Span] = []
    for i in indices:
        if spans and spans[-1].stop == i:
            spans[-1].stop = i + 1
        else:
            spans.append(Span(start=i, stop=i + 1))
    return spans


def _first_and_tail_plan(index: PathIndex, settings: CompactionSettings, entry_tokens: bool) -> CompactionPlan:
    """compaction-design-single-pass.md: keep message 0 and the last N, summarize the middle zone."""
    path = index.path
    n = index.n
    window, source, reserve = _budget(settings, index)
    ctx = index.context()
    messages = [entry_message(path[i]) for i in ctx]
    total = sum(index.tokens[i] for i in ctx)
    threshold = settings.compactionThresholdTokens
    tail = settings.protectedTailMessages
    count = len(ctx)
    start = 1
    end = count - tail
    pulled = 0
    while end > start + 1 and end < count and _is_tool_result(messages[end]):
        end -= 1  # pull the boundary back so the tool call stays with its result
        pulled += 1
    zone = max(0, end - start)
    over = total > threshold
    steps = [
        ExplanationStep(
            step="trigger",
            text=(
                f"{index.counter} estimate of all {count} context messages is {_n(total)} tokens; threshold "
                f"{_n(threshold)}: compaction {'would trigger' if over else 'would not trigger yet'} "
                f"({_n(total)} {'>' if over else '<='} {_n(threshold)})"
            ),
            data={"tokens": total, "threshold": threshold},
        ),
        ExplanationStep(
            step="protect",
            text=(
                f"message 0 (the original request) and the last {tail} messages are protected; the compaction zone is "
                f"messages 1..{max(start, end) - 1}"
                + (f" after pulling the boundary back {pulled} so no tool result loses its call" if pulled else "")
            ),
        ),
    ]
    enough = zone >= 2
    if not enough:
        steps.append(
            ExplanationStep(
                step="zone",
                text=f"the zone has {zone} message{'s' if zone != 1 else ''} (needs at least 2): nothing to compact",
            )
        )
    zone_indices = ctx[start:end] if enough else []
    kept_indices = ([ctx[0]] if ctx else []) + (ctx[end:] if enough else ctx[1:])
    first_kept = ctx[end] if enough and end < count else None
    summarized_tokens = sum(index.tokens[i] for i in zone_indices)
    kept_tokens = sum(index.tokens[i] for i in kept_indices)
    if enough:
        steps.append(
            ExplanationStep(
                step="result",
                text=(
                    f"summarize messages 1..{end - 1} ({zone} messages, {_n(summarized_tokens)} tokens); keep message 0 "
                    f"and messages {end}..{count - 1} ({_n(kept_tokens)} tokens); the summary is merged into message 0"
                ),
            )
        )
    files = _file_lists(index, zone_indices[0], zone_indices[-1] + 1, -1) if zone_indices else {}
    return CompactionPlan(
        mode=settings.mode,
        counter=index.counter,
        pathLength=n,
        alreadyCompacted=bool(n) and path[-1].type == "compaction",
        nothingToCompact=not enough,
        firstKeptEntryId=path[first_kept].id if first_kept is not None else None,
        firstKeptPathIndex=first_kept,
        tokensBefore=total,
        contextEstimate=index.context_estimate() if n else None,
        summarizeSpans=_spans(zone_indices),
        keptSpans=_spans(kept_indices),
        messagesToSummarize=len(zone_indices),
        keptMessages=len(kept_indices),
        summarizedTokens=summarized_tokens,
        keptTokens=kept_tokens,
        shouldCompact=settings.enabled and over and enough,
        contextWindow=window,
        contextWindowSource=source,
        reserveTokens=reserve,
        threshold=threshold,
        keepRecentTokens=settings.keepRecentTokens,
        protectedHeadPathIndex=ctx[0] if ctx else None,
        entryTokens=index.tokens if entry_tokens else [],
        explanation=steps,
        **files,
    )


def clean_history(messages: list[Message]) -> list[Message]:
    """context-compaction-go.md's cleaning: every tool call gets a result ("Tool no response" when missing)
    right after its assistant message, and the history never ends on a tool result ("Understood." follows)."""
    cleaned: list[Message] = []
    i = 0
    count = len(messages)
    while i < count:
        message = messages[i]
        cleaned.append(message)
        i += 1
        calls = message.tool_calls() if message.role == "assistant" else []
        if not calls:
            continue
        answered: set[str] = set()
        while i < count and _is_tool_result(messages[i]):
            answered.update(messages[i].tool_result_ids())
            cleaned.append(messages[i])
            i += 1
        for call in calls:
            if call.id not in answered:
                cleaned.append(
                    Message(
                        role="toolResult",
                        toolCallId=call.id,
                        toolName=call.name,
                        content=[TextBlock(text="Tool no response")],
                    )
                )
                answered.add(call.id)
    if cleaned and _is_tool_result(cleaned[-1]):
        cleaned.append(Message(role="assistant", content=[TextBlock(text="Understood.")]))
    return cleaned


def _system_and_summary_plan(index: PathIndex, settings: CompactionSettings, entry_tokens: bool) -> CompactionPlan:
    """context-compaction-go.md: keep the system prompt and one user message (summary + last request)."""
    path = index.path
    n = index.n
    window, source, reserve = _budget(settings, index)
    ctx = index.context()
    messages = [entry_message(path[i]) for i in ctx]
    estimate = (
        index.context_estimate()
        if n
        else ContextEstimate(tokens=0, usageTokens=0, trailingTokens=0, lastUsageIndex=None)
    )
    threshold = settings.threshold
    over = threshold > 0 and estimate.tokens >= threshold
    system = [i for i, m in zip(ctx, messages) if m is not None and m.role == "system"][:1]
    last_user: int | None = None
    last_request: str | None = None
    for i, message in zip(reversed(ctx), reversed(messages)):
        if message is not None and message.role == "user" and not _carries_tool_results(message):
            text = text_of(message)
            if text:
                last_user, last_request = i, text
                break
    rest = [m for i, m in zip(ctx, messages) if m is not None and i not in system]
    cleaned = clean_history(rest)
    filled = sum(1 for m in cleaned if m.role == "toolResult" and m.text() == "Tool no response") - sum(
        1 for m in rest if m.role == "toolResult" and m.text() == "Tool no response"
    )
    summarize_indices = [i for i in ctx if i not in system]
    steps = [
        ExplanationStep(
            step="trigger",
            text=(
                f"context is {_n(estimate.tokens)} tokens; threshold {_n(threshold)}"
                + (" (0: auto-compaction off)" if threshold == 0 else "")
                + f": compaction {'would trigger' if over else 'would not trigger'} "
                + (f"({_n(estimate.tokens)} >= {_n(threshold)})" if over else "")
            ).rstrip(),
        ),
        ExplanationStep(
            step="clean",
            text=(
                f'cleaned history: {filled} missing tool result{"s" if filled != 1 else ""} filled with "Tool no response"'
                + (
                    '; "Understood." appended after a trailing tool result'
                    if cleaned and rest and cleaned[-1] is not rest[-1] and cleaned[-1].text() == "Understood."
                    else ""
                )
            ),
            data={"filledToolResults": filled, "cleanedMessages": len(cleaned)},
        ),
        ExplanationStep(
            step="result",
            text=(
                f"summarize all {len(cleaned)} messages; keep "
                + ("the system prompt and " if system else "")
                + 'one user message: the summary + "Last request from user was: …"'
                + (f" (path index {last_user})" if last_user is not None else " (no user request found)")
            ),
        ),
    ]
    return CompactionPlan(
        mode=settings.mode,
        counter=index.counter,
        pathLength=n,
        alreadyCompacted=bool(n) and path[-1].type == "compaction",
        nothingToCompact=not rest,
        tokensBefore=estimate.tokens,
        contextEstimate=estimate,
        summarizeSpans=_spans(summarize_indices),
        keptSpans=_spans(system),
        messagesToSummarize=len(cleaned),
        keptMessages=len(system),
        summarizedTokens=sum(index.tokens[i] for i in summarize_indices),
        keptTokens=sum(index.tokens[i] for i in system),
        shouldCompact=settings.enabled and over and bool(rest),
        contextWindow=window,
        contextWindowSource=source,
        reserveTokens=reserve,
        threshold=threshold,
        keepRecentTokens=settings.keepRecentTokens,
        lastUserPathIndex=last_user,
        lastUserRequest=last_request,
        entryTokens=index.tokens if entry_tokens else [],
        explanation=steps,
        **(_file_lists(index, 0, n, -1) if n else {}),
    )


def plan(
    path: list[Entry] | PathIndex,
    settings: CompactionSettings | None = None,
    counter: str = "chars4",
    tokens: list[int] | None = None,
    *,
    entry_tokens: bool = True,
    rules: str | None = None,
) -> CompactionPlan:
    """Plan a compaction of a path under the settings' mode; `tokens` are per-entry counts from `counter`.

    Pass a `PathIndex` (from `index_path`) to re-plan the same path cheaply. `rules`
    overrides the planner rule set the session and the settings would choose.
    """
    settings = settings or CompactionSettings()
    index = path if isinstance(path, PathIndex) else index_path(path, tokens, counter)
    if settings.mode == "first-and-tail":
        result = _first_and_tail_plan(index, settings, entry_tokens)
    elif settings.mode == "system-and-summary":
        result = _system_and_summary_plan(index, settings, entry_tokens)
    else:
        from cutline.core.engine.rules.registry import plan_with_rules

        result = plan_with_rules(index, settings, entry_tokens, rules)
    return _with_window_guard(result)


def _with_window_guard(result: CompactionPlan) -> CompactionPlan:
    """Attach OpenClaw's context-window guard; a window it warns about or blocks gets an explanation step too."""
    source = result.contextWindowSource if result.contextWindowSource in ("config", "model", "default") else "default"
    guard = guard_context_window(result.contextWindow, source)  # type: ignore[arg-type]
    result.windowGuard = guard
    if guard.shouldBlock:
        verdict = (
            f"below the hard minimum of {_n(CONTEXT_WINDOW_HARD_MIN_TOKENS)} tokens: OpenClaw's window guard blocks it "
            f"(block below {_n(CONTEXT_WINDOW_HARD_MIN_TOKENS)}, warn below {_n(CONTEXT_WINDOW_WARN_BELOW_TOKENS)})"
        )
    elif guard.shouldWarn:
        verdict = (
            f"below {_n(CONTEXT_WINDOW_WARN_BELOW_TOKENS)} tokens: OpenClaw's window guard warns that it is small "
            f"(block below {_n(CONTEXT_WINDOW_HARD_MIN_TOKENS)}, warn below {_n(CONTEXT_WINDOW_WARN_BELOW_TOKENS)})"
        )
    else:
        return result
    result.explanation.insert(
        0,
        ExplanationStep(
            step="window-guard",
            text=f"context window {_n(guard.tokens)} ({guard.source}) is {verdict}",
            data={"contextWindow": guard.tokens, "shouldWarn": guard.shouldWarn, "shouldBlock": guard.shouldBlock},
        ),
    )
    return result


def plan_session(
    store: Any,
    session: Any,
    settings: CompactionSettings | None = None,
    counter: str = "chars4",
    rules: str | None = None,
) -> CompactionPlan:
    """Plan a stored session's active path with the store's cached (and incrementally counted) tokens."""
    from cutline.core.engine.rules.registry import evidence
    from cutline.core.tokens import count_entries

    counts = count_entries(store, session, counter)
    path = session.active_path()
    if rules is None:
        rules = evidence(path, getattr(session, "format", None), getattr(session, "version", None))
    return plan(path, settings, counter, [counts.get(e.id, 0) for e in path], rules=rules)
