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
