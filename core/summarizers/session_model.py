"""The session's own model as the default summarizer model, as OpenClaw summarizes with the agent's model.

Rule: when the settings name no `model`, the summarizer is a model provider's
(anthropic, openai) and the session's last assistant message was written by that
provider's model, and that provider's key is in the environment, the summary is
written by the session's model. Otherwise the configured (or default) model stays;
the offline summarizer is never swapped for a networked one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cutline.core.config.settings import CompactionSettings
from cutline.core.models import Entry

# the summarizer that reaches a session's provider, and the key it needs
PROVIDER_SUMMARIZER = {"anthropic": "anthropic", "openai": "openai", "openai-codex": "openai"}
KEY_ENV = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}


def session_model(path: Sequence[Entry]) -> tuple[str | None, str] | None:
    """(provider, model) of the last assistant message that names its model."""
    for entry in reversed(path):
        message = entry.message
        if message is not None and message.role == "assistant" and message.model:
            return message.provider, message.model
    return None


def _provider_of(provider: str | None, model: str) -> str | None:
    if provider:
        return provider
    if model.startswith("claude"):
        return "anthropic"
    if model.startswith(("gpt-", "o1", "o3", "o4", "codex")):
        return "openai"
    return None


def default_summarizer_model(
    settings: CompactionSettings, path: Sequence[Entry], environ: Mapping[str, str]
) -> str | None:
    """The session's model when the rule above applies, else None."""
    if "model" in settings.model_fields_set or settings.summarizer not in KEY_ENV:
        return None
    found = session_model(path)
    if found is None:
        return None
    provider, model = found
    if PROVIDER_SUMMARIZER.get(_provider_of(provider, model) or "") != settings.summarizer:
        return None
    return model if environ.get(KEY_ENV[settings.summarizer]) else None
