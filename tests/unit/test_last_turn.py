"""The nine tests of last-turn-injection-spec.md, with the expected text written out."""

from __future__ import annotations

from cutline.core.engine.last_turn import (
    LastTurn,
    append_last_turn,
    extract_last_turn,
    format_last_turn_section,
    last_turn_section,
)
from cutline.core.models import ImageBlock, Message, TextBlock, ThinkingBlock, ToolCallBlock


def user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text=text)])


def assistant(*blocks) -> Message:
    return Message(role="assistant", content=list(blocks))


def tool_result(call_id: str, text: str) -> Message:
    return Message(role="toolResult", toolCallId=call_id, toolName="bash", content=[TextBlock(text=text)])


# 1
def test_extract_returns_last_user_and_assistant():
    messages = [
        user("first question"),
        assistant(TextBlock(text="first answer")),
        user("second question"),
        assistant(TextBlock(text="second answer")),
    ]
    assert extract_last_turn(messages) == LastTurn(user="second question", assistant="second answer")


# 2
def test_extract_skips_tool_call_arguments_and_thinking():
    messages = [
        user("fix the build"),
        assistant(
            ThinkingBlock(thinking="secret plan"),
            TextBlock(text="Running the tests."),
            ToolCallBlock(id="c1", name="bash", arguments={"command": "pytest -q"}),
        ),
        tool_result("c1", "3 failed"),
        # the newest assistant message is only a tool call: its text is empty
        assistant(ToolCallBlock(id="c2", name="read", arguments={"path": "a.py"})),
        tool_result("c2", "print(1)"),
    ]
    turn = extract_last_turn(messages)
    assert turn == LastTurn(user="fix the build", assistant="Running the tests.")
    assert "pytest" not in (turn.assistant or "")


# 3
def test_extract_without_user_message_has_no_user():
    messages = [assistant(TextBlock(text="hello")), tool_result("x", "out")]
    turn = extract_last_turn(messages)
    assert turn.user is None
    assert last_turn_section(messages) == ""


# 4
def test_format_produces_markdown():
    section = format_last_turn_section(LastTurn(user="Deploy it\nplease", assistant="Deployed to prod."))
    assert section == (
        "## Last Exchange (Verbatim)\n> **User:** Deploy it\n> please\n> **Assistant:** Deployed to prod."
    )


# 5
def test_format_truncates_at_token_cap():
    section = format_last_turn_section(LastTurn(user="u" * 30, assistant="a" * 30), max_tokens=5)
    # 5 tokens = 20 characters shared: 10 for each text
    assert section == (
        f"## Last Exchange (Verbatim)\n> **User:** {'u' * 10}[...truncated]\n> **Assistant:** {'a' * 10}[...truncated]"
    )


def test_format_gives_unused_share_to_the_longer_text():
    section = format_last_turn_section(LastTurn(user="short", assistant="b" * 40), max_tokens=5)
    assert section == (f"## Last Exchange (Verbatim)\n> **User:** short\n> **Assistant:** {'b' * 15}[...truncated]")


# 6
def test_format_empty_when_both_none():
    assert format_last_turn_section(LastTurn()) == ""


def test_format_user_only():
    assert format_last_turn_section(LastTurn(user="hi")) == "## Last Exchange (Verbatim)\n> **User:** hi"


# 7
def test_append_adds_section_after_summary():
    summarized = [user("What is the port?"), assistant(TextBlock(text="It is 8443."))]
    assert append_last_turn("## Goal\nx", summarized) == (
        "## Goal\nx\n\n## Last Exchange (Verbatim)\n> **User:** What is the port?\n> **Assistant:** It is 8443."
    )


# 8
def test_append_nothing_for_empty_messages():
    assert append_last_turn("## Goal\nx", []) == "## Goal\nx"


# 9
def test_token_cap_respected_for_huge_messages():
    huge = "word " * 50_000
    section = last_turn_section([user(huge), assistant(TextBlock(text=huge))], max_tokens=2000)
    body = section.removeprefix("## Last Exchange (Verbatim)\n")
    assert section.count("[...truncated]") == 2
    # 8000 characters of text plus labels and markers
    assert len(body) == 8000 + len("> **User:** ") + len("\n> **Assistant:** ") + 2 * len("[...truncated]")


def test_images_become_placeholders():
    message = Message(role="user", content=[TextBlock(text="look:"), ImageBlock(data="AAAA", mimeType="image/png")])
    assert extract_last_turn([message]).user == "look:\n[image]"
