"""One-line descriptions of an official model SDK's failures, the key never in them.

The Anthropic and OpenAI SDKs share one error family (API, connection, timeout,
status and response-validation errors) and one retry rule; a summarizer names its
SDK's classes once in an `SdkErrors` and gets the same wording for both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

_MAX_CAUSE_CHARS = 200


def one_line(text: str, secret: str | None) -> str:
    """Text fit for a one-line error: single spaced, capped, the secret blanked out."""
    if secret:
        text = text.replace(secret, "***")
    text = " ".join(text.split())
    return text if len(text) <= _MAX_CAUSE_CHARS else text[: _MAX_CAUSE_CHARS - 1] + "\u2026"


@dataclass(frozen=True)
class SdkErrors:
    """The error classes of one SDK, and how its status errors carry the server's message."""

    label: str  # "Anthropic API"
    connection: type[Exception]  # includes the timeout class in both SDKs
    timeout: type[Exception]
    status: type[Exception]
    validation: type[Exception]
    server_message: Callable[[Any], object]

    def was_retried(self, error: Exception) -> bool:
        """The SDKs' retry rule: connection failures, timeouts, 408, 409, 429 and 5xx, unless `x-should-retry` says otherwise.

        A retried failure surfaced only after every retry was spent.
        """
        if isinstance(error, self.connection):
            return True
        if isinstance(error, self.status):
            answered: Any = error
            code: int = answered.status_code
            said = answered.response.headers.get("x-should-retry")
            if said in ("true", "false"):
                return bool(said == "true")
            return code in (408, 409, 429) or code >= 500
        return False

    def describe(self, error: Exception, key: str, *, timeout: float, max_retries: int) -> str:
        """One line saying what went wrong, after how many attempts; never the key."""
        attempts = max_retries + 1 if self.was_retried(error) else 1
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        if isinstance(error, self.timeout):
            return f"{self.label}: timed out after {timeout:g}s" + (f" ({attempts} attempts)" if attempts > 1 else "")
        if isinstance(error, self.connection):
            cause = error.__cause__
            detail = f": {one_line(str(cause), key)}" if cause is not None and str(cause) else ""
            return f"{self.label}: connection failed{detail}{tries}"
        if isinstance(error, self.status):
            text = f"{self.label}: {status_text(error)}{tries}"
            said = self.server_message(error)
            if not self.was_retried(error) and said:
                text += f": {one_line(str(said), key)}"
            return text
        if isinstance(error, self.validation):
            return f"{self.label}: malformed response: {one_line(str(getattr(error, 'message', error)), key)}"
        return f"{self.label}: {one_line(str(error), key)}{tries}"


def status_text(error: Any) -> str:
    """`500 Internal Server Error` (or the error type the body names when HTTP has no phrase)."""
    try:
        phrase = HTTPStatus(error.status_code).phrase
    except ValueError:
        phrase = str(getattr(error, "type", None) or "error").replace("_", " ")
    return f"{error.status_code} {phrase}"
