"""OpenClaw 2026.9's thinking drop for older Claude models (core/agents/openclaw/{thinking,replay_policy}.py).

Every expected value was computed by OpenClaw 2026.9.6 itself under node: its
`dropThinkingBlocks` (dist/tool-result-truncation-*.mjs) on the same messages in pi's shape,
its `resolveTranscriptPolicy` (dist/helpers-*.mjs, bundled provider plugins loaded) for the
flag, and `shouldDropClaudeThinkingBlocks` for the models.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cutline.core.agents import adapter_for
from cutline.core.agents.jsonl import split_lines
from cutline.core.agents.openclaw.replay_policy import drops_thinking, drops_thinking_blocks
from cutline.core.agents.openclaw.thinking import drop_thinking_blocks
from cutline.core.agents.pi.reader import read_pi
from cutline.core.agents.wire import WireBlock, WireMessage, WireText, WireThinking, WireToolCall, WireToolResult


def user(text: str) -> WireMessage:
    return WireMessage(role="user", content=[WireText(text=text)])


def assistant(*content: WireBlock) -> WireMessage:
    return WireMessage(role="assistant", content=list(content))


def thought(text: str, *, redacted: bool = False) -> WireThinking:
    return WireThinking(thinking=text, redacted=redacted)


def call(tool_id: str) -> WireToolCall:
    return WireToolCall(id=tool_id, name="read", arguments={})


def result(tool_id: str) -> WireMessage:
    return WireMessage(role="user", content=[WireToolResult(tool_call_id=tool_id, content=[WireText(text="ok")])])


OMITTED = WireText(text="[assistant reasoning omitted]")


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        pytest.param(
            [user("q"), assistant(thought("a"), WireText(text="one")), user("q2"), assistant(thought("b"))],
            [user("q"), assistant(WireText(text="one")), user("q2"), assistant(thought("b"))],
            id="all-but-the-latest-assistant",
        ),
        pytest.param(
            [user("q"), assistant(thought("a")), user("q2"), assistant(thought("b"), WireText(text="two"))],
            [user("q"), assistant(OMITTED), user("q2"), assistant(thought("b"), WireText(text="two"))],
            id="left-empty",
        ),
        pytest.param(
            [
                user("q"),
                assistant(thought("a"), call("c1")),
                result("c1"),
                assistant(thought("b"), call("c2")),
                result("c2"),
            ],
            [user("q"), assistant(call("c1")), result("c1"), assistant(thought("b"), call("c2")), result("c2")],
            id="tool-loop",
        ),
        pytest.param(
            [user("q"), assistant(thought("a"), WireText(text="x")), assistant()],
            [user("q"), assistant(WireText(text="x")), assistant()],
            id="latest-empty-still-latest",
        ),
        pytest.param(
            [
                user("q"),
                assistant(thought("zz", redacted=True), WireText(text="x")),
                user("q2"),
                assistant(WireText(text="y")),
            ],
            [user("q"), assistant(WireText(text="x")), user("q2"), assistant(WireText(text="y"))],
            id="redacted",
        ),
        pytest.param([user("q")], [user("q")], id="no-assistant"),
    ],
)
def test_thinking_dropped_as_openclaw_drops_it(messages: list[WireMessage], expected: list[WireMessage]) -> None:
    assert drop_thinking_blocks(messages) == expected


@pytest.mark.parametrize(
    ("provider", "api", "model", "drops"),
    [
        ("anthropic", "anthropic-messages", "claude-sonnet-4-5", True),
        ("anthropic", "openai-responses", "claude-sonnet-4-5", True),
        ("Anthropic", "anthropic-messages", "claude-sonnet-4-6", False),
        ("fakeant", "anthropic-messages", "fake-claude", False),  # the corpus
        ("fakeant", "anthropic-messages", "claude-sonnet-4-5", True),
        ("custom", "bedrock-converse-stream", "anthropic.claude-3-7-sonnet", True),
        ("custom", "openai-completions", "claude-sonnet-4-5", False),
        ("custom", "openai-responses", "claude-sonnet-4-5", False),
        ("openai", "openai-completions", "claude-sonnet-4-5", False),
        ("google", "google-generative-ai", "claude-sonnet-4-5", False),
        ("minimax", "anthropic-messages", "claude-sonnet-4-5", True),
        ("minimax", "anthropic-messages", "MiniMax-M2", False),
    ],
)
def test_which_runs_drop_thinking(provider: str, api: str, model: str, drops: bool) -> None:
    assert drops_thinking_blocks(provider, api, model) is drops


@pytest.mark.parametrize(
    ("model", "drops"),
    [
        ("claude-3-5-haiku-20241022", True),
        ("claude-opus-4-1", True),
        ("claude-haiku-4-5", True),
        ("claude-sonnet-4", True),
        ("Claude Sonnet 4.5", True),
        ("us.anthropic.claude-sonnet-4-20250514-v1:0", True),
        ("claude-opus-4-5-20251101", False),
    ],
)
def test_more_claude_models(model: str, drops: bool) -> None:
    assert drops_thinking(model) is drops


def _session_lines(model: str) -> str:
    def message(i: int, role: str, content: list[dict[str, object]]) -> dict[str, object]:
        parent = f"e{i - 1}" if i > 1 else None
        body = {"role": role, "content": content, "timestamp": 1}
        return {
            "type": "message",
            "id": f"e{i}",
            "parentId": parent,
            "timestamp": "2026-09-01T00:00:00Z",
            "message": body,
        }

    snapshot = {"provider": "anthropic", "modelApi": "anthropic-messages", "modelId": model}
    lines: list[dict[str, object]] = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-09-01T00:00:00Z", "cwd": "/w"},
        message(1, "user", [{"type": "text", "text": "q"}]),
        message(
            2,
            "assistant",
            [{"type": "thinking", "thinking": "a", "thinkingSignature": "s"}, {"type": "text", "text": "one"}],
        ),
        message(3, "user", [{"type": "text", "text": "q2"}]),
        message(
            4,
            "assistant",
            [{"type": "thinking", "thinking": "b", "thinkingSignature": "s"}, {"type": "text", "text": "two"}],
        ),
        {
            "type": "custom",
            "id": "e5",
            "parentId": "e4",
            "timestamp": "2026-09-01T00:00:00Z",
            "customType": "model-snapshot",
            "data": snapshot,
        },
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


@pytest.mark.parametrize(("model", "first_turn"), [("claude-sonnet-4-5", ["one"]), ("claude-sonnet-4-6", ["a", "one"])])
def test_the_openclaw_context_drops_thinking_for_the_last_runs_model(
    tmp_path: Path, model: str, first_turn: list[str]
) -> None:
    text = _session_lines(model)
    session = read_pi(split_lines(text, "s.jsonl"), "s.jsonl", "s").model_copy(update={"format": "openclaw"})
    messages = adapter_for("openclaw").wire_context(session).messages
    assistants = [m for m in messages if m.role == "assistant"]
    shown = [
        b.thinking if isinstance(b, WireThinking) else b.text
        for b in assistants[0].content
        if isinstance(b, WireThinking | WireText)
    ]
    assert shown == first_turn
    assert [type(b) for b in assistants[1].content] == [WireThinking, WireText]
