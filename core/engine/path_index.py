"""The settings-independent index of a session path: prefix sums and sorted positions, so a plan is a few binary searches.

pi walks back over the entries once per plan. A `PathIndex` holds prefix sums and
sorted lists of cut points, turn starts and file operations instead, so the review
desk can re-plan while a person drags a setting.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from itertools import accumulate
from typing import Any

from cutline.core.agents.boundaries import continues_message
from cutline.core.agents.index_facts import (
    ASSISTANT,
    BRANCH_TEXT,
    CUT_POINT,
    IN_CONTEXT,
    PI_CURRENT_SIGN,
    RESET,
    TURN_START,
    VALID_USAGE,
)
from cutline.core.engine.context import ContextEstimate, branch_summary_text, context_indices, has_valid_usage
from cutline.core.models import Entry, Message, ToolResultBlock

# roles pi accepts as the first kept message (never a toolResult: it must follow its call)
_CUT_ROLES = frozenset({"bashExecution", "custom", "branchSummary", "compactionSummary", "user", "assistant"})
_TURN_START_ROLES = frozenset({"user", "bashExecution"})
_FILE_TOOLS = {"read": 0, "write": 1, "edit": 2}


def carries_tool_results(message: Message) -> bool:
    """Whether a message carries tool results (pi's toolResult, or a Claude Code user record holding them)."""
    return any(isinstance(b, ToolResultBlock) for b in message.content)


def role_label(entry: Entry) -> str:
    """A message entry's role, else the entry's type."""
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
        for i, entry in enumerate(path):
            kind = entry.type
            if kind == "message":
                message = entry.message
                if message is None or entry.isSidechain or entry.isCompactSummary:
                    continue  # never in context (Claude Code sidechains, compact-summary records)
                message_tokens[i] = producer_tokens[i] = context_tokens[i] = tokens[i]
                context_flags[i] = 1
                self._add_message(i, message)
            elif kind == "compaction":
                self.barriers.append(i)
                self.compactions.append(i)
            elif kind in {"branch_summary", "custom_message"}:
                self.cut_points.append(i)
                self.turn_starts.append(i)
                self.producers.append(i)
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
        self._usage: dict[int, int] | None = None  # from stored facts: valid usage tokens by path index
        self._first_kept: dict[int, str] | None = None  # from stored facts: a compaction's firstKeptEntryId
        self.evidence_flags: tuple[bool, bool] | None = (
            None  # from stored facts: (an OpenClaw reset, a current-pi sign)
        )

    @classmethod
    def from_facts(
        cls,
        path: Sequence[Entry],
        tokens: list[int],
        counter: str,
        ids: list[str],
        kinds: list[str],
        facts: list[dict[str, Any]],
    ) -> PathIndex:
        """The same index built from each entry's stored facts (core.agents.index_facts); `path` is read only where a plan looks.

        Why: a 100,000-entry path is planned from a few bytes per entry; `path` may be a
        lazy sequence (the review desk's rows read from the store as needed).
        """
        n = len(ids)
        if not len(tokens) == len(kinds) == len(facts) == n == len(path):
            raise ValueError(f"{len(tokens)} token counts, {len(facts)} facts for {n} path entries")
        index = cls.__new__(cls)
        index.path = path  # type: ignore[assignment]
        index.tokens = tokens
        index.counter = counter
        index.n = n
        message_tokens = [0] * n
        producer_tokens = [0] * n
        context_tokens = [0] * n
        context_flags = [0] * n
        index.messages, index.cut_points, index.turn_starts, index.barriers = [], [], [], []
        index.producers, index.compactions = [], []
        index.fileop_index, index.fileop_kind, index.fileop_path = [], [], []
        usage: dict[int, int] = {}
        first_kept: dict[int, str] = {}
        reset = current = False
        for i, kind in enumerate(kinds):
            fact = facts[i]
            flags = fact["f"]
            reset = reset or bool(flags & RESET)
            current = current or bool(flags & PI_CURRENT_SIGN)
            if kind == "message":
                if not flags & IN_CONTEXT:
                    continue
                message_tokens[i] = producer_tokens[i] = context_tokens[i] = tokens[i]
                context_flags[i] = 1
                index.barriers.append(i)
                index.messages.append(i)
                index.producers.append(i)
                if flags & VALID_USAGE:
                    usage[i] = fact["u"]
                if not flags & CUT_POINT:
                    continue
                index.cut_points.append(i)
                if flags & TURN_START:
                    index.turn_starts.append(i)
                elif flags & ASSISTANT:
                    for op_kind, op_path in fact.get("o", ()):
                        index.fileop_index.append(i)
                        index.fileop_kind.append(op_kind)
                        index.fileop_path.append(op_path)
            elif kind == "compaction":
                index.barriers.append(i)
                index.compactions.append(i)
                if "k" in fact:
                    first_kept[i] = fact["k"]
            elif kind in {"branch_summary", "custom_message"}:
                index.cut_points.append(i)
                index.turn_starts.append(i)
                index.producers.append(i)
                producer_tokens[i] = tokens[i]
                if kind == "custom_message" or flags & BRANCH_TEXT:
                    context_tokens[i] = tokens[i]
                    context_flags[i] = 1
        index.prefix = [0, *accumulate(message_tokens)]
        index.producer_prefix = [0, *accumulate(producer_tokens)]
        index.context_prefix = [0, *accumulate(context_tokens)]
        index.context_count = [0, *accumulate(context_flags)]
        index._ids = ids
        index._found = {}
        index._context = None
        index._context_indices = None
        index._usage = usage
        index._first_kept = first_kept
        # the session's own evidence for a rule set (core.engine.rules.choice.evidence), from the same facts
        index.evidence_flags = (reset, current)
        return index

    def retokened(self, tokens: list[int], counter: str) -> PathIndex:
        """The same path's index under another counter's counts: the positions kept, the prefix sums summed again.

        Why: an index built from stored facts need not keep the facts to switch counters.
        """
        n = self.n
        if len(tokens) != n:
            raise ValueError(f"{len(tokens)} token counts for {n} path entries")
        index = PathIndex.__new__(PathIndex)
        index.path = self.path
        index.tokens = tokens
        index.counter = counter
        index.n = n
        for name in ("messages", "cut_points", "turn_starts", "barriers", "producers", "compactions"):
            setattr(index, name, getattr(self, name))
        index.fileop_index, index.fileop_kind, index.fileop_path = self.fileop_index, self.fileop_kind, self.fileop_path
        message_tokens = [0] * n
        producer_tokens = [0] * n
        context_tokens = [0] * n
        for i in self.messages:
            message_tokens[i] = tokens[i]
        for i in self.producers:
            producer_tokens[i] = tokens[i]
        count = self.context_count
        for i in range(n):
            if count[i + 1] != count[i]:
                context_tokens[i] = tokens[i]
        index.prefix = [0, *accumulate(message_tokens)]
        index.producer_prefix = [0, *accumulate(producer_tokens)]
        index.context_prefix = [0, *accumulate(context_tokens)]
        index.context_count = count
        index._ids = self._ids
        index._found = {}
        index._context = None
        index._context_indices = self._context_indices
        index._usage = self._usage
        index._first_kept = self._first_kept
        index.evidence_flags = self.evidence_flags
        return index

    def _add_message(self, i: int, message: Message) -> None:
        """Record a message entry that reaches the model: a barrier, maybe a cut point, turn start or file operations."""
        self.barriers.append(i)
        self.messages.append(i)
        self.producers.append(i)
        role = message.role
        if role not in _CUT_ROLES or (role == "user" and carries_tool_results(message)):
            return  # Claude Code: tool results ride in user records; treat like pi's toolResult
        if continues_message(message):
            return  # a later record of one API message (core.agents.boundaries): never the first kept
        self.cut_points.append(i)
        if role in _TURN_START_ROLES:
            self.turn_starts.append(i)
        elif role == "assistant":
            self._add_file_ops(i, message)

    def _add_file_ops(self, i: int, message: Message) -> None:
        """Record the read/write/edit tool calls of an assistant message that name a path."""
        for block in message.content:
            if block.type == "toolCall" and block.name in _FILE_TOOLS:
                args = block.arguments
                target = args.get("path") if isinstance(args, dict) else None
                if isinstance(target, str) and target:
                    self.fileop_index.append(i)
                    self.fileop_kind.append(_FILE_TOOLS[block.name])
                    self.fileop_path.append(target)

    def index_of(self, entry_id: str | None, before: int | None = None) -> int:
        """Path index of an entry id, -1 when absent; with `before`, searched backwards from there first.

        Ids on a path are unique (readers rename duplicates), so the backward search
        finds what pi's findIndex finds, usually within a few entries of a compaction.
        """
        if entry_id is None:
            return -1
        if entry_id not in self._found:
            found = -1
            if self._ids is not None:
                if entry_id in self._ids:
                    found = self._ids.index(entry_id)
                    if before is not None and found >= min(before, self.n):
                        found = -1
            elif before is not None:
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
            compaction = self.compactions[-1] if self.compactions else -1
            kept_from = -1
            head_tokens = head_count = 0
            if compaction >= 0:
                kept_from = self.index_of(self.first_kept_id(compaction), before=compaction)
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
                    usage_tokens = self.valid_usage_tokens(i)
                    if usage_tokens is not None:
                        if i >= after:
                            trailing = cp[n] - cp[i + 1]
                            position = head_count + kept_count + cc[i] - cc[after]
                        else:
                            trailing = cp[compaction] - cp[i + 1] + after_tokens
                            position = head_count + cc[i] - cc[kept_from]
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

    def first_kept_id(self, compaction: int) -> str | None:
        """The firstKeptEntryId of the compaction entry at path index `compaction`."""
        if self._first_kept is not None:
            return self._first_kept.get(compaction)
        record = self.path[compaction].compaction
        return record.firstKeptEntryId if record is not None else None

    def valid_usage_tokens(self, i: int) -> int | None:
        """The context tokens of message i's usage when pi trusts it (see has_valid_usage), else None."""
        if self._usage is not None:
            return self._usage.get(i)
        message = self.path[i].message
        if message is None or not has_valid_usage(message) or message.usage is None:
            return None
        return message.usage.context_tokens

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
