"""Summaries from Claude through the official Anthropic SDK.

The API key is read from `ANTHROPIC_API_KEY` at call time, handed to the SDK for that
call only and never kept, logged or put into an error message. `ANTHROPIC_BASE_URL`
(or `base_url=`) points the SDK elsewhere, e.g. at a proxy or the test server.
Retries are the SDK's own (`max_retries`): exponential backoff with jitter, and the
server's `retry-after` / `retry-after-ms` and `x-should-retry` headers obeyed. Each
request has its own timeout; the compaction's overall deadline (core.engine.deadline)
cancels whatever is still running, retries included, and a cancel stops it at once.
"""

from __future__ import annotations

import asyncio
import functools
import os
import ssl
import weakref
from typing import Any

import anthropic
import httpx2

from cutline.core.config.settings import DEFAULT_MAX_RETRIES, DEFAULT_MODEL, DEFAULT_REQUEST_TIMEOUT_SECONDS
from cutline.core.errors import SummarizerError
from cutline.core.summarizers.api_errors import SdkErrors, one_line
from cutline.core.summarizers.base import Summarizer, SummaryRequest
from cutline.core.summarizers.prompts import (
    HISTORY_PROMPTS,
    SUMMARIZATION_SYSTEM_PROMPT,
    build_prompt_text,
    merge_conversation_text,
)
from cutline.core.summarizers.serialize import serialize_conversation

DEFAULT_TIMEOUT = DEFAULT_REQUEST_TIMEOUT_SECONDS
_ERRORS = SdkErrors(
    label="Anthropic API",
    connection=anthropic.APIConnectionError,
    timeout=anthropic.APITimeoutError,
    status=anthropic.APIStatusError,
    validation=anthropic.APIResponseValidationError,
    server_message=lambda error: error.api_message,
)


@functools.lru_cache(maxsize=1)
def _tls_context() -> ssl.SSLContext:
    """One TLS context for every pool: loading the CA bundle takes ~0.1-0.3 s and blocks the event loop.

    Built as the SDK's HTTP client builds its default (system trust store, SSL_CERT_FILE /
    SSL_CERT_DIR honoured), so a proxy CA trusted by the system keeps working.
    """
    return httpx2.create_ssl_context()


def _text_of(response: Any) -> str:
    """The response's text blocks joined by newlines; anything else is a malformed response."""
    content = getattr(response, "content", None)
    if not isinstance(content, list):
        raise ValueError("no content list")
    texts: list[str] = []
    for block in content:
        block_type = getattr(block, "type", None) if not isinstance(block, dict) else block.get("type")
        if block_type != "text":
            continue
        text = getattr(block, "text", None) if not isinstance(block, dict) else block.get("text")
        if not isinstance(text, str):
            raise ValueError("text block without text")
        texts.append(text)
    if not texts:
        raise ValueError("no text in the response")
    return "\n".join(texts)


def _prompt_of(request: SummaryRequest) -> tuple[str, str]:
    """The user prompt and system prompt to send: the request's own, else built the way the engine builds them."""
    if request.prompt_text:
        return request.prompt_text, request.system_prompt
    if request.kind == "merge":
        conversation = merge_conversation_text(request.partial_summaries) if request.partial_summaries else ""
    else:
        conversation = serialize_conversation(request.messages) if request.messages else ""
    if not conversation:
        return "", ""
    text = build_prompt_text(
        request.kind,
        conversation,
        previous_summary=request.previous_summary,
        custom_instructions=request.custom_instructions,
        prompt_name=request.prompt_name if request.prompt_name in HISTORY_PROMPTS else "pi-checkpoint",
    )
    return text, request.system_prompt or SUMMARIZATION_SYSTEM_PROMPT


class AnthropicSummarizer(Summarizer):
    """Claude writes the summary: `system_prompt` as the system prompt, `prompt_text` as the one user message.

    A request without prompt text (not from the engine) gets pi's prompt built from its messages.
    """

    name = "anthropic"

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        temperature: float | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.timeout = float(timeout)
        self.max_retries = max(0, int(max_retries))
        self.temperature = temperature
        # An explicit key is for embedding cutline in another program; it lives only
        # in this closure, never as an attribute that a repr, log or dump could show.
        self._key = (lambda: api_key) if api_key else (lambda: None)
        # A key-less connection pool shared by the calls running at the same time on one
        # event loop: building a pool (TLS context) per call blocks the loop ~50 ms each.
        self._pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, list[Any]] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        return f"AnthropicSummarizer(model={self.model!r}, base_url={self.base_url!r}, timeout={self.timeout})"

    def settings(self) -> dict[str, Any]:
        """What to record with a proposal (no key)."""
        return {
            "model": self.model,
            "base_url": self.base_url or os.environ.get("ANTHROPIC_BASE_URL") or None,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
        }

    def _acquire_pool(self) -> Any:
        loop = asyncio.get_running_loop()
        entry = self._pools.get(loop)
        if entry is None:
            entry = [anthropic.DefaultAsyncHttpxClient(verify=_tls_context()), 0]
            self._pools[loop] = entry
        entry[1] += 1
        return entry[0]

    async def _release_pool(self) -> None:
        """The last call of this loop to finish closes the pool, so nothing outlives the loop."""
        loop = asyncio.get_running_loop()
        entry = self._pools.get(loop)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] <= 0:
            del self._pools[loop]
            await entry[0].aclose()

    async def summarize(self, request: SummaryRequest) -> str:
        key = self._key() or os.environ.get("ANTHROPIC_API_KEY") or None
        if not key:
            raise SummarizerError("ANTHROPIC_API_KEY is not set")
        prompt_text, system_prompt = _prompt_of(request)
        if not prompt_text:
            raise SummarizerError("Anthropic summarizer: nothing to summarize")
        base_url = self.base_url or os.environ.get("ANTHROPIC_BASE_URL") or None
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max(1, int(request.max_tokens)),
            "messages": [{"role": "user", "content": prompt_text}],
        }
        if system_prompt:
            params["system"] = system_prompt
        if self.temperature is not None:
            params["temperature"] = self.temperature
        pool = self._acquire_pool()
        try:
            client = anthropic.AsyncAnthropic(
                api_key=key,
                base_url=base_url,
                timeout=self.timeout,
                max_retries=self.max_retries,
                open_telemetry=False,
                http_client=pool,
            )
            try:
                response = await client.messages.create(**params)
            except anthropic.APIError as error:
                raise SummarizerError(self._describe(error, key)) from None
            except (ValueError, TypeError, KeyError, AttributeError) as problem:
                # the SDK could not decode the body (not JSON, wrong shape)
                detail = one_line(f"{type(problem).__name__}: {problem}", key)
                raise SummarizerError(f"Anthropic API: malformed response: {detail}") from None
            except anthropic.AnthropicError as error:
                raise SummarizerError(f"Anthropic API: {one_line(str(error), key)}") from None
        finally:
            await self._release_pool()
        try:
            return _text_of(response)
        except ValueError as problem:
            raise SummarizerError(f"Anthropic API: malformed response: {problem}") from None

    def _describe(self, error: anthropic.APIError, key: str) -> str:
        """One line saying what went wrong, after how many attempts; never the key."""
        return _ERRORS.describe(error, key, timeout=self.timeout, max_retries=self.max_retries)
