"""Serialization of messages for summarizers: pi's convertToLlm + serializeConversation, and the preview style.

Expected strings are written by hand from pi 0.73.1's messages.js and compaction/utils.js.
"""

from __future__ import annotations

from cutline.core.models import ImageBlock, Message, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from cutline.core.summarizers.serialize import (
    cap_middle,
    format_tool_call,
    serialize_conversation,
    to_llm,
    truncate_for_summary,
)
from cutline.core.tokens.jsjson import js_length as js_len
from cutline.core.tokens.jsjson import js_stringify
from tests.support.paths import ROOT


def user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text=text)])


def test_user_assistant_and_tool_result_labels() -> None:
    messages = [
        user("Fix the bug in src/app.py"),
        Message(
            role="assistant",
            content=[
                ThinkingBlock(thinking="Look at the file first."),
                TextBlock(text="Reading it."),
                ToolCallBlock(id="c1", name="read", arguments={"path": "src/app.py", "limit": 50}),
                ToolCallBlock(id="c2", name="bash", arguments={"command": "ls -la"}),
            ],
        ),
        Message(role="toolResult", toolCallId="c1", toolName="read", content=[TextBlock(text="print('hi')")]),
    ]
    assert serialize_conversation(messages) == (
        "[User]: Fix the bug in src/app.py\n\n"
        "[Assistant thinking]: Look at the file first.\n\n"
        "[Assistant]: Reading it.\n\n"
        '[Assistant tool calls]: read(path="src/app.py", limit=50); bash(command="ls -la")\n\n'
        "[Tool result]: print('hi')"
    )


def test_text_blocks_join_rules() -> None:
    # user and tool-result text blocks are joined with nothing, assistant ones with a newline
    messages = [
        Message(
            role="user", content=[TextBlock(text="a"), ImageBlock(data="x", mimeType="image/png"), TextBlock(text="b")]
        ),
        Message(role="assistant", content=[TextBlock(text="c"), TextBlock(text="d")]),
        Message(role="toolResult", toolCallId="t", content=[TextBlock(text="e"), TextBlock(text="f")]),
    ]
    assert serialize_conversation(messages) == "[User]: ab\n\n[Assistant]: c\nd\n\n[Tool result]: ef"


def test_empty_parts_are_left_out() -> None:
    messages = [
        Message(role="user", content=[ImageBlock(data="x", mimeType="image/png")]),
        Message(role="assistant", content=[]),
        Message(role="toolResult", toolCallId="t", content=[]),
        user("only this"),
    ]
    assert serialize_conversation(messages) == "[User]: only this"


def test_tool_result_truncated_at_2000_with_pis_marker() -> None:
    text = "x" * 2000
    assert (
        serialize_conversation([Message(role="toolResult", content=[TextBlock(text=text)])]) == "[Tool result]: " + text
    )
    longer = "y" * 2500
    assert serialize_conversation([Message(role="toolResult", content=[TextBlock(text=longer)])]) == (
        "[Tool result]: " + "y" * 2000 + "\n\n[... 500 more characters truncated]"
    )


def test_truncation_counts_utf16_units_like_javascript() -> None:
    # each emoji is two UTF-16 units: 1001 of them are 2002 units, 2 over the limit
    text = "\U0001f600" * 1001
    assert js_len(text) == 2002
    assert truncate_for_summary(text) == "\U0001f600" * 1000 + "\n\n[... 2 more characters truncated]"
    # a cut through a surrogate pair keeps pi's length, with U+FFFD for the half character
    odd = "a" + "\U0001f600" * 1000
    cut = truncate_for_summary(odd)
    assert cut == "a" + "\U0001f600" * 999 + "\ufffd" + "\n\n[... 1 more characters truncated]"
    assert js_len(cut) == 2000 + len("\n\n[... 1 more characters truncated]")


def test_tool_call_arguments_formatted_as_javascript_json() -> None:
    call = ToolCallBlock(
        name="edit",
        arguments={"path": "a.py", "b": 1.0, "10": None, "2": [True, 0.5, 1e21, 1e-7], "s": 'q"\n\u00e9'},
    )
    # integer-like keys first in numeric order (JavaScript property order), 1.0 printed as 1
    assert format_tool_call(call) == 'edit(2=[true,0.5,1e+21,1e-7], 10=null, path="a.py", b=1, s="q\\"\\n\u00e9")'
    assert js_stringify({"nested": {"k": [1, {"x": "y"}]}}) == '{"nested":{"k":[1,{"x":"y"}]}}'
    assert format_tool_call(ToolCallBlock(name="noargs", arguments={})) == "noargs()"
    assert format_tool_call(ToolCallBlock(name="codex", arguments='{"cmd": ["ls"]}')) == 'codex(cmd=["ls"])'


def test_bash_execution_becomes_user_text() -> None:
    ran = Message(role="bashExecution", command="make test", output="ok\n2 passed", exitCode=0)
    failed = Message(role="bashExecution", command="false", output="", exitCode=1)
    cancelled = Message.model_validate(
        {"role": "bashExecution", "command": "sleep 9", "output": "", "exitCode": None, "cancelled": True}
    )
    truncated = Message.model_validate(
        {
            "role": "bashExecution",
            "command": "cat big",
            "output": "...",
            "exitCode": 0,
            "truncated": True,
            "fullOutputPath": "/tmp/out.txt",
        }
    )
    excluded = Message.model_validate(
        {"role": "bashExecution", "command": "secret", "output": "x", "exitCode": 0, "excludeFromContext": True}
    )
    assert serialize_conversation([ran, failed, cancelled, truncated, excluded]) == (
        "[User]: Ran `make test`\n```\nok\n2 passed\n```\n\n"
        "[User]: Ran `false`\n(no output)\n\nCommand exited with code 1\n\n"
        "[User]: Ran `sleep 9`\n(no output)\n\n(command cancelled)\n\n"
        "[User]: Ran `cat big`\n```\n...\n```\n\n[Output truncated. Full output: /tmp/out.txt]"
    )
    assert len(to_llm([excluded])) == 0


def test_summaries_and_custom_messages_become_user_messages() -> None:
    messages = [
        Message(role="compactionSummary", summary="## Goal\n- ship it"),
        Message(role="branchSummary", summary="tried X"),
        Message(role="custom", customType="note", content=[TextBlock(text="remember Y")], display=False),
        Message(role="system", content=[TextBlock(text="system text pi never sends")]),
    ]
    converted = to_llm(messages)
    assert [m.role for m in converted] == ["user", "user", "user"]
    assert serialize_conversation(messages) == (
        "[User]: The conversation history before this point was compacted into the following summary:\n\n"
        "<summary>\n## Goal\n- ship it\n</summary>\n\n"
        "[User]: The following is a summary of a branch that this conversation came back from:\n\n"
        "<summary>\ntried X</summary>\n\n"
        "[User]: remember Y"
    )
    assert to_llm(to_llm(messages)) == converted


def test_claude_code_tool_results_inside_user_messages() -> None:
    message = Message(
        role="user",
        content=[
            ToolResultBlock(toolCallId="toolu_1", content=[TextBlock(text="file contents")]),
            ToolResultBlock(toolCallId="toolu_2", content=[TextBlock(text="z" * 2001)], isError=True),
        ],
    )
    assert serialize_conversation([message]) == (
        "[Tool result]: file contents\n\n[Tool result]: " + "z" * 2000 + "\n\n[... 1 more characters truncated]"
    )


def test_preview_style_keeps_head_and_tail_of_tool_results() -> None:
    text = "H" * 500 + "M" * 300 + "T" * 200
    out = serialize_conversation([Message(role="toolResult", content=[TextBlock(text=text)])], style="preview")
    assert out == "[Tool result]: " + "H" * 500 + "\n\n[... 300 characters omitted ...]\n\n" + "T" * 200
    short = "s" * 700
    assert serialize_conversation([Message(role="toolResult", content=[TextBlock(text=short)])], style="preview") == (
        "[Tool result]: " + short
    )


def test_preview_style_caps_the_whole_input_from_the_middle() -> None:
    messages = [user(f"{i:03d}" + "a" * 996) for i in range(150)]
    full = serialize_conversation(messages)
    out = serialize_conversation(messages, style="preview")
    assert len(full) > 100_000
    assert len(out) <= 100_000
    assert out.startswith("[User]: 000aaa")
    assert out.endswith("[User]: 149" + "a" * 996)
    # head + tail + marker account for every character of the capped text
    head, rest = out.split("\n\n[... ", 1)
    count, tail = rest.split(" characters of the conversation omitted from the middle ...]\n\n", 1)
    assert len(head) + int(count) + len(tail) == len(full)
    assert full.startswith(head) and full.endswith(tail)


def test_cap_middle_leaves_short_text_alone() -> None:
    assert cap_middle("abc", 10) == "abc"
    capped = cap_middle("x" * 500, 120)
    assert len(capped) <= 120 and capped.startswith("x") and capped.endswith("x")


def test_serialized_length_matches_pi_on_the_golden_sessions() -> None:
    """pi's own `serializedChars` (recorded by the pi oracle in tests/golden) for every plan of the hand-made sessions."""
    import json

    from cutline.core.agents import read_session
    from cutline.core.config.settings import CompactionSettings
    from cutline.core.engine.context import entry_message
    from cutline.core.engine.plan import plan

    root = ROOT
    compared = 0
    for golden_file in sorted((root / "tests" / "golden").glob("*.golden.json")):
        golden = json.loads(golden_file.read_text())
        if not golden["source"].startswith("tests/golden/sessions/"):
            continue  # goldens of sample_sessions/ go stale whenever the samples are regenerated
        path = read_session(root / golden["source"]).active_path()
        for keep, expected in golden["plans"].items():
            if not expected:
                continue
            planned = plan(path, CompactionSettings(keepRecentTokens=int(keep), rules="pi-0.73"))
            messages = [
                m
                for i in planned.summarize_indices()
                if path[i].type != "compaction" and (m := entry_message(path[i])) is not None
            ]
            assert js_len(serialize_conversation(messages)) == expected["serializedChars"], (golden_file.name, keep)
            compared += 1
    assert compared >= 20
