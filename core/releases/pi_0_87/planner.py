"""Current pi's planner (`@earendil-works/pi-coding-agent` 0.87.1, the same code as 1.5.2), exactly.

pi now plans over a projection of the path (buildSessionProjection): the latest
compaction first, its kept entries without system prompts, everything after it, with
context edits applied. Entries weigh what they project (custom messages, branch
summaries and system prompts included), the walk skips weightless entries, the move
back stops at anything the model sees, and no plan is made when nothing would be
summarized. See docs/rules/pi-current.md.
"""

from __future__ import annotations

from typing import Any

from cutline.core.agents.boundaries import continues_message
from cutline.core.agents.entries import shape_content
from cutline.core.agents.index_facts import ASSISTANT, CUT_POINT, IN_CONTEXT, TURN_START, VALID_USAGE
from cutline.core.agents.path_window import PathWindow
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan, ExplanationStep
from cutline.core.engine.context import ContextEstimate, branch_summary_text, entry_message
from cutline.core.engine.path_index import PathIndex
from cutline.core.engine.rules.assemble import Decision, assemble, n
from cutline.core.engine.rules.base import PlanRequest
from cutline.core.engine.rules.estimates import js_truthy, pi_current_tokens, system_extra_chars
from cutline.core.engine.rules.walk import Cut, Item, Walk
from cutline.core.models import Entry, Message, ToolResultBlock
from cutline.core.tokens.jsjson import js_length, js_stringify

NAME = "pi"
VERSION = "0.87.1"
_CUT_ROLES = frozenset({"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"})
_TURN_ROLES = frozenset({"user", "bashExecution", "custom", "branchSummary", "compactionSummary"})
_FILE_TOOLS = {"read": 0, "write": 1, "edit": 2}


def entry_kind(entry: Entry) -> str:
    """The entry's own type name (`reset`, which the model has no type for, is read as 'other')."""
    return entry.sourceType or entry.type if entry.type == "other" else entry.type


def _is_system(entry: Entry) -> bool:
    return entry.type == "message" and entry.message is not None and entry.message.role == "system"


def _carries_tool_results(message: Message) -> bool:
    return any(isinstance(b, ToolResultBlock) for b in message.content)


def context_messages_of(entry: Entry) -> list[Message]:
    """sessionEntryToContextMessages: what one entry gives the model (a compaction: its system message and summary)."""
    kind = entry.type
    if kind == "message":
        message = entry.message
        if message is None or entry.isSidechain or entry.isCompactSummary:
            return []  # Claude Code records that never reach the model
        return [message]
    if kind == "custom_message":
        message = entry_message(entry)
        return [message] if message is not None else []
    if kind == "branch_summary":
        message = entry_message(entry)
        return [message] if message is not None and branch_summary_text(entry) else []
    if kind == "compaction":
        summary = entry_message(entry)
        record = entry.compaction
        system = (record.model_extra or {}).get("systemMessage") if record is not None else None
        out: list[Message] = []
        if isinstance(system, dict) and system:
            shaped = dict(system)
            shape_content(shaped)
            shaped.setdefault("role", "system")
            out.append(Message.model_validate(shaped))
        if summary is not None:
            out.append(summary)
        return out
    return []


def _edited(messages: list[Message], replacement: dict[str, Any]) -> list[Message]:
    """A context edit's replacement content on every user/assistant/toolResult/custom message."""
    raw = replacement.get("content")
    out: list[Message] = []
    for message in messages:
        if message.role not in ("user", "assistant", "toolResult", "custom"):
            out.append(message)
            continue
        shaped: dict[str, Any] = {"role": message.role, "content": raw if raw is not None else []}
        shape_content(shaped)
        blocks = Message.model_validate(shaped).content
        out.append(message.model_copy(update={"content": blocks}))
    return out


def _fileops(messages: list[Message]) -> list[tuple[int, str]]:
    ops: list[tuple[int, str]] = []
    for message in messages:
        if message.role != "assistant":
            continue
        for block in message.content:
            if block.type == "toolCall" and block.name in _FILE_TOOLS:
                args = block.arguments
                target = args.get("path") if isinstance(args, dict) else None
                if isinstance(target, str) and target:
                    ops.append((_FILE_TOOLS[block.name], target))
    return ops


# shared by the items taken from facts (never changed: an item's lists are only read)
_NO_MESSAGES: list[Message] = []
_NO_FILEOPS: list[tuple[int, str]] = []
# entry types that give the model nothing and edit nothing (context_messages_of: no message)
_SILENT_KINDS = frozenset({"thinking_level_change", "model_change", "custom", "label", "session_info", "usage"})


def _light_marks(path: Any, count: int) -> bytes:
    """Per position of a lazy `PathWindow`: 1 a plain message taken from its facts, 2 an entry type that gives
    nothing (or one the window marks so: a Claude Code or Codex `other` record), 0 an entry to read (those are
    read now, in one go); empty for any other path (every entry read)."""
    if not isinstance(path, PathWindow) or path.plain is None:
        return b""
    plain, kinds, facts = path.plain, path.kinds, path.facts
    marks = bytes(
        1
        if plain[i] and facts[i]["f"] & IN_CONTEXT and not (facts[i]["f"] & ASSISTANT and "r" in facts[i])
        else 2
        if kinds[i] in _SILENT_KINDS or plain[i] == 2
        else 0
        for i in range(count)
    )
    path.prefetch([i for i in range(count) if not marks[i]])
    return marks


def _context_edits(path: Any, positions: list[int], light: bytes) -> dict[str, dict[str, Any] | None]:
    """The replacement each context_edit in the projection names, by target id (a plain entry is never one)."""
    edits: dict[str, dict[str, Any] | None] = {}
    for i in positions:
        if light and light[i]:
            continue
        entry = path[i]
        if entry.sourceType == "context_edit":
            target = entry.data.get("targetId")
            replacement = entry.data.get("replacement")
            if isinstance(target, str) and (replacement is None or isinstance(replacement, dict)):
                edits[target] = replacement
    return edits


class Projection:
    """buildSessionProjection of a path as planner items, with the flat message list the model would be sent.

    On a lazy `PathWindow` (a stored path whose plain entries are marked), an entry is
    taken from its stored facts and count where they tell what this projection would
    read from it: a plain user, assistant or toolResult message (its chars4 count is
    current pi's estimate: only a user's images differ, and a plain entry has none) or
    an entry type that gives the model nothing. Every other entry is read. Why: a path
    with no compaction is planned from its whole length; reading 100,000 entries as
    models cost ~2 s and ~700 MB. Its messages are then read only where asked for
    (`message`); a differential test compares both ways on every fixture and sample.
    """

    def __init__(self, index: PathIndex) -> None:
        path = index.path
        self.path = path
        self.index = index
        count = index.n
        light = _light_marks(path, count)
        compaction = index.compactions[-1] if index.compactions else -1
        if compaction < 0:
            positions = list(range(count))
        else:
            record = path[compaction].compaction
            kept = index.index_of(record.firstKeptEntryId if record is not None else None, before=compaction)
            before = (
                [i for i in range(kept, compaction) if (light and light[i]) or not _is_system(path[i])]
                if kept >= 0
                else []
            )
            positions = [compaction, *before, *range(compaction + 1, count)]
        self.edits = _context_edits(path, positions, light)
        self.items: list[Item] = []
        # the flat message list: each message (None where a plain entry's was not read), its role, item and estimate
        self.messages: list[Message | None] = []
        self.message_roles: list[str] = []
        self.message_usage: list[int] = []  # the context tokens of a usage pi trusts, else 0
        self.message_items: list[int] = []
        self.message_tokens: list[int] = []
        self.intrinsic: list[bool] = []
        self.shown: list[bool] = []  # the item gives the model a message
        self.edit_replaces: list[tuple[str, bool] | None] = []
        if light and isinstance(path, PathWindow):
            self._add_with_facts(path, positions, light)
        else:
            for j, i in enumerate(positions):
                self._add_entry(j, i, path[i])
        items = self.items
        self.walk = Walk(items)
        self.positions = positions
        invalidating = -1
        for i in range(count - 1, -1, -1):
            if light and light[i]:
                continue
            if path[i].type == "compaction" or path[i].sourceType == "context_edit":
                invalidating = i
                break
        self.invalidating = invalidating
        self.counter = index.counter
        # what every plan of this projection reads and no setting changes: made by the first plan that asks
        self._previous: int | None = None
        self._estimate: ContextEstimate | None = None
        # the last item the model sees or a compaction: a recovery-omission suffix must lie after it
        self.last_visible = max(
            (j for j, it in enumerate(items) if it.kind == "compaction" or (self.intrinsic[j] and self.shown[j])),
            default=-1,
        )

    def _add_with_facts(self, path: PathWindow, positions: list[int], light: bytes) -> None:
        """The items of `positions`, each plain or silent entry from the window's facts, any other from its entry.

        One loop with the appends bound: it runs once per entry of a 100,000-entry path.
        """
        ids, kinds, facts, tokens, edits = path.ids, path.kinds, path.facts, self.index.tokens, self.edits
        add_item, add_message, add_role = self.items.append, self.messages.append, self.message_roles.append
        add_usage, add_at, add_tokens = self.message_usage.append, self.message_items.append, self.message_tokens.append
        add_intrinsic, add_shown, add_edit = self.intrinsic.append, self.shown.append, self.edit_replaces.append
        for j, i in enumerate(positions):
            mark = light[i]
            entry_id = ids[i]
            if not mark or entry_id in edits:
                self._add_entry(j, i, path[i])
                continue
            add_edit(None)
            if mark != 1:  # an entry type that gives the model nothing
                add_item(Item(i, kinds[i], _NO_MESSAGES, 0, entry_id=entry_id))
                add_intrinsic(False)
                add_shown(False)
                continue
            fact = facts[i]
            flags = fact["f"]
            assistant = flags & ASSISTANT
            weight = tokens[i]
            cut = bool(flags & CUT_POINT)
            ops = _NO_FILEOPS
            if assistant and "o" in fact:
                ops = [(k, f) for k, f in fact["o"]]
            # a user record carrying tool results is no turn start (nor a cut point)
            add_item(
                Item(
                    i,
                    "message",
                    _NO_MESSAGES,
                    weight,
                    cut,
                    cut and bool(flags & TURN_START),
                    weight > 0,
                    True,
                    1,
                    entry_id,
                    ops,
                )
            )
            add_message(None)
            add_role("assistant" if assistant else "user")
            add_usage(fact.get("u", 0) if flags & VALID_USAGE else 0)
            add_at(j)
            add_tokens(weight)
            add_intrinsic(True)
            add_shown(True)

    def _add_entry(self, j: int, i: int, entry: Entry) -> None:
        """Item j for path index i from its entry."""
        kind = entry_kind(entry)
        own = context_messages_of(entry)
        messages = [] if kind == "compaction" and j > 0 else own
        edited = entry.id in self.edits and bool(messages)
        if edited:
            replacement = self.edits[entry.id]
            messages = [] if replacement is None else _edited(messages, replacement)
        if self.index.counter == "chars4" or edited or len(messages) != 1 or kind == "compaction":
            tokens = [pi_current_tokens(m) for m in messages]
        else:
            tokens = [self.index.tokens[i]]
        weight = sum(tokens)
        compaction_item = kind == "compaction"
        roles = ["toolResult" if m.role == "user" and _carries_tool_results(m) else m.role for m in messages]
        self.items.append(
            Item(
                pos=i,
                kind=kind,
                messages=messages,
                weight=weight,
                cut=not compaction_item
                and any(r in _CUT_ROLES for r in roles)
                and not any(continues_message(m) for m in messages),
                turn=not compaction_item and any(r in _TURN_ROLES for r in roles),
                counted=weight > 0,
                barrier=compaction_item or bool(messages),
                summarized=0 if compaction_item else sum(1 for m in messages if m.role != "system"),
                entry_id=entry.id,
                fileops=[] if compaction_item else _fileops(messages),
            )
        )
        for m, t in zip(messages, tokens, strict=True):
            self.messages.append(m)
            self.message_roles.append(m.role)
            self.message_usage.append(_trusted_usage(m))
            self.message_items.append(j)
            self.message_tokens.append(t)
        self.intrinsic.append(kind != "context_edit" and bool(own))
        self.shown.append(bool(messages))
        if kind == "context_edit":
            target = entry.data.get("targetId")
            self.edit_replaces.append(
                (target if isinstance(target, str) else "", entry.data.get("replacement", True) is not None)
            )
        else:
            self.edit_replaces.append(None)

    def previous_compaction(self) -> int:
        """The first item that is a compaction giving the model its summary, -1 when none (found once)."""
        if self._previous is None:
            self._previous = next((j for j, it in enumerate(self.items) if it.kind == "compaction" and it.messages), -1)
        return self._previous

    def estimate(self) -> ContextEstimate:
        """`projected_estimate` of this projection (made once: it does not depend on the settings)."""
        if self._estimate is None:
            self._estimate = projected_estimate(self)
        return self._estimate.model_copy()

    def omitted(self, j: int) -> bool:
        return self.intrinsic[j] and not self.shown[j]

    def message(self, k: int) -> Message:
        """Message k of the flat list, its entry read now when it was taken from the facts."""
        found = self.messages[k]
        if found is None:
            entry = self.path[self.items[self.message_items[k]].pos]
            if entry.message is None:
                raise ValueError(f"path index {entry.id} has no message")
            found = entry.message
            self.messages[k] = found
        return found

    def source_message(self, j: int) -> Message | None:
        """The message of item j's entry when it is a message entry."""
        entry = self.path[self.items[j].pos]
        return entry.message if entry.type == "message" else None


def _trusted_usage(message: Message) -> int:
    """The context tokens of an assistant's usage pi trusts (not aborted, not an error), else 0."""
    usage = message.usage
    if message.role != "assistant" or usage is None or message.stopReason in ("aborted", "error"):
        return 0
    return max(usage.context_tokens, 0)


def current_system_tokens(messages: list[Message]) -> int:
    """estimateTokens of getCurrentSystemMessage: every system message replayed into one (0 when there is none)."""
    contents: list[str] = []
    sections: dict[str, Any] = {}
    tools: dict[Any, Any] = {}
    stamped = False
    for message in messages:
        if message.role != "system":
            continue
        stamped = stamped or (message.timestamp is not None)
        if message.contentWasString:
            text = message.content[0].text if message.content else ""  # type: ignore[union-attr]
        else:
            text = "\n".join(b.text for b in message.content if b.type == "text")
        if text:
            contents.append(text)
        extra = message.model_extra or {}
        raw_sections = extra.get("sections")
        if isinstance(raw_sections, dict):
            for name, value in raw_sections.items():
                if value is None:
                    sections.pop(name, None)
                else:
                    sections[name] = value
        for tool in extra.get("toolsRemoved") or []:
            if isinstance(tool, dict):
                tools.pop(js_stringify(tool.get("name")), None)
        for tool in extra.get("toolsAdded") or []:
            if isinstance(tool, dict):
                tools[js_stringify(tool.get("name"))] = tool
    if not stamped and not tools:
        return 0
    chars = js_length("\n\n".join(contents)) + system_extra_chars({"sections": sections})
    if tools:
        chars += js_length(js_stringify(list(tools.values())))
    return -(-chars // 4)


def projected_estimate(projection: Projection) -> ContextEstimate:
    """estimateProjectedContextTokens: usage recorded after the latest edit or compaction, else a pure estimate."""
    roles = projection.message_roles
    usages = projection.message_usage
    tokens = projection.message_tokens
    counter = projection.counter
    for k in range(len(roles) - 1, -1, -1):
        used = usages[k]
        if roles[k] == "assistant" and used > 0:
            if projection.items[projection.message_items[k]].pos > projection.invalidating:
                trailing = sum(tokens[k + 1 :])
                return ContextEstimate(
                    tokens=used + trailing,
                    usageTokens=used,
                    trailingTokens=trailing,
                    lastUsageIndex=k,
                    counter=counter,
                )
            break
    systems = [projection.message(k) for k, role in enumerate(roles) if role == "system"]
    total = current_system_tokens(systems) + sum(t for r, t in zip(roles, tokens, strict=True) if r != "system")
    return ContextEstimate(tokens=total, usageTokens=0, trailingTokens=total, lastUsageIndex=None, counter=counter)


def _recovery_advance(projection: Projection, cut: Cut, end: int) -> bool:
    """Whether the cut moves past the last visible input onto an omitted assistant attempt (pi's recovery rule)."""
    first = cut.first
    if not cut.exceeded or projection.last_visible > first or first + 1 >= end:
        return False
    items = projection.items
    omitted_ids = {items[j].entry_id for j in range(first + 1, end) if projection.omitted(j)}
    omitted_assistant = any(
        items[j].kind == "message"
        and projection.omitted(j)
        and (m := _source_message(projection, j)) is not None
        and m.role == "assistant"
        for j in range(first + 1, end)
    )
    external = any(
        (edit := projection.edit_replaces[j]) is not None and edit[1] and edit[0] not in omitted_ids
        for j in range(first + 1, end)
    )
    return omitted_assistant and not external


def _source_message(projection: Projection, j: int) -> Message | None:
    return projection.source_message(j)


def decide(index: PathIndex, settings: CompactionSettings, projection: Projection | None = None) -> Decision:
    """Current pi's prepareCompaction on an indexed path, as a Decision."""
    projection = projection or projection_of(index)
    walk = projection.walk
    items = projection.items
    estimate = projection.estimate()
    decision = Decision(
        rules=NAME, walk=walk, start=0, end=walk.n, estimate=estimate, entry_tokens=walk.entry_tokens(index.tokens)
    )
    path = index.path
    if index.n and path[-1].type == "compaction":
        decision.no_plan = "already-compacted"
        decision.previous = index.n - 1
        decision.steps.append(
            ExplanationStep(
                step="already-compacted",
                pathIndex=index.n - 1,
                text=f"the last entry (path index {index.n - 1}) is a compaction: pi has nothing to prepare",
            )
        )
        return decision
    previous = projection.previous_compaction()
    start = 0
    if previous >= 0:
        source = path[items[previous].pos]
        record = source.compaction
        decision.previous = items[previous].pos
        decision.previous_summary = (
            record.summary if record is not None and "summary" in record.model_fields_set else None
        )
        if (
            record is not None
            and not record.fromHook
            and js_truthy(record.details)
            and isinstance(record.details, dict)
        ):
            read = record.details.get("readFiles")
            modified = record.details.get("modifiedFiles")
            decision.seed_ops = [(0, f) for f in read if isinstance(f, str)] if isinstance(read, list) else []
            decision.seed_ops += [(2, f) for f in modified if isinstance(f, str)] if isinstance(modified, list) else []
        start = previous + 1
        kept_from = items[start].pos if start < walk.n else None
        decision.steps.append(
            ExplanationStep(
                step="boundary",
                pathIndex=kept_from,
                text=(
                    f"previous compaction at path index {decision.previous}: pi plans over its projection — the "
                    f"compaction, its kept entries (system prompts left out) and everything after it, context edits "
                    f"applied; the window starts at "
                    + (f"path index {kept_from}" if kept_from is not None else "the end")
                ),
                data={"previousCompactionIndex": decision.previous},
            )
        )
    else:
        decision.steps.append(
            ExplanationStep(
                step="boundary", pathIndex=0, text="no previous compaction: the window starts at path index 0"
            )
        )
    decision.start = start
    keep = settings.keepRecentTokens
    cut = walk.find_cut(start, walk.n, keep)
    if cut.crossing is not None:
        decision.steps.append(
            ExplanationStep(
                step="walk",
                pathIndex=items[cut.crossing].pos,
                text=(
                    f"walked back summing each entry's projected estimate (weightless entries skipped); reached "
                    f"{n(keep)} at path index {items[cut.crossing].pos} ({n(walk.weight_in(cut.crossing, walk.n))} "
                    f"tokens); the nearest cut point at or after it is path index {items[cut.first].pos}"
                ),
            )
        )
    elif cut.candidate is not None:
        decision.steps.append(
            ExplanationStep(
                step="walk",
                text=(
                    f"never reached {n(keep)} (the window holds {n(walk.weight_in(start, walk.n))}): the cut is the "
                    f"first cut point, path index {items[cut.first].pos}"
                ),
            )
        )
    if _recovery_advance(projection, cut, walk.n):
        cut.first += 1
        decision.steps.append(
            ExplanationStep(
                step="recovery",
                text="the entries after the cut are an omitted assistant attempt: the cut moves onto it",
            )
        )
    moved = walk.move_back(cut.first, start)
    if moved != cut.first:
        decision.steps.append(
            ExplanationStep(
                step="move-back",
                pathIndex=items[moved].pos,
                text=f"moved back over {cut.first - moved} entries the model never sees: the cut is at path index {items[moved].pos}",
            )
        )
    cut.first = moved
    if cut.first < walk.n:
        cut.turn_start, cut.split = walk.turn_start(cut.first, start)
    decision.cut = cut
    if cut.split:
        decision.steps.append(
            ExplanationStep(
                step="split-turn",
                pathIndex=items[cut.turn_start].pos,
                text=(
                    f"the cut does not start a turn: the turn starts at path index {items[cut.turn_start].pos}, "
                    f"its prefix is summarized on its own"
                ),
            )
        )
    history_end = cut.turn_start if cut.split else cut.first
    summarized = walk.messages_in(start, history_end)
    prefix = walk.messages_in(cut.turn_start, cut.first) if cut.split else 0
    if cut.first >= walk.n or (summarized == 0 and prefix == 0):
        decision.no_plan = "nothing"
        decision.steps.append(
            ExplanationStep(
                step="nothing-to-compact",
                text='nothing before the cut would be summarized: current pi makes no plan ("Nothing to compact")',
            )
        )
    return decision


def projection_of(index: PathIndex) -> Projection:
    """The projection of an indexed path, cached on the index (it does not depend on the settings)."""
    cache: dict[str, Any] = index.__dict__.setdefault("_rules_cache", {})
    projection = cache.get(NAME)
    if projection is None:
        projection = Projection(index)
        cache[NAME] = projection
    return projection


class PiCurrentRules:
    """Current pi's planner (0.87.1, the same as 1.5.2), exact."""

    @property
    def name(self) -> str:
        return NAME

    def plan(self, request: PlanRequest) -> CompactionPlan:
        """Decide as current pi does, then assemble the plan and its explanation."""
        return assemble(decide(request.index, request.settings), request)


PI_CURRENT = PiCurrentRules()


def context_messages(index: PathIndex) -> list[Message]:
    """The messages current pi sends the model for this path (its projection)."""
    projection = projection_of(index)
    return [projection.message(k) for k in range(len(projection.messages))]
