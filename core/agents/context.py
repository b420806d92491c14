"""The messages an agent sends for a session path, under the rules every agent shares today (pi's buildSessionContext).

Readers express their agent's specifics in the neutral model (a compaction with no
`firstKeptEntryId` keeps nothing before it; `isSidechain` and `isCompactSummary`
records are never sent), so one rule set serves them all; an adapter whose agent
rebuilds differently overrides `AgentAdapter.context`.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from cutline.core.models import Entry, Message, Usage


def _entry_field(entry: Entry, key: str) -> Any:
    """A field of a non-message entry, wherever the reader put it (data, extra fields or the raw record)."""
    if key in entry.data:
        return entry.data[key]
    extra = entry.model_extra or {}
    if key in extra:
        return extra[key]
    if entry.raw_line:
        try:
            return entry.raw.get(key)
        except ValueError:
            return None
    return None


def _custom_message(entry: Entry) -> Message:
    content = _entry_field(entry, "content")
    fields: dict[str, Any] = {
        "role": "custom",
        "customType": _entry_field(entry, "customType"),
        "display": _entry_field(entry, "display"),
        "timestamp": entry.timestamp,
    }
    details = _entry_field(entry, "details")
    if details is not None:
        fields["details"] = details
    if isinstance(content, str):
        fields["content"] = [{"type": "text", "text": content}]
        fields["contentWasString"] = True
    elif isinstance(content, list):
        fields["content"] = content
    try:
        return Message.model_validate(fields)
    except ValidationError:
        # unknown block kinds: keep the ones the model knows so counting still works
        known = [b for b in fields.get("content", []) if isinstance(b, dict) and b.get("type") in ("text", "image")]
        fields["content"] = known
        return Message.model_validate(fields)


def entry_message(entry: Entry) -> Message | None:
    """The message an entry contributes (pi's getMessageFromEntry): a compaction gives its summary."""
    kind = entry.type
    if kind == "message":
        return entry.message
    if kind == "custom_message":
        if entry.message is not None:
            return entry.message
        return _custom_message(entry)
    if kind == "branch_summary":
        if entry.message is not None:
            return entry.message
        summary = _entry_field(entry, "summary")
        return Message(
            role="branchSummary", summary=summary if isinstance(summary, str) else "", timestamp=entry.timestamp
        )
    if kind == "compaction":
        summary = entry.compaction.summary if entry.compaction is not None else ""
        return Message(role="compactionSummary", summary=summary, timestamp=entry.timestamp)
    return None


def branch_summary_text(entry: Entry) -> str:
    """The summary of a branch_summary entry (empty ones never reach the model)."""
    if entry.message is not None:
        return entry.message.summary or entry.message.text()
    summary = _entry_field(entry, "summary")
    return summary if isinstance(summary, str) else ""


def context_edits(path: list[Entry]) -> dict[str, Message | None]:
    """pi 0.87's `context_edit` entries on a path: target id to its replacement message, or None when omitted.

    Later edits of one target win. Edits lying before the latest compaction's kept range
    target entries that are not in the context either, so the whole path can be read.
    """
    by_id = {entry.id: entry for entry in path}
    edits: dict[str, Message | None] = {}
    for entry in path:
        if entry.type != "context_edit":
            continue
        target_id = entry.data.get("targetId")
        replacement = entry.data.get("replacement")
        target = by_id.get(target_id) if isinstance(target_id, str) else None
        if target is None:
            continue
        if replacement is None:
            edits[target.id] = None
        elif type(replacement) is dict and "content" in replacement:
            edited = _replaced(target, replacement["content"])
            if edited is not None:
                edits[target.id] = edited
    return edits


_EDITABLE_ROLES = frozenset({"user", "assistant", "toolResult", "custom"})


def _replaced(target: Entry, content: Any) -> Message | None:
    """The target's message with its content replaced (pi: only user, assistant, toolResult and custom messages)."""
    message = entry_message(target)
    if message is None or message.role not in _EDITABLE_ROLES:
        return None
    if isinstance(content, str):
        blocks: Any = [{"type": "text", "text": content}]
    elif isinstance(content, list):
        blocks = content
    else:
        return None
    try:
        return message.model_copy(
            update={"content": Message.model_validate({"role": "user", "content": blocks}).content}
        )
    except ValidationError:
        return None


def compaction_system_message(entry: Entry) -> Message | None:
    """The system message pi 0.87 stored on a compaction (`systemMessage`): it leads the compacted context."""
    if entry.type != "compaction" or entry.compaction is None:
        return None
    stored = (entry.compaction.model_extra or {}).get("systemMessage")
    if type(stored) is not dict:
        return None
    fields = dict(stored)
    fields["role"] = "system"
    content = fields.get("content")
    if isinstance(content, str):
        fields["content"] = [{"type": "text", "text": content}]
    elif not isinstance(content, list):
        fields["content"] = []
    try:
        return Message.model_validate(fields)
    except ValidationError:
        return None


def context_weight(path: list[Entry]) -> list[bool]:
    """Whether each entry adds a message when it lies in the kept part of the context.

    Compaction entries are False: their summary enters only for the latest one, at the
    front. Claude Code sidechains and compact-summary records never enter, nor do
    entries a pi `context_edit` omits.
    """
    weights: list[bool] = []
    omitted = (
        {target for target, message in context_edits(path).items() if message is None} if _has_edits(path) else set()
    )
    for entry in path:
        kind = entry.type
        if entry.id in omitted:
            weights.append(False)
        elif kind == "message":
            weights.append(entry.message is not None and not entry.isSidechain and not entry.isCompactSummary)
        elif kind == "custom_message":
            weights.append(True)
        elif kind == "branch_summary":
            weights.append(bool(branch_summary_text(entry)))
        else:
            weights.append(False)
    return weights


def _has_edits(path: list[Entry]) -> bool:
    return any(entry.type == "context_edit" for entry in path)


def _pi_system_entry(entry: Entry) -> bool:
    """A pi `role:"system"` message entry (prompt state; pi leaves those before a compaction out of its kept range)."""
    return entry.sourceType == "message" and entry.message is not None and entry.message.role == "system"


def context_indices(path: list[Entry]) -> list[int]:
    """Path indices of the entries whose messages form the context, in order (the compaction first).

    With a compaction on the path: its summary, then the entries from its
    firstKeptEntryId up to it, then everything after it. A compaction with no
    firstKeptEntryId (Claude Code, Codex), or one naming itself (pi 0.87's "retain
    none"), keeps nothing from before it; pi's system entries before it are replaced
    by its `systemMessage`.
    """
    last = -1
    for i in range(len(path) - 1, -1, -1):
        if path[i].type == "compaction":
            last = i
            break
    weights = context_weight(path)
    if last < 0:
        return [i for i, w in enumerate(weights) if w]
    indices = [last]
    compaction = path[last].compaction
    first_kept = compaction.firstKeptEntryId if compaction is not None else None
    if first_kept is not None:
        found = False
        for i in range(last):
            if path[i].id == first_kept:
                found = True
            if found and weights[i] and not _pi_system_entry(path[i]):
                indices.append(i)
    indices.extend(i for i in range(last + 1, len(path)) if weights[i])
    return indices


def build_context(path_entries: list[Entry]) -> list[Message]:
    """The messages the agent sends for this path, as pi's buildSessionContext builds them.

    pi 0.87: the latest compaction's `systemMessage` leads, and `context_edit`
    replacements take the place of their targets' content.
    """
    edits = context_edits(path_entries) if _has_edits(path_entries) else {}
    messages: list[Message] = []
    for i in context_indices(path_entries):
        entry = path_entries[i]
        if entry.type == "compaction" and not messages:
            system = compaction_system_message(entry)
            if system is not None:
                messages.append(system)
        message = edits.get(entry.id) or entry_message(entry)
        if message is not None:
            messages.append(message)
    return messages


def usage_entry_prompt_tokens(entry: Entry) -> int:
    """What a pi `usage` entry records as sent (calibration samples it as an assistant's usage); 0 when unreadable."""
    recorded = entry.data.get("usage")
    if type(recorded) is not dict:
        return 0
    try:
        return Usage.model_validate(recorded).prompt_tokens
    except ValidationError:
        return 0
