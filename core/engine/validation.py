"""Checks that a rebuilt context is one the Anthropic Messages API accepts.

Broken tool pairing after compaction is the most reported compaction bug in pi,
OpenClaw and Claude Code, so a proposal is validated before it can be accepted.

What is checked, on the messages as they are sent (after `core.summarizers.serialize.to_llm`;
tool results become user turns, consecutive messages of one role form one turn, as
the API merges them; errored or aborted assistant messages are skipped, as pi-ai
drops them before sending; a system message may only come first):

- `empty-context`    there is no message to send;
- `first-not-user`   the first message is not a user message;
- `system-not-first` a system message after other messages;
- `empty-content`    a message with no content or only blank text (the API rejects it
                     anywhere but as the final assistant message);
- `orphan-result`    a tool result whose call is not in the assistant turn right before it;
- `duplicate-result` a second result for a call already answered;
- `result-after-text` in the user turn after a tool call, text comes before a result
                     (the API wants the tool_result blocks first);
- `missing-result`   a tool call with no result in the next user turn, including a
                     trailing call still waiting for its result: the agent would send
                     that context as is, and the API refuses it.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from cutline.core.models import ImageBlock, Message, TextBlock, ToolCallBlock, ToolResultBlock
from cutline.core.summarizers.serialize import to_llm


class ContextProblem(BaseModel):
    """One reason the API would refuse the context, at a message (index into the validated list)."""

    index: int
    entry_id: str | None = None
    code: str
    message: str

    def __str__(self) -> str:
        where = f"message {self.index}" + (f" (entry {self.entry_id})" if self.entry_id else "")
        return f"{where}: {self.message}"


class Validation(BaseModel):
    """The verdict on a context: ok when there is no problem."""

    ok: bool = True
    problems: list[ContextProblem] = Field(default_factory=list)

    def summary(self) -> str:
        if self.ok:
            return "valid"
        return "; ".join(str(p) for p in self.problems)


def _is_blank(message: Message) -> bool:
    for block in message.content:
        if isinstance(block, TextBlock):
            if block.text.strip():
                return False
        elif isinstance(block, ImageBlock | ToolCallBlock | ToolResultBlock):
            return False
        else:
            return False
    return True


def _has_non_result_content(message: Message) -> bool:
    if message.role == "toolResult":
        return False
    return any(not isinstance(b, ToolResultBlock) for b in message.content)


def validate_context(messages: list[Message], entry_ids: list[str | None] | None = None) -> Validation:
    """Validate `messages` (in the order the agent sends them); `entry_ids[i]` names where message i came from."""
    problems: list[ContextProblem] = []

    def flag(index: int, code: str, text: str) -> None:
        entry_id = entry_ids[index] if entry_ids and index < len(entry_ids) else None
        problems.append(ContextProblem(index=index, entry_id=entry_id, code=code, message=text))

    sent: list[tuple[int, Message]] = []
    for index, message in enumerate(messages):
        if message.role == "system":
            if sent:
                flag(index, "system-not-first", "a system message after the conversation started")
            continue
        if message.role == "assistant" and message.stopReason in ("error", "aborted"):
            continue
        sent.extend((index, m) for m in to_llm([message]))

    if not sent:
        flag(0, "empty-context", "there is no message to send")
        return Validation(ok=False, problems=problems)

    first_index, first = sent[0]
    if first.role == "assistant":
        flag(
            first_index,
            "first-not-user",
            "the first message is an assistant message; the API needs a user message first",
        )

    pending: dict[str, int] = {}
    answered: set[str] = set()
    called: set[str] = set()
    text_seen_in_turn = False
    previous_role: str | None = None
    last_position = len(sent) - 1

    def close_assistant_turn() -> None:
        for call_id, call_index in pending.items():
            flag(call_index, "missing-result", f"tool call {call_id} has no result in the next user turn")
        pending.clear()

    for position, (index, message) in enumerate(sent):
        role = "assistant" if message.role == "assistant" else "user"
        is_final_assistant = role == "assistant" and position == last_position
        if _is_blank(message) and message.role != "toolResult" and not is_final_assistant:
            flag(index, "empty-content", f"{message.role} message has no content")
        if role == "assistant":
            if previous_role != "assistant":
                close_assistant_turn()
            for call in message.tool_calls():
                pending[call.id] = index
                called.add(call.id)
            text_seen_in_turn = False
        else:
            if previous_role != "user":
                text_seen_in_turn = False
            # a Claude Code result can carry its id twice (on the message and in its block): count it once
            result_ids = list(dict.fromkeys(message.tool_result_ids()))
            for result_id in result_ids or ([""] if message.role == "toolResult" else []):
                if result_id in pending:
                    if text_seen_in_turn:
                        flag(
                            index,
                            "result-after-text",
                            f"the result of tool call {result_id} comes after text in its user turn",
                        )
                    del pending[result_id]
                    answered.add(result_id)
                elif result_id in answered:
                    flag(index, "duplicate-result", f"a second result for tool call {result_id}")
                elif result_id in called:
                    flag(
                        index,
                        "orphan-result",
                        f"the result of tool call {result_id} does not follow its call's assistant turn",
                    )
                else:
                    label = result_id or "(no id)"
                    flag(index, "orphan-result", f"tool result for call {label}, which is not in the context")
            if _has_non_result_content(message):
                text_seen_in_turn = True
        previous_role = role
        # the user turn after an assistant turn is the only place its calls may be answered
        if role == "user" and position < last_position and sent[position + 1][1].role == "assistant":
            close_assistant_turn()
    close_assistant_turn()

    problems.sort(key=lambda p: p.index)
    return Validation(ok=not problems, problems=problems)
