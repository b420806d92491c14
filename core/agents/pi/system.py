"""pi 0.87's system prompt replayed from the `role:"system"` messages of a context (pi-ai's getCurrentSystemMessage).

Why: Anthropic-style providers carry the prompt outside the message list; pi folds
every system message of the context into one leading prompt, which the request sends
as its `system` field.
"""

from __future__ import annotations

from typing import Any

from cutline.core.models import Message, TextBlock


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
