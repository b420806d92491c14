"""The context an agent sends for a session path (its rules live with the agents) and its token estimate."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from cutline.core.agents.context import (
    branch_summary_text,
    build_context,
    context_indices,
    context_weight,
    entry_message,
)
from cutline.core.models import Message, TextBlock

__all__ = [
    "ContextEstimate",
    "branch_summary_text",
    "build_context",
    "context_indices",
    "context_weight",
    "entry_message",
    "estimate_context_tokens",
    "estimate_from_tokens",
    "has_valid_usage",
    "sum_context_tokens",
    "text_of",
]


class ContextEstimate(BaseModel):
    """pi's estimateContextTokens: the last successful assistant usage plus estimates of the messages after it."""

    model_config = ConfigDict(defer_build=True)

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
