"""Summaries from OpenAI's Responses API, or any OpenAI-compatible Chat Completions endpoint, through the official SDK.

`api = "responses"` calls OpenAI's Responses API; `api = "chat"` calls
`/chat/completions`, which Ollama, vLLM, LM Studio, llama.cpp's server and OpenRouter
speak. The endpoint is `base_url=` (the `baseUrl` setting), else `OPENAI_BASE_URL`,
else OpenAI's. The key is read from `OPENAI_API_KEY` at call time, handed to the SDK
for that call only and never kept, logged or put into an error message; a local
endpoint (a base URL is set) works without one. Retries are the SDK's own; the
compaction's deadline (core.engine.deadline) cancels whatever is still running.
"""

from __future__ import annotations

import os
from typing import Any, Literal

import openai

from cutline.core.config.settings import DEFAULT_MAX_RETRIES, DEFAULT_REQUEST_TIMEOUT_SECONDS
from cutline.core.errors import SummarizerError
from cutline.core.summarizers.anthropic import _prompt_of, _tls_context
from cutline.core.summarizers.api_errors import SdkErrors, one_line
from cutline.core.summarizers.base import Summarizer, SummaryRequest

Api = Literal["responses", "chat"]
DEFAULT_OPENAI_MODEL = "gpt-5"
# what the SDK is given as the key of an endpoint that needs none (a local server): not a secret
NO_KEY = "no-key"


_ERRORS = SdkErrors(
    label="OpenAI API",
    connection=openai.APIConnectionError,
    timeout=openai.APITimeoutError,
    status=openai.APIStatusError,
    validation=openai.APIResponseValidationError,
    server_message=lambda error: error.message,
)


def _responses_text(response: Any) -> str:
    """The Responses API's output text (its `output_text` blocks joined)."""
    output = getattr(response, "output", None)
    if not isinstance(output, list):
        raise ValueError("no output list")
    texts: list[str] = []
    for item in output:
        content = getattr(item, "content", None)
        if getattr(item, "type", None) != "message" or not isinstance(content, list):
            continue
        for part in content:
            text = getattr(part, "text", None)
            if getattr(part, "type", None) == "output_text" and isinstance(text, str):
                texts.append(text)
    if not texts:
        raise ValueError("no text in the response")
    return "\n".join(texts)


def _chat_text(response: Any) -> str:
    """The first choice's message text."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise ValueError("no choices")
    text = getattr(getattr(choices[0], "message", None), "content", None)
    if not isinstance(text, str) or not text:
        raise ValueError("no text in the response")
    return text


class OpenAISummarizer(Summarizer):
    """An OpenAI or OpenAI-compatible model writes the summary: `system_prompt` as instructions, `prompt_text` as the user turn."""

    name = "openai"

    def __init__(
        self,
        model: str = DEFAULT_OPENAI_MODEL,
        *,
        base_url: str | None = None,
        api: Api = "responses",
        timeout: float = DEFAULT_REQUEST_TIMEOUT_SECONDS,
        max_retries: int = DEFAULT_MAX_RETRIES,
    ) -> None:
        if api not in ("responses", "chat"):
            raise SummarizerError(f"unknown OpenAI API {api!r} (known: responses, chat)")
        self.model = model
        self._model = model
        self.base_url = base_url
        self.api: Api = api
        self.timeout = float(timeout)
        self.max_retries = max(0, int(max_retries))

    def __repr__(self) -> str:
        return f"OpenAISummarizer(model={self.model!r}, base_url={self.base_url!r}, api={self.api!r})"

    def endpoint(self) -> str | None:
        """The base URL in use: the configured one, else OPENAI_BASE_URL, else None (OpenAI's)."""
        return self.base_url or os.environ.get("OPENAI_BASE_URL") or None

    def settings(self) -> dict[str, Any]:
        """What to record with a proposal (no key)."""
        return {"model": self.model, "base_url": self.endpoint(), "api": self.api, "timeout": self.timeout}

    async def summarize(self, request: SummaryRequest) -> str:
        base_url = self.endpoint()
        key = os.environ.get("OPENAI_API_KEY") or None
        if not key and not base_url:
            raise SummarizerError("OPENAI_API_KEY is not set (or set baseUrl / OPENAI_BASE_URL for a local endpoint)")
        prompt_text, system_prompt = _prompt_of(request)
        if not prompt_text:
            raise SummarizerError("OpenAI summarizer: nothing to summarize")
        secret = key or ""
        http = openai.DefaultAsyncHttpxClient(verify=_tls_context())
        try:
            client = openai.AsyncOpenAI(
                api_key=key or NO_KEY,
                base_url=base_url,
                timeout=self.timeout,
                max_retries=self.max_retries,
                http_client=http,
            )
            try:
                if self.api == "responses":
                    response: Any = await client.responses.create(
                        model=self._model,
                        input=prompt_text,
                        instructions=system_prompt or None,
                        max_output_tokens=max(1, int(request.max_tokens)),
                    )
                    return _responses_text(response)
                messages: list[dict[str, str]] = []
                if system_prompt:
                    messages.append({"role": "system", "content": system_prompt})
                messages.append({"role": "user", "content": prompt_text})
                response = await client.chat.completions.create(
                    model=self._model,
                    messages=messages,  # type: ignore[arg-type]
                    max_tokens=max(1, int(request.max_tokens)),
                )
                return _chat_text(response)
            except openai.APIError as error:
                raise SummarizerError(self._describe(error, secret)) from None
            except (ValueError, TypeError, KeyError, AttributeError) as problem:
                detail = one_line(f"{type(problem).__name__}: {problem}", secret)
                raise SummarizerError(f"OpenAI API: malformed response: {detail}") from None
            except openai.OpenAIError as error:
                raise SummarizerError(f"OpenAI API: {one_line(str(error), secret)}") from None
        finally:
            await http.aclose()

    def _describe(self, error: openai.APIError, key: str) -> str:
        """One line saying what went wrong, after how many attempts; never the key."""
        return _ERRORS.describe(error, key, timeout=self.timeout, max_retries=self.max_retries)
