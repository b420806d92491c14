"""The history Codex sends next: after a `compacted` record, its `replacement_history` verbatim, then what followed.

Codex 0.16x writes the whole new history into the record (`replacement_history`): the
earlier user messages, its developer and environment messages, the summary as a user
message. Older rollouts have only the summary (`message`): Codex then rebuilt the
history from the earlier user messages and the summary, which is what is done here too.
Each Responses item is one message on the wire, so nothing is merged.
"""

from __future__ import annotations

from typing import Any

from cutline.core.agents.codex.reader import is_encrypted_item, item_message
from cutline.core.agents.context import context_weight
from cutline.core.agents.wire import WireMessage, WireToolResult, wire_blocks
from cutline.core.models import Entry, Message, TextBlock


def _last_compaction(path: list[Entry]) -> int:
    for i in range(len(path) - 1, -1, -1):
        if path[i].type == "compaction":
            return i
    return -1


def history_messages(items: list[Any]) -> list[Message]:
    """A `replacement_history` as model messages; an encrypted compaction item is an opaque (redacted) reasoning."""
    tool_names: dict[str, str] = {}
    out: list[Message] = []
    for item in items:
        if is_encrypted_item(item):
            opaque = {"role": "assistant", "content": [{"type": "thinking", "thinking": "", "redacted": True}]}
            out.append(Message.model_validate(opaque))
            continue
        if type(item) is not dict:
            continue
        shaped = item_message(item, tool_names, None)
        if shaped is not None:
            shaped.pop("injected", None)
            out.append(Message.model_validate(shaped))
    return out


def _replacement(entry: Entry) -> list[Any] | None:
    details = entry.compaction.details if entry.compaction is not None else None
    history = details.get("replacement_history") if isinstance(details, dict) else None
    return history if isinstance(history, list) else None


def codex_context(path: list[Entry]) -> list[Message]:
    """The messages of Codex's next request for a rollout path (its base instructions aside)."""
    weights = context_weight(path)
    last = _last_compaction(path)
    after = [path[i].message for i in range(last + 1, len(path)) if weights[i] and path[i].message is not None]
    messages = [m for m in after if m is not None]
    if last < 0:
        return messages
    compaction = path[last]
    history = _replacement(compaction)
    if history is not None:
        return [*history_messages(history), *messages]
    # before replacement_history: the earlier user prompts (not Codex's injected context), then the summary
    earlier = [
        entry.message
        for entry in path[:last]
        if entry.message is not None and entry.message.role == "user" and not entry.isMeta
    ]
    summary = compaction.compaction.summary if compaction.compaction is not None else ""
    summary_message = Message(role="user", content=[TextBlock(text=summary)])
    return [*earlier, summary_message, *messages]


def codex_wire(messages: list[Message]) -> list[WireMessage]:
    """Each message as the one Responses item it is: developer as `system`, tool outputs as `tool`."""
    out: list[WireMessage] = []
    for message in messages:
        blocks = wire_blocks(message)
        if message.role == "toolResult":
            content = [b for b in blocks if b.type in ("text", "image")]
            result = WireToolResult.model_validate(
                {"tool_call_id": message.toolCallId or "", "content": content, "is_error": message.isError}
            )
            out.append(WireMessage(role="tool", content=[result]))
        elif message.role == "system":
            out.append(WireMessage(role="system", content=blocks))
        elif message.role == "assistant":
            out.append(WireMessage(role="assistant", content=blocks))
        else:
            out.append(WireMessage(role="user", content=blocks))
    return out


def encrypted_note(path: list[Entry]) -> str | None:
    """Why part of the context cannot be shown, when the latest compaction is an encrypted remote one."""
    last = _last_compaction(path)
    if last < 0:
        return None
    record = path[last].compaction
    details = record.details if record is not None else None
    if isinstance(details, dict) and details.get("encrypted"):
        return "the latest compaction is an encrypted remote one: its summary is sent as encrypted_content and cannot be read"
    return None
