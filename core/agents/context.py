"""The messages an agent sends for a session path, under the rules every agent shares today (pi's buildSessionContext).

Readers express their agent's specifics in the neutral model (a compaction with no
`firstKeptEntryId` keeps nothing before it; `isSidechain` and `isCompactSummary`
records are never sent), so one rule set serves them all; an adapter whose agent
rebuilds differently overrides `AgentAdapter.context`.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from cutline.core.models import Entry, Message


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


def context_weight(path: list[Entry]) -> list[bool]:
    """Whether each entry adds a message when it lies in the kept part of the context.

    Compaction entries are False: their summary enters only for the latest one, at the
    front. Claude Code sidechains and compact-summary records never enter.
    """
    weights: list[bool] = []
    for entry in path:
        kind = entry.type
        if kind == "message":
            weights.append(entry.message is not None and not entry.isSidechain and not entry.isCompactSummary)
        elif kind == "custom_message":
            weights.append(True)
        elif kind == "branch_summary":
            weights.append(bool(branch_summary_text(entry)))
        else:
            weights.append(False)
    return weights


def context_indices(path: list[Entry]) -> list[int]:
    """Path indices of the entries whose messages form the context, in order (the compaction first).

    With a compaction on the path: its summary, then the entries from its
    firstKeptEntryId up to it, then everything after it. A compaction with no
    firstKeptEntryId (Claude Code, Codex) keeps nothing from before it.
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
            if found and weights[i]:
                indices.append(i)
    indices.extend(i for i in range(last + 1, len(path)) if weights[i])
    return indices


def build_context(path_entries: list[Entry]) -> list[Message]:
    """The messages the agent sends for this path, as pi's buildSessionContext builds them."""
    messages: list[Message] = []
    for i in context_indices(path_entries):
        message = entry_message(path_entries[i])
        if message is not None:
            messages.append(message)
    return messages
