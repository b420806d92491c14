"""OpenClaw 2026.9's tool call id rewrite and the policy that picks it (core/agents/openclaw/{tool_call_ids,replay_policy}.py).

The expected ids were computed by OpenClaw 2026.9.6 itself: its `sanitizeToolCallIdsForCloudCodeAssist`
(dist/tool-call-id-*.mjs) run under node on the same messages, in pi's shape (assistant
`toolCall` blocks, `toolResult` messages).
"""

from __future__ import annotations

import pytest

from cutline.core.agents.openclaw.replay_policy import (
    ModelSnapshot,
    ToolIdPolicy,
    drops_thinking,
    last_model_snapshot,
    tool_id_policy,
)
from cutline.core.agents.openclaw.tool_call_ids import rewrite_tool_call_ids, sanitize_tool_call_id
from cutline.core.agents.wire import WireMessage, WireText, WireThinking, WireToolCall, WireToolResult
from cutline.core.models import Entry

STRICT = ToolIdPolicy("strict")
STRICT9 = ToolIdPolicy("strict9")
NATIVE = ToolIdPolicy("strict", preserve_native_anthropic=True)
THINKING = ToolIdPolicy("strict", keep_thinking_turn_ids=True)


def calls(*ids: str, thinking: bool = False) -> WireMessage:
    blocks: list[WireThinking | WireToolCall] = [WireThinking(thinking="x")] if thinking else []
    blocks += [WireToolCall(id=i, name="read", arguments={}) for i in ids]
    return WireMessage(role="assistant", content=list(blocks))


def results(*ids: str) -> WireMessage:
    return WireMessage(role="user", content=[WireToolResult(tool_call_id=i) for i in ids])


def ids(messages: list[WireMessage]) -> list[list[str]]:
    out: list[list[str]] = []
    for message in messages:
        out.append(
            [b.id if isinstance(b, WireToolCall) else b.tool_call_id for b in message.content if b.type != "thinking"]
        )
    return out


@pytest.mark.parametrize(
    ("messages", "policy", "expected"),
    [
        pytest.param(
            [calls("toolu_fake_8ba541ea4dfc463b"), results("toolu_fake_8ba541ea4dfc463b")],
            STRICT,
            [["toolufake8ba541ea4dfc463b"], ["toolufake8ba541ea4dfc463b"]],
            id="letters-and-digits",
        ),
        pytest.param(
            [calls("call_a-b", "call_ab"), results("call_a-b", "call_ab")],
            STRICT,
            [["callab", "callab2594389b"], ["callab", "callab2594389b"]],
            id="collision-gets-hash-of-raw-id",
        ),
        pytest.param(
            [calls("a_b", "ab", "a-b"), results("a_b", "ab", "a-b")],
            STRICT,
            [["ab", "abfb8e20fc", "abd44362d6"], ["ab", "abfb8e20fc", "abd44362d6"]],
            id="three-way-collision",
        ),
        pytest.param(
            [calls("x_y", "xy769a4e6d", "xy"), results("xy")],
            STRICT,
            [["xy", "xy769a4e6d", "xy769a4e6dx2"], ["xy769a4e6dx2"]],
            id="hashed-taken-then-numbered",
        ),
        pytest.param(
            [calls("dup"), results("dup"), calls("dup"), results("dup")],
            STRICT,
            [["dup"], ["dup"], ["dup2"], ["dup2"]],
            id="repeated-id-second-occurrence",
        ),
        pytest.param(
            [calls("x"), results("x", "orphan_1")],
            STRICT,
            [["x"], ["x", "orphan1toolresult1"]],
            id="orphan-result",
        ),
        pytest.param(
            [calls("a" * 45 + "1", "a" * 45 + "2"), results("a" * 45 + "2")],
            STRICT,
            [["a" * 40, "a" * 32 + "860561c8"], ["a" * 32 + "860561c8"]],
            id="forty-characters-at-most",
        ),
        pytest.param(
            [calls("functions.read:0", "___"), results("functions.read:0", "___")],
            STRICT,
            [["functions.read:0", "sanitizedtoolid"], ["functions.read:0", "sanitizedtoolid"]],
            id="kimi-id-kept-empty-replaced",
        ),
        pytest.param(
            [calls("toolu_01abc", "call-1"), results("toolu_01abc", "call-1")],
            NATIVE,
            [["toolu_01abc", "call1"], ["toolu_01abc", "call1"]],
            id="native-anthropic-kept",
        ),
        pytest.param(
            [calls("toolu_a", "toolu_a"), results("toolu_a", "toolu_a")],
            NATIVE,
            [["toolu_a", "toolua2"], ["toolu_a", "toolua2"]],
            id="native-anthropic-only-first",
        ),
        pytest.param(
            [calls("toolu_a"), results("toolu_a", "toolu_a")],
            NATIVE,
            [["toolu_a"], ["toolu_a", "tooluatoolresult1"]],
            id="native-anthropic-orphan",
        ),
        pytest.param(
            [
                calls("toolu_think_1", thinking=True),
                results("toolu_think_1"),
                calls("toolu_think_1"),
                results("toolu_think_1"),
            ],
            THINKING,
            [["toolu_think_1"], ["toolu_think_1"], ["tooluthink1"], ["tooluthink1"]],
            id="signed-thinking-turn-keeps-ids",
        ),
        pytest.param(
            [calls("toolu_fake_8ba541ea4dfc463b", "ab"), results("toolu_fake_8ba541ea4dfc463b", "ab")],
            STRICT9,
            [["toolufake", "fb8e20fc2"], ["toolufake", "fb8e20fc2"]],
            id="strict9-short-hashed",
        ),
        pytest.param(
            [calls("abcdefghij1", "abcdefghij2"), results("abcdefghij1", "abcdefghij2")],
            STRICT9,
            [["abcdefghi", "42d1c82dc"], ["abcdefghi", "42d1c82dc"]],
            id="strict9-collision",
        ),
    ],
)
def test_ids_as_openclaw_rewrites_them(
    messages: list[WireMessage], policy: ToolIdPolicy, expected: list[list[str]]
) -> None:
    assert ids(rewrite_tool_call_ids(messages, policy)) == expected


def test_thinking_turns_keep_ids_only_when_the_policy_says_so() -> None:
    messages = [calls("toolu_think_1", thinking=True), results("toolu_think_1")]
    assert ids(rewrite_tool_call_ids(messages, STRICT)) == [["tooluthink1"], ["tooluthink1"]]


def test_no_mode_no_change_and_other_blocks_untouched() -> None:
    messages = [WireMessage(role="user", content=[WireText(text="a_b")]), calls("a_b"), results("a_b")]
    assert rewrite_tool_call_ids(messages, ToolIdPolicy()) == messages
    rewritten = rewrite_tool_call_ids(messages, STRICT)
    assert rewritten[0] == messages[0]
    assert messages[1].content[0] == WireToolCall(id="a_b", name="read", arguments={}), "the input is not changed"


def test_sanitize_single_ids() -> None:
    assert sanitize_tool_call_id("") == "defaulttoolid"
    assert sanitize_tool_call_id("", "strict9") == "defaultid"
    assert sanitize_tool_call_id("--", "strict9") == "44d8b78be"  # sha256("sanitized")[:9], as OpenClaw gives
    assert sanitize_tool_call_id("abc", "strict9") == "ba7816bf8"  # fewer than nine: sha256 of them


@pytest.mark.parametrize(
    ("snapshot", "policy"),
    [
        # the corpus: a custom provider on Anthropic's API (no replay policy of its own)
        (ModelSnapshot("fakeant", "anthropic-messages", "fake-claude"), THINKING),
        (ModelSnapshot("Anthropic", "anthropic-messages", "claude-opus-4-6"), ToolIdPolicy("strict", True, True)),
        (ModelSnapshot("anthropic", "anthropic-messages", "claude-sonnet-4-5"), NATIVE),
        (ModelSnapshot("custom", "bedrock-converse-stream", "anthropic.claude-3-7-sonnet"), STRICT),
        (ModelSnapshot("openai", "openai-completions", "gpt-x"), STRICT),
        (ModelSnapshot("openai", "openai-responses", "gpt-x"), ToolIdPolicy()),
        (ModelSnapshot("custom", "openai-responses", "claude-x"), ToolIdPolicy()),
        (ModelSnapshot("custom", "openai-completions", "m"), STRICT),
        (ModelSnapshot("custom", "google-generative-ai", "gemini"), STRICT),
        (ModelSnapshot("google", "google-generative-ai", "gemini"), STRICT),
        (ModelSnapshot("xai", "openai-completions", "grok"), STRICT),
        (ModelSnapshot("custom", "ollama", "m"), ToolIdPolicy()),
        (ModelSnapshot("openrouter", "openai-completions", "m"), ToolIdPolicy()),
    ],
)
def test_policy_for_provider_api_and_model(snapshot: ModelSnapshot, policy: ToolIdPolicy) -> None:
    assert tool_id_policy(*snapshot) == policy


@pytest.mark.parametrize(
    ("model", "drops"),
    [
        ("claude-sonnet-4-5", True),
        ("anthropic/claude-3.7-sonnet", True),
        ("claude-opus-4-6", False),
        ("claude-sonnet-4-6", False),
        ("claude-opus-5", False),
        ("opus", False),
        ("fake-claude", False),
        ("gpt-5", False),
    ],
)
def test_which_claude_models_lose_their_thinking(model: str, drops: bool) -> None:
    assert drops_thinking(model) is drops


def test_the_last_model_snapshot_on_the_path() -> None:
    def snapshot(i: int, provider: str) -> Entry:
        data = {"provider": provider, "modelApi": "anthropic-messages", "modelId": "m"}
        return Entry(id=str(i), type="custom", data={"customType": "model-snapshot", "data": data})

    other = Entry(id="9", type="custom", data={"customType": "openclaw.cache-ttl", "data": {}})
    assert last_model_snapshot([snapshot(1, "a"), snapshot(2, "b"), other]) == ModelSnapshot(
        "b", "anthropic-messages", "m"
    )
    assert last_model_snapshot([other]) is None
