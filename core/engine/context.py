"""The context an agent sends to its model for a session path (pi's buildSessionContext), and its token estimate."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from cutline.core.models import Entry, Message, TextBlock


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
    record = path[last].compaction
    first_kept = record.firstKeptEntryId if record is not None else None
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


class ContextEstimate(BaseModel):
    """pi's estimateContextTokens: the last successful assistant usage plus estimates of the messages after it."""

    tokens: int
    usageTokens: int
    trailingTokens: int
    lastUsageIndex: int | None
    counter: str = "chars4"


def has_valid_usage(message: Message) -> bool:
    """An assistant message whose usage pi trusts (not aborted, not an error)."""
    return message.role == "assistant" and message.usage is not None and message.stopReason not in ("aborted", "error")


def estimate_from_tokens(messages: list[Message], tokens: list[int], counter: str = "chars4") -> ContextEstimate:
    """estimateContextTokens over messages whose per-message tokens are already known."""
    for i in range(len(messages) - 1, -1, -1):
        if has_valid_usage(messages[i]):
            usage = messages[i].usage
            assert usage is not None
            usage_tokens = usage.context_tokens
            trailing = sum(tokens[i + 1 :])
            return ContextEstimate(
                tokens=usage_tokens + trailing,
                usageTokens=usage_tokens,
                trailingTokens=trailing,
                lastUsageIndex=i,
                counter=counter,
            )
    total = sum(tokens)
    return ContextEstimate(tokens=total, usageTokens=0, trailingTokens=total, lastUsageIndex=None, counter=counter)


def estimate_context_tokens(messages: list[Message], counter: Any = "chars4") -> ContextEstimate:
    """pi's estimateContextTokens with the given counter for the messages after the last usage."""
    from cutline.core.tokens import get_counter

    resolved = get_counter(counter) if isinstance(counter, str) else counter
    return estimate_from_tokens(messages, [resolved.count(m) for m in messages], resolved.name)


def sum_context_tokens(messages: list[Message], counter: Any = "chars4") -> int:
    """The plain sum of a counter's estimates over the messages (no usage records)."""
    from cutline.core.tokens import get_counter

    resolved = get_counter(counter) if isinstance(counter, str) else counter
    return sum(resolved.count(m) for m in messages)


def text_of(message: Message) -> str:
    """Text blocks of a message joined (used for last user requests)."""
    return "\n".join(b.text for b in message.content if isinstance(b, TextBlock) and b.text)
