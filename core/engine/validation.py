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

from pydantic import BaseModel, ConfigDict, Field

from cutline.core.models import ImageBlock, Message, TextBlock, ToolCallBlock, ToolResultBlock
from cutline.core.summarizers.serialize import to_llm


class ContextProblem(BaseModel):
    """One reason the API would refuse the context, at a message (index into the validated list)."""

    model_config = ConfigDict(defer_build=True)

    index: int
    entry_id: str | None = None
    code: str
    message: str

    def __str__(self) -> str:
        where = f"message {self.index}" + (f" (entry {self.entry_id})" if self.entry_id else "")
        return f"{where}: {self.message}"


class Validation(BaseModel):
    """The verdict on a context: ok when there is no problem."""

    model_config = ConfigDict(defer_build=True)

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


class _Checker:
    """The state of one pass over a context: problems found and which tool calls await their results."""

    def __init__(self, entry_ids: list[str | None] | None) -> None:
        self.entry_ids = entry_ids
        self.problems: list[ContextProblem] = []
        self.pending: dict[str, int] = {}
        self.answered: set[str] = set()
        self.called: set[str] = set()
        self.text_seen_in_turn = False

    def flag(self, index: int, code: str, text: str) -> None:
        entry_ids = self.entry_ids
        entry_id = entry_ids[index] if entry_ids and index < len(entry_ids) else None
        self.problems.append(ContextProblem(index=index, entry_id=entry_id, code=code, message=text))

    def close_assistant_turn(self) -> None:
        """Every call of the closing assistant turn still without a result is missing one."""
        for call_id, call_index in self.pending.items():
            self.flag(call_index, "missing-result", f"tool call {call_id} has no result in the next user turn")
        self.pending.clear()

    def assistant(self, index: int, message: Message, opens_turn: bool) -> None:
        if opens_turn:
            self.close_assistant_turn()
        for call in message.tool_calls():
            self.pending[call.id] = index
            self.called.add(call.id)
        self.text_seen_in_turn = False

    def user(self, index: int, message: Message, opens_turn: bool) -> None:
        if opens_turn:
            self.text_seen_in_turn = False
        # a Claude Code result can carry its id twice (on the message and in its block): count it once
        result_ids = list(dict.fromkeys(message.tool_result_ids()))
        for result_id in result_ids or ([""] if message.role == "toolResult" else []):
            self.result(index, result_id)
        if _has_non_result_content(message):
            self.text_seen_in_turn = True

    def result(self, index: int, result_id: str) -> None:
        """A tool result: answering a pending call, or a duplicate, or an orphan."""
        if result_id in self.pending:
            if self.text_seen_in_turn:
                self.flag(
                    index, "result-after-text", f"the result of tool call {result_id} comes after text in its user turn"
                )
            del self.pending[result_id]
            self.answered.add(result_id)
        elif result_id in self.answered:
            self.flag(index, "duplicate-result", f"a second result for tool call {result_id}")
        elif result_id in self.called:
            self.flag(
                index, "orphan-result", f"the result of tool call {result_id} does not follow its call's assistant turn"
            )
        else:
            label = result_id or "(no id)"
            self.flag(index, "orphan-result", f"tool result for call {label}, which is not in the context")


def _sent(messages: list[Message], checker: _Checker) -> list[tuple[int, Message]]:
    """The messages as the API receives them, each with its index in `messages` (a late system message is flagged)."""
    sent: list[tuple[int, Message]] = []
    for index, message in enumerate(messages):
        if message.role == "system":
            if sent:
                checker.flag(index, "system-not-first", "a system message after the conversation started")
            continue
        if message.role == "assistant" and message.stopReason in ("error", "aborted"):
            continue
        sent.extend((index, m) for m in to_llm([message]))
    return sent


def validate_context(messages: list[Message], entry_ids: list[str | None] | None = None) -> Validation:
    """Validate `messages` (in the order the agent sends them); `entry_ids[i]` names where message i came from."""
    checker = _Checker(entry_ids)
    sent = _sent(messages, checker)
    if not sent:
        checker.flag(0, "empty-context", "there is no message to send")
        return Validation(ok=False, problems=checker.problems)
    first_index, first = sent[0]
    if first.role == "assistant":
        checker.flag(
            first_index,
            "first-not-user",
            "the first message is an assistant message; the API needs a user message first",
        )
    previous_role: str | None = None
    last_position = len(sent) - 1
    for position, (index, message) in enumerate(sent):
        role = "assistant" if message.role == "assistant" else "user"
        is_final_assistant = role == "assistant" and position == last_position
        if _is_blank(message) and message.role != "toolResult" and not is_final_assistant:
            checker.flag(index, "empty-content", f"{message.role} message has no content")
        if role == "assistant":
            checker.assistant(index, message, opens_turn=previous_role != "assistant")
        else:
            checker.user(index, message, opens_turn=previous_role != "user")
        previous_role = role
        # the user turn after an assistant turn is the only place its calls may be answered
        if role == "user" and position < last_position and sent[position + 1][1].role == "assistant":
            checker.close_assistant_turn()
    checker.close_assistant_turn()
    problems = sorted(checker.problems, key=lambda p: p.index)
    return Validation(ok=not problems, problems=problems)
