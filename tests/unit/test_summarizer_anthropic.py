"""The Anthropic summarizer end to end: the real SDK over HTTP against the local fake Messages API."""

from __future__ import annotations

import asyncio

import pytest

from cutline.core.errors import SummarizerError
from cutline.core.summarizers import get_summarizer
from cutline.core.summarizers.anthropic import AnthropicSummarizer
from cutline.core.summarizers.base import SummaryRequest
from tests.support.fake_anthropic import (
    FakeAnthropic,
    Step,
    hang,
    malformed,
    rate_limited_then_success,
    server_error,
    slow,
)

KEY = "sk-ant-test-DO-NOT-LEAK-0123456789"


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    return KEY


def make(server: FakeAnthropic, **options: object) -> AnthropicSummarizer:
    settings: dict[str, object] = {"base_url": server.base_url, "timeout": 2.0}
    settings.update(options)
    return AnthropicSummarizer(**settings)  # type: ignore[arg-type]


REQUEST = SummaryRequest(
    system_prompt="You summarize.", prompt_text="<conversation>\n[User]: hi\n</conversation>", max_tokens=13107
)


def key_sent(server: FakeAnthropic) -> bool:
    return all(
        KEY in r.headers.get("x-api-key", "") or KEY in r.headers.get("authorization", "")
        for r in server.message_requests()
    )


async def test_success_sends_model_max_tokens_system_and_prompt(fake_anthropic: FakeAnthropic, api_key: str) -> None:
    fake_anthropic.script([Step(text="## Goal\n- ship"), Step()])
    summary = await make(fake_anthropic, model="claude-test-model").summarize(REQUEST)
    assert summary == "## Goal\n- ship"
    [sent] = fake_anthropic.message_requests()
    assert sent.body["model"] == "claude-test-model"
    assert sent.body["max_tokens"] == 13107
    assert sent.body["system"] == "You summarize."
    assert sent.body["messages"] == [{"role": "user", "content": "<conversation>\n[User]: hi\n</conversation>"}]
    assert key_sent(fake_anthropic)


async def test_text_blocks_are_joined_with_newlines(fake_anthropic: FakeAnthropic, api_key: str) -> None:
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "stop_reason": "end_turn",
        "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "s"},
            {"type": "text", "text": "one"},
            {"type": "text", "text": "two"},
        ],
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    fake_anthropic.script([Step(body=body)])
    assert await make(fake_anthropic).summarize(REQUEST) == "one\ntwo"


async def test_slow_but_within_timeout(fake_anthropic: FakeAnthropic, api_key: str) -> None:
    fake_anthropic.script(slow(0.3))
    assert await make(fake_anthropic, timeout=5.0).summarize(REQUEST) == fake_anthropic.reply
    assert len(fake_anthropic.message_requests()) == 1


async def test_429_then_success_retries(fake_anthropic: FakeAnthropic, api_key: str) -> None:
    fake_anthropic.script(rate_limited_then_success(retry_after="0"))
    assert await make(fake_anthropic).summarize(REQUEST) == fake_anthropic.reply
    assert len(fake_anthropic.message_requests()) == 2


async def test_500_three_times_fails_with_one_line(fake_anthropic: FakeAnthropic, api_key: str) -> None:
    fake_anthropic.script(server_error(3))
    with pytest.raises(SummarizerError) as caught:
        await make(fake_anthropic, max_retries=2).summarize(REQUEST)
    assert str(caught.value) == "Anthropic API: 500 Internal Server Error after 3 attempts"
    assert len(fake_anthropic.message_requests()) == 3


async def test_timeout_fails_after_retries(fake_anthropic: FakeAnthropic, api_key: str) -> None:
    fake_anthropic.script(hang(3.0) * 2)
    with pytest.raises(SummarizerError) as caught:
        await make(fake_anthropic, timeout=0.3, max_retries=1).summarize(REQUEST)
    assert str(caught.value) == "Anthropic API: timed out after 0.3s (2 attempts)"
    assert len(fake_anthropic.message_requests()) == 2


async def test_malformed_body_is_not_retried(fake_anthropic: FakeAnthropic, api_key: str) -> None:
    fake_anthropic.script(malformed())
    with pytest.raises(SummarizerError) as caught:
        await make(fake_anthropic).summarize(REQUEST)
    assert str(caught.value).startswith("Anthropic API: malformed response: ")
    assert "\n" not in str(caught.value)
    assert len(fake_anthropic.message_requests()) == 1


async def test_response_without_text_is_malformed(fake_anthropic: FakeAnthropic, api_key: str) -> None:
    fake_anthropic.script([Step(body={"id": "x", "type": "message", "role": "assistant", "content": []})])
    with pytest.raises(SummarizerError, match=r"^Anthropic API: malformed response: no text in the response$"):
        await make(fake_anthropic).summarize(REQUEST)


async def test_key_never_leaks_into_errors_or_repr(fake_anthropic: FakeAnthropic, api_key: str) -> None:
    # a server that echoes the key in its error message must not get it into our text
    fake_anthropic.script(
        [
            Step(
                status=401,
                body={"type": "error", "error": {"type": "authentication_error", "message": f"bad key {KEY}"}},
            )
        ]
    )
    summarizer = make(fake_anthropic)
    with pytest.raises(SummarizerError) as caught:
        await summarizer.summarize(REQUEST)
    assert str(caught.value) == "Anthropic API: 401 Unauthorized: bad key ***"
    assert key_sent(fake_anthropic)
    for text in (str(caught.value), repr(summarizer), str(summarizer.settings()), str(vars(summarizer))):
        assert KEY not in text
    explicit = make(fake_anthropic, api_key="sk-explicit-secret-42")
    assert "sk-explicit-secret-42" not in repr(explicit) + str(vars(explicit))


async def test_no_key_is_a_clear_error(fake_anthropic: FakeAnthropic) -> None:
    with pytest.raises(SummarizerError, match=r"^ANTHROPIC_API_KEY is not set$"):
        await make(fake_anthropic).summarize(REQUEST)
    assert fake_anthropic.requests == []


async def test_base_url_from_environment(
    fake_anthropic: FakeAnthropic, api_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.base_url)
    summarizer = get_summarizer("anthropic", model="claude-env", timeout=2.0)
    assert await summarizer.summarize(REQUEST) == fake_anthropic.reply
    assert fake_anthropic.message_requests()[0].body["model"] == "claude-env"


async def test_cancellation_propagates_and_stops_retrying(fake_anthropic: FakeAnthropic, api_key: str) -> None:
    fake_anthropic.script(slow(3.0))
    task = asyncio.ensure_future(make(fake_anthropic, timeout=10.0).summarize(REQUEST))
    for _ in range(200):
        if fake_anthropic.message_requests():
            break
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.1)
    assert len(fake_anthropic.message_requests()) == 1


async def test_concurrent_requests_are_served_together(api_key: str) -> None:
    server = FakeAnthropic(latency=0.3).start()
    try:
        summarizer = make(server)
        results = await asyncio.gather(*(summarizer.summarize(REQUEST) for _ in range(4)))
        assert results == [server.reply] * 4
        assert server.max_in_flight == 4
    finally:
        server.stop()


def test_count_tokens_endpoint_answers() -> None:
    import json
    import urllib.request

    server = FakeAnthropic().start()
    try:
        payload = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * 40}]}).encode()
        request = urllib.request.Request(
            server.base_url + "/v1/messages/count_tokens", data=payload, headers={"content-type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            answer = json.loads(response.read())
        assert answer["input_tokens"] == -(-(len('""') + len(json.dumps([{"role": "user", "content": "x" * 40}]))) // 4)
    finally:
        server.stop()


def test_unknown_summarizer_and_bad_option() -> None:
    from cutline.core.errors import CutlineError

    with pytest.raises(CutlineError, match="unknown summarizer 'gpt'"):
        get_summarizer("gpt")
    with pytest.raises(CutlineError, match="unknown option"):
        get_summarizer("anthropic", colour="blue")
    assert get_summarizer("extractive", model=None).name == "extractive"


async def test_request_without_prompt_text_gets_pis_prompt(fake_anthropic: FakeAnthropic, api_key: str) -> None:
    from cutline.core.models import Message, TextBlock
    from cutline.core.summarizers.prompts import SUMMARIZATION_SYSTEM_PROMPT, get_prompt

    request = SummaryRequest(messages=[Message(role="user", content=[TextBlock(text="hello")])], max_tokens=50)
    await make(fake_anthropic).summarize(request)
    [sent] = fake_anthropic.message_requests()
    assert sent.body["system"] == SUMMARIZATION_SYSTEM_PROMPT
    assert sent.body["messages"][0]["content"] == "<conversation>\n[User]: hello\n</conversation>\n\n" + get_prompt(
        "pi-checkpoint"
    )
    with pytest.raises(SummarizerError, match="nothing to summarize"):
        await make(fake_anthropic).summarize(SummaryRequest())
