"""OpenClaw 2026.9's planner (`openclaw` 2026.9.6, agent-core's prepareCompaction), exactly.

OpenClaw walks the raw path from the previous boundary (a compaction's kept entry, or
everything after a `reset`), counts CJK-aware characters and 2000 tokens an image,
shrinks keepRecentTokens by the ratio of recorded usage to its own estimate, notes the
latest user request, and refuses when no recent message can be kept. See
docs/rules/openclaw-2026.9.md.
"""

from __future__ import annotations

from typing import Any

from cutline.core.agents.boundaries import continues_message
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan, ExplanationStep
from cutline.core.engine.context import ContextEstimate, entry_message
from cutline.core.engine.path_index import PathIndex
from cutline.core.engine.rules.assemble import Decision, assemble, n
from cutline.core.engine.rules.base import PlanRequest
from cutline.core.engine.rules.estimates import openclaw_content, openclaw_tokens
from cutline.core.engine.rules.walk import Item, Walk
from cutline.core.models import Entry, Message, ToolResultBlock
from cutline.core.tokens.jsjson import js_length

NAME = "openclaw-2026.9"
VERSION = "2026.9.6"
MAX_SAFE_INTEGER = 2**53 - 1
MAX_LATEST_USER_REQUEST_CHARS = 800
TRUNCATED_MARKER = "\n[... latest user request truncated ...]\n"
NO_RECENT_MESSAGE_FITS = (
    "No complete recent message fits beside the foreground prompt, tools, and summary. "
    "Reduce the request or select a larger context window."
)
_CUT_ROLES = frozenset({"user", "assistant", "bashExecution", "branchSummary", "compactionSummary"})
_TURN_ROLES = frozenset({"user", "bashExecution", "branchSummary", "compactionSummary"})
# JavaScript's String.prototype.trim: WhiteSpace and LineTerminator code points
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def _kind(entry: Entry) -> str:
    return entry.sourceType or entry.type if entry.type == "other" else entry.type


def _extra(message: Message) -> dict[str, Any]:
    return message.model_extra or {}


def excluded(message: Message) -> bool:
    """A message OpenClaw keeps out of context and estimates (`excludeFromContext: true`)."""
    return _extra(message).get("excludeFromContext") is True


def entry_message_of(entry: Entry) -> Message | None:
    """projectSessionEntryMessage without compactions (getMessageFromEntryForCompaction)."""
    kind = entry.type
    if kind == "message":
        message = entry.message
        if message is None or entry.isSidechain or entry.isCompactSummary or excluded(message):
            return None
        return message
    if kind in ("custom_message", "branch_summary"):
        return entry_message(entry)
    return None


def _is_carrier(message: Message) -> bool:
    details = _extra(message).get("details")
    return message.role == "custom" and isinstance(details, dict) and details.get("runtimeContextCarrier") is True


def _role(message: Message) -> str:
    if message.role == "user" and any(isinstance(b, ToolResultBlock) for b in message.content):
        return "toolResult"  # Claude Code's tool results ride in user records
    return message.role


def is_cut_point(message: Message) -> bool:
    if continues_message(message):
        return False  # a later record of one API message (core.agents.boundaries)
    role = _role(message)
    return (role == "custom" and not _is_carrier(message)) or role in _CUT_ROLES


def is_turn_start(message: Message) -> bool:
    role = _role(message)
    return (role == "custom" and not _is_carrier(message)) or role in _TURN_ROLES


def _tool_name(value: Any) -> str:
    name = value.lower() if isinstance(value, str) else ""
    separator = name.find("__", 5 if name.startswith("mcp__") else 0)
    return name if separator < 0 else name[separator + 2 :]


def fileops(message: Message) -> list[tuple[int, str]]:
    """OpenClaw's file operations of a message: read/write/edit calls (path, file_path or filePath) and apply_patch results."""
    ops: list[tuple[int, str]] = []
    if message.role == "toolResult":
        if _tool_name(message.toolName) != "apply_patch":
            return ops
        holders: list[Any] = [_extra(message).get("details")]
        holders += [(b.model_extra or {}).get("details") for b in message.content]
        for details in holders:
            summary = details.get("summary") if isinstance(details, dict) else None
            if isinstance(summary, dict):
                for kind, key in ((1, "added"), (2, "modified")):
                    files = summary.get(key)
                    ops += [(kind, f) for f in files if isinstance(f, str)] if isinstance(files, list) else []
        return ops
    if message.role != "assistant":
        return ops
    for block in message.content:
        if block.type != "toolCall":
            continue
        args = block.arguments
        if not isinstance(args, dict):
            continue
        target = next(
            (v for v in (args.get("path"), args.get("file_path"), args.get("filePath")) if isinstance(v, str)), None
        )
        if not target:
            continue
        op = {"read": 0, "write": 1, "edit": 2}.get(_tool_name(block.name))
        if op is not None:
            ops.append((op, target))
    return ops


# ---------------------------------------------------------------------------
# The context OpenClaw sends (buildSessionContext) and its usage-aware estimate
# ---------------------------------------------------------------------------


def _tool_call_ids(message: Message) -> list[tuple[str, str | None]]:
    calls: list[tuple[str, str | None]] = []
    for block in message.content:
        if block.type == "toolCall" and isinstance(block.id, str) and block.id:
            calls.append((block.id, block.name))
    return calls


def _result_id(message: Message) -> str | None:
    extra = _extra(message)
    for value in (message.toolCallId, extra.get("toolUseId"), extra.get("tool_call_id"), extra.get("tool_use_id")):
        if isinstance(value, str) and value.strip():
            return value.strip()
    for value in (extra.get("callId"), extra.get("call_id")):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


_MISSING_RESULT_TEXT = (
    "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair."
)


def _legacy_result(message: Message, calls: list[tuple[str, str | None]]) -> tuple[str | None, bool]:
    """normalizeLegacyToolResultId: a result without an id answers a frame's only call (and becomes an error)."""
    rid = _result_id(message)
    if rid is not None or len(calls) != 1:
        return rid, message.isError
    name = (message.toolName or "").strip() if isinstance(message.toolName, str) else ""
    call_name = (calls[0][1] or "").strip()
    if name and call_name and name != call_name:
        return None, message.isError
    return calls[0][0], True


def _synthetic_result(message: Message, is_error: bool) -> bool:
    if not is_error:
        return False
    details = _extra(message).get("details")
    if isinstance(details, dict) and details.get("openclawSyntheticMissingToolResult") is True:
        return True
    return any(b.type == "text" and b.text == _MISSING_RESULT_TEXT for b in message.content)


def select_reset_kept(entries: list[Entry]) -> list[int]:
    """selectResetKeptEntries: indices of the user/assistant messages and the tool results paired with a call.

    Pairing follows classifyToolUseResultPairing: each assistant with tool calls opens a
    frame up to the next one; a frame's results claim its calls by id, leftovers may
    answer an earlier frame's unanswered call, a real result replaces a synthetic one.
    """
    messages = [(i, e.message) for i, e in enumerate(entries) if e.type == "message" and e.message is not None]
    starts = [k for k, (_, m) in enumerate(messages) if m.role == "assistant" and _tool_call_ids(m)]
    everything: list[list[Any]] = []  # occurrences: [call id, result position or None, result is synthetic]
    unresolved: dict[str, list[list[Any]]] = {}
    for f, start in enumerate(starts):
        calls = _tool_call_ids(messages[start][1])
        occurrences: list[list[Any]] = [[cid, None, False] for cid, _ in calls]
        everything += occurrences
        pending: dict[str, list[list[Any]]] = {}
        for occ in occurrences:
            pending.setdefault(occ[0], []).append(occ)
        stop = starts[f + 1] if f + 1 < len(starts) else len(messages)
        unclaimed: list[tuple[str | None, int, bool]] = []
        for k in range(start + 1, stop):
            pos, message = messages[k]
            if message.role != "toolResult":
                continue
            rid, is_error = _legacy_result(message, calls)
            synthetic = _synthetic_result(message, is_error)
            queue = pending.get(rid) if rid else None
            if queue:
                occ = queue.pop(0)
                occ[1], occ[2] = pos, synthetic
                continue
            if rid is None or all(o[0] != rid for o in occurrences):
                unclaimed.append((rid, pos, synthetic))
                continue
            if not synthetic:
                replaceable = next((o for o in occurrences if o[0] == rid and o[1] is not None and o[2]), None)
                if replaceable is not None:
                    replaceable[1], replaceable[2] = pos, False
        for occ in occurrences:
            if occ[1] is None or occ[2]:
                unresolved.setdefault(occ[0], []).append(occ)
        for rid, pos, synthetic in unclaimed:
            candidates = [o for o in unresolved.get(rid, []) if o[1] is None or (o[2] and not synthetic)] if rid else []
            if len(candidates) == 1:
                candidates[0][1], candidates[0][2] = pos, synthetic
    paired = {occ[1] for occ in everything if occ[1] is not None}
    return [
        i
        for i, e in enumerate(entries)
        if e.type == "message"
        and e.message is not None
        and (e.message.role in ("user", "assistant") or (e.message.role == "toolResult" and i in paired))
    ]


def _index_of(path: list[Entry], entry_id: Any) -> int:
    if not isinstance(entry_id, str):
        return -1
    for i, entry in enumerate(path):
        if entry.id == entry_id:
            return i
    return -1


def _first_kept_id(entry: Entry) -> Any:
    if entry.type == "compaction":
        return entry.compaction.firstKeptEntryId if entry.compaction is not None else None
    return entry.data.get("firstKeptEntryId")


def context_messages(path: list[Entry]) -> list[Message]:
    """buildSessionContext: the latest compaction's summary (a reset gives none), its kept entries, then the rest."""
    boundary = next((i for i in range(len(path) - 1, -1, -1) if _kind(path[i]) in ("reset", "compaction")), -1)
    first_kept = boundary
    reset_kept: set[int] | None = None
    messages: list[Message] = []
    if boundary >= 0:
        found = _index_of(path, _first_kept_id(path[boundary]))
        first_kept = found if 0 <= found < boundary else boundary
        if _kind(path[boundary]) == "reset":
            reset_kept = {first_kept + k for k in select_reset_kept(path[first_kept:boundary])}
        else:
            summary = entry_message(path[boundary])
            if summary is not None:
                messages.append(summary)
    for i, entry in enumerate(path):
        if i == boundary:
            continue
        retained = i < boundary
        if retained and (i < first_kept or (reset_kept is not None and i not in reset_kept)):
            continue
        if entry.type not in ("message", "custom_message", "branch_summary"):
            continue
        kept_by_reset = reset_kept is not None and i in reset_kept
        if entry.type == "message":
            if entry.message is None or entry.isSidechain or entry.isCompactSummary:
                continue
            if excluded(entry.message) and not kept_by_reset:
                continue
            messages.append(entry.message)
            continue
        if entry.type == "branch_summary" and not (entry.message and entry.message.summary):
            continue
        message = entry_message(entry)
        if message is not None:
            messages.append(message)
    return messages


def _context_usage(usage: Any) -> dict[str, Any] | None:
    value = (usage.model_extra or {}).get("contextUsage")
    return value if isinstance(value, dict) else None


def usage_tokens(usage: Any) -> int:
    """calculateContextTokens: the provider's context figure when available, else pi's sum."""
    context = _context_usage(usage)
    if context is not None and context.get("state") == "available":
        total = context.get("totalTokens")
        return total if isinstance(total, int) else 0
    return int(usage.context_tokens)


def _barrier(message: Message) -> bool:
    """isUnavailableContextBarrier: a response whose provider said context usage is unavailable."""
    usage = message.usage
    if message.role != "assistant" or usage is None:
        return False
    context = _context_usage(usage)
    if _extra(message).get("api") == "cli" and context is None:
        return True
    return context is not None and context.get("state") == "unavailable" and usage_tokens(usage) == 0


def estimate_context(messages: list[Message], tokens: list[int], counter: str) -> ContextEstimate:
    """OpenClaw's estimateContextTokens: the last usable usage plus estimates after it (an unavailable barrier ends the search)."""
    for k in range(len(messages) - 1, -1, -1):
        message = messages[k]
        if _barrier(message):
            break
        usage = message.usage
        if (
            message.role == "assistant"
            and usage is not None
            and message.stopReason not in ("aborted", "error")
            and usage_tokens(usage) > 0
            and (_context_usage(usage) or {}).get("state") != "unavailable"
        ):
            used = usage_tokens(usage)
            trailing = sum(tokens[k + 1 :])
            return ContextEstimate(
                tokens=used + trailing, usageTokens=used, trailingTokens=trailing, lastUsageIndex=k, counter=counter
            )
    total = sum(tokens)
    return ContextEstimate(tokens=total, usageTokens=0, trailingTokens=total, lastUsageIndex=None, counter=counter)


def js_trim(text: str) -> str:
    """String.prototype.trim."""
    return text.strip(_JS_SPACE)


def _units(text: str) -> bytes:
    return text.encode("utf-16-le", "surrogatepass")


def _pair_at(units: bytes, at: int) -> bool:
    """Whether UTF-16 units at-1 and at form a surrogate pair."""
    high = int.from_bytes(units[2 * at - 2 : 2 * at], "little")
    low = int.from_bytes(units[2 * at : 2 * at + 2], "little")
    return 0xD800 <= high <= 0xDBFF and 0xDC00 <= low <= 0xDFFF


def slice_utf16_safe(text: str, start: int, end: int | None = None) -> str:
    """sliceUtf16Safe: a UTF-16 slice never splitting a surrogate pair (lone surrogates already there stay)."""
    units = _units(text)
    length = len(units) // 2
    lo = max(length + start, 0) if start < 0 else min(start, length)
    hi = length if end is None else (max(length + end, 0) if end < 0 else min(end, length))
    if hi <= lo:
        return ""
    if 0 < lo < length and _pair_at(units, lo):
        lo += 1
    if 0 < hi < length and _pair_at(units, hi):
        hi -= 1
    return units[2 * lo : 2 * hi].decode("utf-16-le", "surrogatepass")


def latest_user_request(messages: list[Message]) -> str | None:
    """extractLatestUserRequest: the last user text in context, trimmed; over 800 UTF-16 units, head and tail around a marker."""
    source = ""
    for message in reversed(messages):
        if message.role == "user":
            source = js_trim(openclaw_content(message)[0])
            if source:
                break
    if not source:
        return None
    length = js_length(source)
    if length <= MAX_LATEST_USER_REQUEST_CHARS:
        return source
    head = slice_utf16_safe(source, 0, 379)
    tail = slice_utf16_safe(source, -380)
    return head + TRUNCATED_MARKER + tail


def parse_details(details: Any) -> dict[str, Any] | None:
    """parseCompactionDetails: both file lists as string arrays, and a short latest request."""
    if not isinstance(details, dict):
        return None
    read, modified = details.get("readFiles"), details.get("modifiedFiles")
    if not (isinstance(read, list) and all(isinstance(f, str) for f in read)):
        return None
    if not (isinstance(modified, list) and all(isinstance(f, str) for f in modified)):
        return None
    parsed: dict[str, Any] = {"readFiles": read, "modifiedFiles": modified}
    request = details.get("latestUnresolvedUserRequest")
    if isinstance(request, str) and request and js_length(request) <= MAX_LATEST_USER_REQUEST_CHARS:
        parsed["latestUnresolvedUserRequest"] = request
    return parsed


# ---------------------------------------------------------------------------
# The planner
# ---------------------------------------------------------------------------


class Prepared:
    """The settings-independent part of OpenClaw's prepareCompaction for one path."""

    def __init__(self, index: PathIndex) -> None:
        path = index.path
        native = index.counter == "chars4"
        self.counter = index.counter
        boundary = next((i for i in range(index.n - 1, -1, -1) if _kind(path[i]) in ("compaction", "reset")), -1)
        self.previous = -1
        self.previous_summary: str | None = None
        self.seed: tuple[list[str], list[str]] = ([], [])
        previous_request: str | None = None
        offset = 0
        start = 0
        self.prelude: list[Message] = []
        self.reset = -1
        if boundary >= 0:
            entry = path[boundary]
            found = _index_of(path, _first_kept_id(entry))
            if entry.type == "compaction":
                record = entry.compaction
                self.previous = boundary
                self.previous_summary = (
                    record.summary if record is not None and "summary" in record.model_fields_set else None
                )
                details = parse_details(record.details if record is not None else None)
                previous_request = details.get("latestUnresolvedUserRequest") if details else None
                if details and record is not None and not record.fromHook:
                    self.seed = (list(details["readFiles"]), list(details["modifiedFiles"]))
                start = found if found >= 0 else boundary + 1
            else:
                self.reset = boundary
                kept = [found + k for k in select_reset_kept(path[found:boundary])] if found >= 0 else []
                self.prelude = [m for m in (entry_message_of(path[i]) for i in kept) if m is not None]
                offset = boundary + 1
        self.start = start
        self.offset = offset
        context = context_messages(path)
        context_tokens = [openclaw_tokens(m) for m in context]
        self.context = context
        self.estimate = estimate_context(context, context_tokens, index.counter)
        self.total = sum(context_tokens)
        self.latest_request = latest_user_request(context) or previous_request
        self.prelude_tokens = sum(openclaw_tokens(m) for m in self.prelude)
        items: list[Item] = []
        for i in range(offset, index.n):
            entry = path[i]
            kind = _kind(entry)
            message = entry_message_of(entry)
            weight = 0
            if message is not None:
                weight = openclaw_tokens(message) if native else index.tokens[i]
            items.append(
                Item(
                    pos=i,
                    kind=kind,
                    messages=[message] if message is not None else [],
                    weight=weight,
                    cut=message is not None and is_cut_point(message),
                    turn=message is not None and is_turn_start(message),
                    counted=message is not None,
                    barrier=kind in ("compaction", "reset") or entry.type == "message" or message is not None,
                    summarized=1 if message is not None else 0,
                    entry_id=entry.id,
                    fileops=fileops(message) if message is not None else [],
                )
            )
        self.walk = Walk(items)
        self.prelude_ops = [op for m in self.prelude for op in fileops(m)]


def prepared_of(index: PathIndex) -> Prepared:
    """The prepared path, cached on the index."""
    cache: dict[str, Any] = index.__dict__.setdefault("_rules_cache", {})
    prepared = cache.get(NAME)
    if prepared is None:
        prepared = Prepared(index)
        cache[NAME] = prepared
    return prepared


def scaled_keep(keep: int, usage: int, total: int, prelude_tokens: int) -> tuple[float, float]:
    """keepRecentTokens over the ratio of recorded usage to OpenClaw's estimate (never above 1×), plus a reset prelude."""
    scale: float = 1
    if total > 0:
        scale = min(max(1, keep), max(1, usage / total))
    return min(MAX_SAFE_INTEGER, keep / scale + prelude_tokens), scale


def decide(index: PathIndex, settings: CompactionSettings) -> Decision:
    """OpenClaw 2026.9's prepareCompaction on an indexed path, as a Decision."""
    prepared = prepared_of(index)
    walk = prepared.walk
    decision = Decision(
        rules=NAME,
        walk=walk,
        start=prepared.start,
        end=walk.n,
        estimate=prepared.estimate,
        previous=prepared.previous,
        previous_summary=prepared.previous_summary,
        latest_request=prepared.latest_request,
        seed_ops=[(0, f) for f in prepared.seed[0]] + [(2, f) for f in prepared.seed[1]] + prepared.prelude_ops,
        entry_tokens=walk.entry_tokens(index.tokens),
    )
    path = index.path
    if not path:
        decision.no_plan = "nothing"
        decision.steps.append(ExplanationStep(step="empty", text="the path is empty: nothing to compact"))
        return decision
    last = path[-1]
    if (
        last is None
        or _kind(last) == "reset"
        or (last.type == "compaction" and last.compaction and last.compaction.fromHook)
    ):
        decision.no_plan = "already-compacted"
        decision.steps.append(
            ExplanationStep(
                step="already-compacted",
                text="the last entry is a reset or a hook's compaction: OpenClaw has nothing to prepare",
            )
        )
        return decision
    if prepared.reset >= 0:
        decision.steps.append(
            ExplanationStep(
                step="boundary",
                pathIndex=prepared.reset,
                text=(
                    f"reset at path index {prepared.reset}: OpenClaw plans the entries after it; "
                    f"{len(prepared.prelude)} retained messages before it ({n(prepared.prelude_tokens)} tokens) are "
                    f"summarized first and added to keepRecentTokens"
                ),
            )
        )
    elif prepared.previous >= 0:
        decision.steps.append(
            ExplanationStep(
                step="boundary",
                pathIndex=prepared.start,
                text=f"previous compaction at path index {prepared.previous}: the window starts at path index {prepared.start}",
            )
        )
    else:
        decision.steps.append(
            ExplanationStep(
                step="boundary", pathIndex=0, text="no previous compaction: the window starts at path index 0"
            )
        )
    keep, scale = scaled_keep(
        settings.keepRecentTokens, prepared.estimate.usageTokens, prepared.total, prepared.prelude_tokens
    )
    decision.keep = keep
    if scale != 1 or prepared.prelude_tokens:
        decision.steps.append(
            ExplanationStep(
                step="scale",
                text=(
                    f"recorded usage {n(prepared.estimate.usageTokens)} over OpenClaw's estimate {n(prepared.total)} "
                    f"= ×{scale:.3f}: keepRecentTokens {n(settings.keepRecentTokens)} becomes {n(keep)}"
                ),
                data={"scale": scale, "keepRecentTokens": keep},
            )
        )
    cut = walk.find_cut(prepared.start, walk.n, keep)
    if cut.crossing is not None:
        decision.steps.append(
            ExplanationStep(
                step="walk",
                pathIndex=walk.items[cut.crossing].pos,
                text=(
                    f"walked back summing message estimates; reached {n(keep)} at path index "
                    f"{walk.items[cut.crossing].pos}; the nearest cut point at or after it is path index "
                    f"{walk.items[cut.first].pos}"
                ),
            )
        )
    if cut.first >= walk.n:
        decision.refusal = NO_RECENT_MESSAGE_FITS
        decision.steps.append(ExplanationStep(step="refusal", text=f"OpenClaw refuses: {NO_RECENT_MESSAGE_FITS}"))
        return decision
    moved = walk.move_back(cut.first, prepared.start)
    cut.first = moved
    cut.turn_start, cut.split = walk.turn_start(cut.first, prepared.start)
    decision.cut = cut
    decision.prelude_messages = len(prepared.prelude)
    decision.prelude_tokens = prepared.prelude_tokens
    history_end = cut.turn_start if cut.split else cut.first
    summarized = len(prepared.prelude) + walk.messages_in(prepared.start, history_end)
    prefix = walk.messages_in(cut.turn_start, cut.first) if cut.split else 0
    if summarized == 0 and prefix == 0:
        decision.no_plan = "nothing"
        decision.steps.append(
            ExplanationStep(
                step="nothing-to-compact", text="nothing before the cut would be summarized: OpenClaw makes no plan"
            )
        )
    if prepared.latest_request is not None:
        decision.steps.append(
            ExplanationStep(
                step="latest-request",
                text="latest unresolved user request: " + prepared.latest_request[:120].replace("\n", " "),
            )
        )
    return decision


class OpenClaw2026Rules:
    """OpenClaw 2026.9's planner (2026.9.6), exact."""

    @property
    def name(self) -> str:
        return NAME

    def plan(self, request: PlanRequest) -> CompactionPlan:
        """Decide as OpenClaw does, then assemble the plan and its explanation."""
        return assemble(decide(request.index, request.settings), request)


OPENCLAW_2026_9 = OpenClaw2026Rules()
