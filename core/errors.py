"""Errors cutline reports to a person as one line (never as a traceback)."""

from __future__ import annotations


class CutlineError(Exception):
    """Base for every error that is the input's or the environment's fault, not a bug."""


class FormatError(CutlineError):
    """A file is of no known session format or cannot be read at all."""


class NotFoundError(CutlineError):
    """A session, proposal or entry named by the user does not exist."""


class WriteBackRefused(CutlineError):
    """A session file changed since it was read, so appending to it would be unsafe."""


class SettingsError(CutlineError):
    """A settings value is invalid; the message names the key."""


class SummarizerError(CutlineError):
    """A summarizer failed (API error, timeout, malformed response)."""


def redacted(text: str, *secrets: str | None, limit: int = 200) -> str:
    """Text fit for a one-line error: single spaced, capped, every secret blanked out.

    Why: an API's error text can echo the request's key; it must not reach a terminal or a log.
    """
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


class StoreBusy(CutlineError):
    """Another process held cutline's store for longer than the busy timeout."""


class StoreDamaged(CutlineError):
    """cutline's own database cannot be read: a damaged page, not a database, or an empty file where one was."""
