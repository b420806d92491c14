"""The openai summarizer end to end: the official SDK over HTTP against a fake Responses / Chat Completions server."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.deadline import DeadlineExceeded, within_deadline
from cutline.core.errors import SummarizerError
from cutline.core.summarizers import summarizer_for
from cutline.core.summarizers.base import SummaryRequest
from cutline.core.summarizers.openai_api import OpenAISummarizer
from tests.support.fake_anthropic import Step, malformed, never_answers
from tests.support.fake_openai import (
    CHAT,
    RESPONSES,
    FakeOpenAI,
    rate_limited_then_success,
    server_error,
)

KEY = "sk-openai-test-DO-NOT-LEAK-0123456789"

REQUEST = SummaryRequest(
    system_prompt="You summarize.", prompt_text="<conversation>\n[User]: hi\n</conversation>", max_tokens=8192
)


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return KEY


def make(server: FakeOpenAI, **options: object) -> OpenAISummarizer:
    settings: dict[str, object] = {"base_url": server.v1, "timeout": 2.0, "model": "gpt-test"}
    settings.update(options)
    return OpenAISummarizer(**settings)  # type: ignore[arg-type]


async def test_responses_api_success(fake: FakeOpenAI, api_key: str) -> None:
    fake.script([Step(text="## Goal\n- ship")])
    assert await make(fake).summarize(REQUEST) == "## Goal\n- ship"
    [sent] = fake.calls()
    assert sent.path == RESPONSES
    assert sent.body["model"] == "gpt-test" and sent.body["max_output_tokens"] == 8192
    assert sent.body["instructions"] == "You summarize."
    assert sent.body["input"] == "<conversation>\n[User]: hi\n</conversation>"
    assert sent.headers["authorization"] == f"Bearer {KEY}"


async def test_chat_completions_success_on_a_compatible_endpoint(fake: FakeOpenAI, api_key: str) -> None:
    fake.script([Step(text="local summary")])
    assert await make(fake, api="chat", model="llama3").summarize(REQUEST) == "local summary"
    [sent] = fake.calls()
    assert sent.path == CHAT
    assert sent.body["messages"] == [
        {"role": "system", "content": "You summarize."},
        {"role": "user", "content": "<conversation>\n[User]: hi\n</conversation>"},
    ]
    assert sent.body["max_tokens"] == 8192


async def test_base_url_from_the_environment_and_no_key_for_a_local_server(
    fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", fake.v1)
    summarizer = OpenAISummarizer(model="qwen", api="chat", timeout=2.0)
    assert await summarizer.summarize(REQUEST) == "## Goal\n- fake summary"
    assert summarizer.settings()["base_url"] == fake.v1
    assert len(fake.calls()) == 1


async def test_no_key_and_no_endpoint_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(SummarizerError, match="OPENAI_API_KEY is not set"):
        await OpenAISummarizer().summarize(REQUEST)


async def test_rate_limited_then_success(fake: FakeOpenAI, api_key: str) -> None:
    fake.script(rate_limited_then_success())
    assert await make(fake, max_retries=2).summarize(REQUEST) == "## Goal\n- fake summary"
    assert len(fake.calls()) == 2


async def test_server_errors_after_every_retry(fake: FakeOpenAI, api_key: str) -> None:
    fake.script(server_error(3))
    with pytest.raises(SummarizerError) as caught:
        await make(fake, max_retries=2).summarize(REQUEST)
    assert str(caught.value) == "OpenAI API: 500 Internal Server Error after 3 attempts"
    assert len(fake.calls()) == 3


async def test_timeout(fake: FakeOpenAI, api_key: str) -> None:
    fake.script([Step(delay=5.0)])
    with pytest.raises(SummarizerError, match=r"^OpenAI API: timed out after 0\.2s$"):
        await make(fake, timeout=0.2, max_retries=0).summarize(REQUEST)


async def test_malformed_body(fake: FakeOpenAI, api_key: str) -> None:
    fake.script(malformed())
    with pytest.raises(SummarizerError, match=r"^OpenAI API: malformed response"):
        await make(fake, max_retries=0).summarize(REQUEST)


async def test_key_never_leaks(fake: FakeOpenAI, api_key: str) -> None:
    fake.script([Step(status=400, body={"error": {"message": f"bad key {KEY}"}})])
    summarizer = make(fake, max_retries=0)
    with pytest.raises(SummarizerError) as caught:
        await summarizer.summarize(REQUEST)
    assert KEY not in str(caught.value) and "***" in str(caught.value)
    assert KEY not in repr(summarizer) and KEY not in str(summarizer.settings())
    assert KEY not in str(vars(summarizer))


async def test_the_compaction_deadline_stops_a_call_that_never_ends(fake: FakeOpenAI, api_key: str) -> None:
    fake.script(never_answers())
    work = make(fake, timeout=60.0, max_retries=0).summarize(REQUEST)
    with pytest.raises(DeadlineExceeded):
        await within_deadline(work, 0.3)


def test_settings_build_the_openai_summarizer() -> None:
    settings = CompactionSettings(
        summarizer="openai", model="gpt-test", baseUrl="http://127.0.0.1:1/v1", api="chat", requestTimeoutSeconds=7
    )
    summarizer = summarizer_for(settings)
    assert isinstance(summarizer, OpenAISummarizer)
    assert (summarizer.model, summarizer.base_url, summarizer.api, summarizer.timeout) == (
        "gpt-test",
        "http://127.0.0.1:1/v1",
        "chat",
        7.0,
    )


def test_sync_use_in_a_fresh_loop(api_key: str) -> None:
    server = FakeOpenAI().start()
    try:
        assert asyncio.run(make(server).summarize(REQUEST)) == "## Goal\n- fake summary"
    finally:
        server.stop()
