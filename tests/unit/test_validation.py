"""The rebuilt-context validator: each rule on a small hand-made context."""

from __future__ import annotations

from cutline.core.engine.validation import validate_context
from cutline.core.models import Message, TextBlock, ToolCallBlock, ToolResultBlock


def user(text: str = "hi") -> Message:
    return Message(role="user", content=[TextBlock(text=text)])


def assistant(text: str = "ok", *calls: str, stop: str | None = None) -> Message:
    blocks = [TextBlock(text=text)] if text else []
    blocks += [ToolCallBlock(id=c, name="bash", arguments={}) for c in calls]
    return Message(role="assistant", content=blocks, stopReason=stop)


def result(call_id: str) -> Message:
    return Message(role="toolResult", toolCallId=call_id, toolName="bash", content=[TextBlock(text="out")])


def codes(messages, entry_ids=None) -> list[tuple[int, str]]:
    return [(p.index, p.code) for p in validate_context(messages, entry_ids).problems]


def test_valid_tool_exchange():
    messages = [user(), assistant("run", "c1", "c2"), result("c1"), result("c2"), assistant("done"), user("next")]
    validation = validate_context(messages)
    assert validation.ok and validation.problems == []
    assert validation.summary() == "valid"


def test_summary_message_counts_as_user_first():
    summary = Message(role="compactionSummary", summary="the story so far")
    assert codes([summary, assistant("continuing")]) == []


def test_assistant_first_flagged():
    assert codes([assistant("hello"), user()]) == [(0, "first-not-user")]


def test_orphan_result_whose_call_was_cut_away():
    validation = validate_context([user(), result("gone"), assistant("x")], ["e1", "e2", "e3"])
    assert [(p.index, p.code, p.entry_id) for p in validation.problems] == [(1, "orphan-result", "e2")]
    assert str(validation.problems[0]) == "message 1 (entry e2): tool result for call gone, which is not in the context"


def test_result_separated_from_its_turn_is_orphan():
    messages = [user(), assistant("a", "c1"), user("interrupt"), assistant("b"), result("c1")]
    assert codes(messages) == [(1, "missing-result"), (4, "orphan-result")]


def test_missing_result_for_trailing_call():
    assert codes([user(), assistant("", "c1")]) == [(1, "missing-result")]


def test_text_before_result_in_same_user_turn():
    messages = [user(), assistant("a", "c1"), user("wait"), result("c1"), assistant("b")]
    assert codes(messages) == [(3, "result-after-text")]


def test_duplicate_result():
    messages = [user(), assistant("a", "c1"), result("c1"), result("c1"), assistant("b")]
    assert codes(messages) == [(3, "duplicate-result")]


def test_empty_content_but_final_assistant_may_be_empty():
    assert codes([user(""), assistant("x")]) == [(0, "empty-content")]
    assert codes([user("q"), Message(role="assistant", content=[])]) == []


def test_errored_assistant_skipped_and_system_only_first():
    system = Message(role="system", content=[TextBlock(text="be brief")])
    messages = [system, user(), assistant("", "c9", stop="error"), assistant("fine")]
    assert codes(messages) == []
    assert codes([user(), system, assistant()]) == [(1, "system-not-first")]


def test_empty_context():
    assert codes([]) == [(0, "empty-context")]


def test_claude_code_style_results_inside_user_message():
    carrier = Message(role="user", content=[ToolResultBlock(toolCallId="t1", content=[TextBlock(text="ok")])])
    assert codes([user(), assistant("a", "t1"), carrier, assistant("b")]) == []


def test_result_naming_its_call_on_message_and_block_counts_once():
    both = Message(
        role="toolResult",
        toolCallId="t1",
        content=[ToolResultBlock(toolCallId="t1", content=[TextBlock(text="ok")])],
    )
    assert codes([user(), assistant("a", "t1"), both, assistant("b")]) == []
