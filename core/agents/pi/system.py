"""Current pi's system messages replayed into one (pi-ai's getCurrentSystemMessage): for a compaction's checkpoint and for the request.

Why: pi 0.87 writes `systemMessage` on each compaction it makes (its prompt and tools as
they were), and after a compaction it sends that instead of the older system entries;
a compaction cutline writes into such a session must carry the same checkpoint. And
Anthropic-style providers carry the prompt outside the message list: pi folds every
system message of the context into one leading prompt, the request's `system` field.
"""

from __future__ import annotations

from typing import Any

from cutline.core.agents.entries import iso_to_ms
from cutline.core.models import Entry, Message, TextBlock


def is_current_pi(path: list[Entry]) -> bool:
    """Whether a path was written by current pi (it has system-role entries or compactions with a systemMessage)."""
    for entry in path:
        if entry.type == "message" and entry.message is not None and entry.message.role == "system":
            return True
        if (
            entry.type == "compaction"
            and '"systemMessage"' in entry.raw_line
            and isinstance(entry.raw.get("systemMessage"), dict)
        ):
            return True
    return False


def projected_system_messages(path: list[Entry]) -> list[dict[str, Any]]:
    """The system messages of pi's projection of a path, as stored: the latest compaction's checkpoint and later ones.

    Before the latest compaction only its `systemMessage` counts (pi leaves system entries
    of the kept range out); without a compaction every system entry on the path counts.
    """
    last = max((i for i, e in enumerate(path) if e.type == "compaction"), default=None)
    found: list[dict[str, Any]] = []
    if last is not None:
        checkpoint = path[last].raw.get("systemMessage") if path[last].raw_line else None
        if isinstance(checkpoint, dict):
            found.append(checkpoint)
    for entry in path[(last + 1 if last is not None else 0) :]:
        if entry.type == "message" and entry.message is not None and entry.message.role == "system":
            message = entry.raw.get("message") if entry.raw_line else None
            if isinstance(message, dict):
                found.append(message)
    return found


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def current_system_message(path: list[Entry], timestamp: str) -> dict[str, Any] | None:
    """pi's getCurrentSystemMessage over the projection, stamped with the compaction's time (None when there is none)."""
    messages = projected_system_messages(path)
    content: list[str] = []
    sections: dict[str, Any] = {}
    tools: dict[str, Any] = {}
    first_stamp: Any = None
    for message in messages:
        if first_stamp is None:
            first_stamp = message.get("timestamp", 0)
        text = _content_text(message.get("content"))
        if text:
            content.append(text)
        patch = message.get("sections")
        if isinstance(patch, dict):
            for name, value in patch.items():
                if value is None:
                    sections.pop(name, None)
                else:
                    sections[name] = value
        for tool in message.get("toolsRemoved") or []:
            if isinstance(tool, dict):
                tools.pop(str(tool.get("name")), None)
        for tool in message.get("toolsAdded") or []:
            if isinstance(tool, dict):
                tools[str(tool.get("name"))] = tool
    if first_stamp is None and not tools:
        return None
    result: dict[str, Any] = {"role": "system", "content": "\n\n".join(content)}
    if sections:
        result["sections"] = sections
    if tools:
        result["toolsAdded"] = list(tools.values())
    result["timestamp"] = iso_to_ms(timestamp) or 0
    return result


def current_system(messages: list[Message]) -> Message | None:
    """All system messages replayed into one: contents appended, sections patched by name (null deletes), tools resolved."""
    content: list[str] = []
    sections: dict[str, str] = {}
    tools: dict[str, Any] = {}
    seen = False
    for message in messages:
        if message.role != "system":
            continue
        seen = True
        text = "\n".join(b.text for b in message.content if isinstance(b, TextBlock))
        if text:
            content.append(text)
        extra = message.model_extra or {}
        patch = extra.get("sections")
        if isinstance(patch, dict):
            for name, value in patch.items():
                if value is None:
                    sections.pop(name, None)
                elif isinstance(value, str):
                    sections[name] = value
        for removed in extra.get("toolsRemoved") or []:
            if isinstance(removed, dict):
                tools.pop(str(removed.get("name")), None)
        for added in message.system_tools():
            if isinstance(added, dict):
                tools[str(added.get("name"))] = added
    if not seen:
        return None
    fields: dict[str, Any] = {"role": "system", "content": [{"type": "text", "text": "\n\n".join(content)}]}
    if sections:
        fields["sections"] = sections
    if tools:
        fields["toolsAdded"] = list(tools.values())
    return Message.model_validate(fields)


def system_prompt(messages: list[Message]) -> str:
    """The prompt text pi sends for a context (empty when it has no system message)."""
    message = current_system(messages)
    return message.text() if message is not None else ""
