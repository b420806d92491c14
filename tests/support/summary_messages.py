"""Messages for summarizer tests: a user's ask, an assistant's text and tool calls, their results, filler reads."""

from __future__ import annotations

from cutline.core.models import Message, TextBlock, ToolCallBlock

# a long read of an unrelated file: real spans are mostly tool output, and the summary must be shorter than the span
LONG_OUTPUT = "\n".join(f"line {n}: nothing of note here, just filler output" for n in range(80))


def user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text=text)])


def assistant(text: str = "", *calls: ToolCallBlock) -> Message:
    return Message(role="assistant", content=[*([TextBlock(text=text)] if text else []), *calls])


def call(call_id: str, name: str, **arguments: object) -> ToolCallBlock:
    return ToolCallBlock(id=call_id, name=name, arguments=arguments)


def result(call_id: str, text: str, error: bool = False, name: str = "bash") -> Message:
    return Message(role="toolResult", toolCallId=call_id, toolName=name, isError=error, content=[TextBlock(text=text)])


def filler(n: int) -> list[Message]:
    """A read of an unrelated file and its long output."""
    return [assistant("", call(f"f{n}", "read", path=f"docs/notes_{n}.md")), result(f"f{n}", LONG_OUTPUT, name="read")]
