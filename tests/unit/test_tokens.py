"""Token counters: chars4 to pi's unit (UTF-16 lengths, JSON.stringify), tiktoken offline, calibration, cached counts."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

import cutline.core.tokens as tokens_mod
from cutline.core.errors import CutlineError
from cutline.core.models import Entry, Message, Session, Usage
from cutline.core.store.token_counts import count_entries
from cutline.core.tokens import (
    AnthropicCounter,
    CalibratedCounter,
    calibrate,
    chars4_tokens,
    error_summary,
    get_counter,
    path_tokens,
)
from cutline.core.tokens.jsjson import js_length, js_number, js_stringify


def msg(role: str, content: list | None = None, **kw) -> Message:
    return Message.model_validate({"role": role, "content": content or [], **kw})


def text(t: str) -> dict:
    return {"type": "text", "text": t}


def entry(i: int, message: Message, parent: int | None = None, **kw) -> Entry:
    return Entry(
        id=f"e{i}",
        parentId=f"e{parent}" if parent is not None else (f"e{i - 1}" if i else None),
        type="message",
        message=message,
        **kw,
    )


# -- JavaScript lengths and JSON.stringify (expected values printed by node 20) ------------


def test_js_length_counts_utf16_code_units() -> None:
    assert js_length("abc") == 3
    assert js_length("😀") == 2  # astral: a surrogate pair
    assert js_length("é") == 1
    assert js_length("e\u0301") == 2
    assert js_length("𠜎中") == 3
    assert js_length("👩‍💻") == 5  # woman + ZWJ + laptop
    assert js_length("\ud83d") == 1  # a lone surrogate is one unit


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.0, "1"),
        (0.1, "0.1"),
        (1e21, "1e+21"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (0.000001, "0.000001"),
        (1e20, "100000000000000000000"),
        (-0.0, "0"),
        (100.0, "100"),
        (1e16, "10000000000000000"),
        (12345678901234567890, "12345678901234567000"),
        (-1e-10, "-1e-10"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (0.1 + 0.2, "0.30000000000000004"),
        (float("nan"), "null"),
        (float("inf"), "null"),
        (42, "42"),
    ],
)
def test_js_number_matches_node(value: float, expected: str) -> None:
    assert js_number(value) == expected


def test_js_stringify_has_no_spaces_and_js_numbers() -> None:
    assert (
        js_stringify({"a": 1.0, "b": [1e21, "x"], "c": None, "d": True}) == '{"a":1,"b":[1e+21,"x"],"c":null,"d":true}'
    )
    assert js_stringify({"k": 'é😀\n"\\'}) == '{"k":"é😀\\n\\"\\\\"}'
    # node: JSON.stringify("\ud800x\u0001\u2028é😀").length === 19
    assert js_length(js_stringify("\ud800x\u0001\u2028é😀")) == 19
    assert js_stringify("\u0001") == '"\\u0001"'


# -- chars4 = pi's estimateTokens --------------------------------------------------------


def test_chars4_user_counts_text_not_images() -> None:
    image = {"type": "image", "data": "x" * 10000, "mimeType": "image/png"}
    assert chars4_tokens(msg("user", [text("a" * 9), image])) == 3  # ceil(9/4)
    assert chars4_tokens(msg("user", [text("😀😀")])) == 1  # 4 UTF-16 units


def test_chars4_tool_result_and_custom_count_images_as_4800_chars() -> None:
    image = {"type": "image", "data": "x", "mimeType": "image/png"}
    assert chars4_tokens(msg("toolResult", [text("abcd"), image], toolCallId="t")) == (4 + 4800) // 4
    assert chars4_tokens(msg("custom", [image, image])) == 2400


def test_chars4_assistant_counts_text_thinking_and_tool_calls() -> None:
    call = {"type": "toolCall", "id": "t1", "name": "edit", "arguments": {"path": "a.py", "n": 1.0}}
    message = msg("assistant", [text("hi"), {"type": "thinking", "thinking": "hmm"}, call])
    # 2 + 3 + len("edit") + len('{"path":"a.py","n":1}')
    assert chars4_tokens(message) == -(-(2 + 3 + 4 + len('{"path":"a.py","n":1}')) // 4)


def test_chars4_bash_and_summaries() -> None:
    assert chars4_tokens(msg("bashExecution", command="ls", output="abcdef")) == 2
    assert chars4_tokens(msg("branchSummary", summary="x" * 41)) == 11
    assert chars4_tokens(msg("compactionSummary", summary="")) == 0


def test_chars4_claude_code_tool_results_inside_user_messages_count_like_tool_results() -> None:
    block = {
        "type": "toolResult",
        "toolCallId": "t",
        "content": [text("x" * 40), {"type": "image", "data": "", "mimeType": ""}],
    }
    assert chars4_tokens(msg("user", [block])) == (40 + 4800) // 4


# -- tiktoken with no network -------------------------------------------------------------


def test_tiktoken_loads_bundled_vocabulary_with_sockets_blocked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))  # nothing cached: must read core/tokens/data
    tokens_mod.cl100k_encoding.cache_clear()
    counter = get_counter("tiktoken")
    assert counter.name == "tiktoken"
    assert counter.count(msg("user", [text("hello world")])) == 2  # cl100k: "hello", " world"
    image = {"type": "image", "data": "x", "mimeType": "image/png"}
    assert counter.count(msg("toolResult", [image], toolCallId="t")) == 1200


# -- anthropic ------------------------------------------------------------------------------


def test_anthropic_counter_needs_a_key() -> None:
    with pytest.raises(CutlineError, match="ANTHROPIC_API_KEY"):
        get_counter("anthropic")


def test_anthropic_counter_subtracts_the_empty_request() -> None:
    class FakeMessages:
        def __init__(self) -> None:
            self.calls: list[str] = []

        def count_tokens(self, model: str, messages: list[dict]) -> object:
            content = messages[0]["content"]
            self.calls.append(content)
            return type("R", (), {"input_tokens": 8 + len(content.split())})()

    fake = type("Client", (), {})()
    fake.messages = FakeMessages()
    counter = AnthropicCounter(client=fake)
    assert counter.count(msg("user", [text("one two three")])) == 3 + 8 - 9
    assert fake.messages.calls == [".", "one two three"]


def test_unknown_counter_is_a_clear_error() -> None:
    with pytest.raises(CutlineError, match="unknown token counter 'bogus'"):
        get_counter("bogus")


# -- calibration ------------------------------------------------------------------------------


def _usage_session(factor: float) -> Session:
    entries = []
    context = 0
    for i in range(0, 12, 2):
        user = msg("user", [text("x" * 400)])  # 100 chars4 tokens
        entries.append(entry(i, user))
        context += 100
        real = int(context * factor)
        assistant = msg("assistant", [text("y" * 200)], usage=Usage(input=real - 10, cacheRead=10, output=50))
        entries.append(entry(i + 1, assistant))
        context += 50
    return Session(id="s", format="pi", entries=entries)


def test_calibration_fits_the_median_ratio_and_reports_its_error() -> None:
    calibration = calibrate(_usage_session(1.3))
    assert len(calibration.samples) == 6
    assert calibration.samples[0].estimate == 100 and calibration.samples[0].real == 130
    assert calibration.samples[1].estimate == 250  # user + assistant + user before the second response
    assert calibration.ratio == pytest.approx(1.3, abs=0.01)
    assert calibration.medianError is not None and calibration.medianError < 0.01


def test_calibration_without_usage_is_ratio_one_and_unfitted() -> None:
    session = Session(id="s", format="pi", entries=[entry(0, msg("user", [text("hello")]))])
    calibration = calibrate(session)
    assert not calibration.fitted and calibration.ratio == 1.0 and calibration.medianError is None


def test_calibrated_counter_scales_and_rounds_up() -> None:
    counter = CalibratedCounter(1.25)
    assert counter.count(msg("user", [text("x" * 40)])) == 13  # ceil(10 * 1.25)
    assert counter.scale(0) == 0


def test_error_summary_median_and_p90() -> None:
    median, p90 = error_summary([0.1 * i for i in range(1, 11)])
    assert median == pytest.approx(0.55)
    assert p90 == pytest.approx(0.9)
    assert error_summary([]) == (None, None)


# -- cached, incremental per-entry counts -------------------------------------------------------


class CountingCounter:
    name = "chars4"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def count(self, message: Message) -> int:
        self.seen.append(message.text())
        return chars4_tokens(message)


def test_count_entries_caches_and_counts_only_new_entries(tmp_path: Path) -> None:
    from cutline.core.store import Store

    source = tmp_path / "s.jsonl"
    lines = ['{"type":"session","version":3,"id":"abc","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}']
    for i in range(4):
        lines.append(
            f'{{"type":"message","id":"0000000{i}","parentId":{"null" if i == 0 else chr(34) + f"0000000{i - 1}" + chr(34)},'
            f'"timestamp":"2026-01-01T00:00:0{i}.000Z","message":{{"role":"user","content":"msg {i} {"x" * 8 * i}"}}}}'
        )
    source.write_text("\n".join(lines[:3]) + "\n")
    store = Store(tmp_path / "db.sqlite")
    report = store.import_file(source, count_tokens=False)
    session = store.load_session(report.session_id)
    counter = CountingCounter()
    first = count_entries(store, session, counter)
    assert first == {"00000000": 2, "00000001": 4}
    assert len(counter.seen) == 2
    assert store.token_counts(session.id, "chars4") == first
    # the file grows: only the new entries are counted
    source.write_text("\n".join(lines) + "\n")
    store.import_file(source, count_tokens=False)
    grown = store.load_session(report.session_id)
    counter.seen.clear()
    second = count_entries(store, grown, counter)
    assert len(counter.seen) == 2
    assert second == {"00000000": 2, "00000001": 4, "00000002": 6, "00000003": 8}
    assert path_tokens(grown.active_path(), "chars4") == [2, 4, 6, 8]
    store.close()


def test_stringify_fast_path_agrees_with_the_exact_path() -> None:
    import random

    from cutline.core.tokens.jsjson import js_stringify_exact as _js_stringify_exact

    rng = random.Random(5)
    atoms = [
        0,
        1,
        -7,
        2**53 + 1,
        10**17,
        1.0,
        -0.0,
        0.5,
        1e21,
        1e-7,
        "a:1.5",
        "[1e5",
        ",NaN",
        "😀",
        "é",
        "\u0001",
        None,
        True,
        10**15 - 1,
        -(10**15),
        2**53,
        "lone \ud800",
        "x" * 300,
    ]
    # keys JavaScript orders first (array indices) and ones it does not
    keys = ["k", "k:1.", "kü", "0", "7", "12", "01", "-1", "²", "4294967295", "1e3"]

    def value(depth: int) -> object:
        if depth > 2 or rng.random() < 0.4:
            return rng.choice(atoms)
        if rng.random() < 0.5:
            return [value(depth + 1) for _ in range(rng.randint(0, 3))]
        return {rng.choice(keys): value(depth + 1) for _ in range(rng.randint(0, 3))}

    for _ in range(3000):
        v = {"root": value(0)}
        assert js_stringify(v) == _js_stringify_exact(v)


def test_calibration_finds_a_constant_system_prompt_overhead() -> None:
    # Claude Code / Codex: the API also counts a ~15k-token system prompt and tool schemas
    entries = []
    context = 0
    for i in range(0, 20, 2):
        entries.append(entry(i, msg("user", [text("x" * 4000)])))  # 1000 chars4 tokens
        context += 1000
        real = 15000 + int(context * 1.1)
        entries.append(entry(i + 1, msg("assistant", [text("y" * 400)], usage=Usage(input=real))))
        context += 100
    calibration = calibrate(Session(id="s", format="claude_code", entries=entries))
    assert calibration.method == "affine"
    assert calibration.overhead == pytest.approx(15000, rel=0.01)
    assert calibration.ratio == pytest.approx(1.1, rel=0.01)
    assert calibration.medianError < 0.001
    assert calibration.predict(1000) == pytest.approx(16100, rel=0.01)


def test_anthropic_counter_uses_key_and_base_url_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    import anthropic

    made: dict = {}

    class Recorder:
        def __init__(self, **kwargs) -> None:
            made.update(kwargs)

    monkeypatch.setattr(anthropic, "Anthropic", Recorder)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    counter = get_counter("anthropic")
    assert counter.name == "anthropic"
    assert made == {"api_key": "sk-test", "base_url": "http://127.0.0.1:9", "max_retries": 1, "timeout": 20.0}


def test_anthropic_counter_failure_is_one_line() -> None:
    class Failing:
        def count_tokens(self, **kwargs):
            raise RuntimeError("connection refused")

    client = type("Client", (), {})()
    client.messages = Failing()
    with pytest.raises(CutlineError, match="anthropic count_tokens failed: RuntimeError: connection refused"):
        AnthropicCounter(client=client).count(msg("user", [text("hi")]))


def test_js_stringify_orders_integer_like_keys_first_like_javascript() -> None:
    # JSON.stringify({b: 1, "2": 2, a: 3, "10": 4}) === '{"2":2,"10":4,"b":1,"a":3}'
    value = {"b": 1, "2": 2, "a": 3, "10": 4}
    assert js_stringify(value) == '{"2":2,"10":4,"b":1,"a":3}'
    assert js_stringify({"x": [{"01": 1, "7": 2}]}) == '{"x":[{"7":2,"01":1}]}'


def test_stringify_length_is_the_exact_strings_length_for_every_code_point() -> None:
    """msgspec's JSON (counted, not built as a string) escapes what JavaScript escapes: the same length for each character."""
    from cutline.core.tokens.jsjson import js_stringify_exact, js_stringify_length

    for start in range(0, 0x110000, 0x1000):
        chars = [chr(c) for c in range(start, start + 0x1000) if not 0xD800 <= c <= 0xDFFF]
        for value in ({"k": "".join(chars)}, chars[:64], {"".join(chars[:50]): [chars[-1], 3, None, True]}):
            assert js_stringify_length(value) == js_length(js_stringify_exact(value)), hex(start)


def test_stringify_length_agrees_with_the_exact_path_on_odd_values() -> None:
    import random

    from cutline.core.tokens.jsjson import js_stringify_exact, js_stringify_length

    rng = random.Random(11)
    atoms: list[object] = [
        0,
        -7,
        2**53 + 1,
        10**15,
        1.0,
        1e21,
        "😀é",
        "\u0001\u2028\x7f",
        "\ud800",
        None,
        False,
        "x" * 99,
    ]
    keys = ["k", "0", "12", "01", "ü", "\ud801", "a\nb"]

    def value(depth: int) -> object:
        if depth > 3 or rng.random() < 0.4:
            return rng.choice(atoms)
        if rng.random() < 0.5:
            return [value(depth + 1) for _ in range(rng.randint(0, 3))]
        return {rng.choice(keys): value(depth + 1) for _ in range(rng.randint(0, 3))}

    for _ in range(3000):
        v = value(0)
        assert js_stringify_length(v) == js_length(js_stringify_exact(v)), repr(v)
    deep: object = "x"
    for _ in range(5000):  # deeper than either encoder recurses: the exact path counts it
        deep = [deep]
    assert js_stringify_length(deep) == js_length(js_stringify_exact(deep))
