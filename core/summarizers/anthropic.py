"""Summaries from Claude through the official Anthropic SDK.

The API key is read from `ANTHROPIC_API_KEY` at call time, handed to the SDK for that
call only and never kept, logged or put into an error message. `ANTHROPIC_BASE_URL`
(or `base_url=`) points the SDK elsewhere, e.g. at a proxy or the test server.
Retries are our own loop (the SDK's are turned off) so the attempt count and the
backoff are exact and a cancelled task never retries.
"""

from __future__ import annotations

import asyncio
import functools
import os
import ssl
import weakref
from http import HTTPStatus
from typing import Any

import anthropic
import httpx2

from cutline.core.config.settings import DEFAULT_MODEL
from cutline.core.errors import SummarizerError
from cutline.core.summarizers.base import Summarizer, SummaryRequest
from cutline.core.summarizers.prompts import (
    HISTORY_PROMPTS,
    SUMMARIZATION_SYSTEM_PROMPT,
    build_prompt_text,
    merge_conversation_text,
)
from cutline.core.summarizers.serialize import serialize_conversation

DEFAULT_TIMEOUT = 300.0
DEFAULT_MAX_RETRIES = 2
DEFAULT_BACKOFF_BASE = 0.5
DEFAULT_BACKOFF_MAX = 60.0
_MAX_CAUSE_CHARS = 200


def _one_line(text: str, secret: str | None) -> str:
    """Text fit for a one-line error: single spaced, capped, the secret blanked out."""
    if secret:
        text = text.replace(secret, "***")
    text = " ".join(text.split())
    return text if len(text) <= _MAX_CAUSE_CHARS else text[: _MAX_CAUSE_CHARS - 1] + "\u2026"


def _status_text(error: anthropic.APIStatusError) -> str:
    """`500 Internal Server Error` (or the error type the body names when HTTP has no phrase)."""
    try:
        phrase = HTTPStatus(error.status_code).phrase
    except ValueError:
        phrase = str(error.type or "error").replace("_", " ")
    return f"{error.status_code} {phrase}"


def _is_retryable(error: BaseException) -> bool:
    if isinstance(error, anthropic.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(error, anthropic.APIStatusError):
        return error.status_code in (408, 409, 429) or error.status_code >= 500
    return False


def _retry_after(error: BaseException) -> float | None:
    """Seconds the server asked us to wait (`retry-after-ms` or numeric `retry-after`)."""
    if not isinstance(error, anthropic.APIStatusError):
        return None
    headers = error.response.headers
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            continue
        if seconds >= 0:
            return seconds
    return None


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
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        backoff_base: float = DEFAULT_BACKOFF_BASE,
        backoff_max: float = DEFAULT_BACKOFF_MAX,
        temperature: float | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.timeout = float(timeout)
        self.max_retries = max(0, int(max_retries))
        self.backoff_base = max(0.0, float(backoff_base))
        self.backoff_max = max(0.0, float(backoff_max))
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

    def _delay(self, attempt: int, error: BaseException) -> float:
        backoff = self.backoff_base * (2**attempt)
        asked = _retry_after(error)
        if asked is not None:
            backoff = max(backoff, asked)
        return min(backoff, self.backoff_max)

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
                max_retries=0,
                open_telemetry=False,
                http_client=pool,
            )
            attempts = self.max_retries + 1
            for attempt in range(attempts):
                try:
                    response = await client.messages.create(**params)
                except anthropic.APIError as error:
                    if not _is_retryable(error) or attempt == attempts - 1:
                        raise SummarizerError(self._describe(error, attempt + 1, key)) from None
                    await asyncio.sleep(self._delay(attempt, error))
                    continue
                except (ValueError, TypeError, KeyError, AttributeError) as problem:
                    # the SDK could not decode the body (not JSON, wrong shape)
                    detail = _one_line(f"{type(problem).__name__}: {problem}", key)
                    raise SummarizerError(f"Anthropic API: malformed response: {detail}") from None
                except anthropic.AnthropicError as error:
                    raise SummarizerError(f"Anthropic API: {_one_line(str(error), key)}") from None
                try:
                    return _text_of(response)
                except ValueError as problem:
                    raise SummarizerError(f"Anthropic API: malformed response: {problem}") from None
        finally:
            await self._release_pool()
        raise SummarizerError("Anthropic API: no attempt was made")

    def _describe(self, error: anthropic.APIError, attempts: int, key: str) -> str:
        """One line saying what went wrong, after how many attempts; never the key."""
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        if isinstance(error, anthropic.APITimeoutError):
            return f"Anthropic API: timed out after {self.timeout:g}s" + (
                f" ({attempts} attempts)" if attempts > 1 else ""
            )
        if isinstance(error, anthropic.APIConnectionError):
            cause = error.__cause__
            detail = f": {_one_line(str(cause), key)}" if cause is not None and str(cause) else ""
            return f"Anthropic API: connection failed{detail}{tries}"
        if isinstance(error, anthropic.APIStatusError):
            text = f"Anthropic API: {_status_text(error)}{tries}"
            if not _is_retryable(error) and error.api_message:
                text += f": {_one_line(str(error.api_message), key)}"
            return text
        if isinstance(error, anthropic.APIResponseValidationError):
            return f"Anthropic API: malformed response: {_one_line(error.message, key)}"
        return f"Anthropic API: {_one_line(str(error), key)}{tries}"
