"""The fake server speaking OpenAI's Responses API and Chat Completions (`/v1/responses`, `/v1/chat/completions`).

Same scripted behaviours as tests.fake_anthropic (success, 429 then success, 500s,
slow, never answering, malformed body); point the SDK at `base_url` (which ends in /v1).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.fake_anthropic import FakeAnthropic, RecordedRequest, Step

RESPONSES = "/v1/responses"
CHAT = "/v1/chat/completions"


def openai_error(status: int, message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "server_error" if status >= 500 else "invalid_request_error"}}


def rate_limited_then_success() -> list[Step]:
    return [Step(status=429, body=openai_error(429, "Rate limited"), headers={"retry-after": "0"}), Step()]


def server_error(times: int = 3) -> list[Step]:
    return [Step(status=500, body=openai_error(500, "Internal server error")) for _ in range(times)]


class FakeOpenAI(FakeAnthropic):
    """The fake, answering OpenAI's endpoints instead of Anthropic's."""

    def __init__(self, reply: str = "## Goal\n- fake summary") -> None:
        super().__init__(reply=reply)

    @property
    def v1(self) -> str:
        """The base URL to give the SDK."""
        return f"{self.base_url}/v1"

    def serves(self, path: str) -> bool:
        return path in (RESPONSES, CHAT)

    def calls(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path in (RESPONSES, CHAT)]

    def reply_body(self, path: str, request_body: Any, text: str) -> dict[str, Any]:
        model = request_body.get("model", "gpt-test") if isinstance(request_body, dict) else "gpt-test"
        if path == CHAT:
            return {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": 0,
                "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        return {
            "id": "resp_fake",
            "object": "response",
            "created_at": 0,
            "model": model,
            "status": "completed",
            "output": [
                {
                    "type": "message",
                    "id": "msg_fake",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            ],
            "parallel_tool_calls": False,
            "tool_choice": "auto",
            "tools": [],
            "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
        }


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A running fake OpenAI server, stopped after the test."""
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()
