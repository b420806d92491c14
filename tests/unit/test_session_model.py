"""The session's own model becomes the summarizer's when its provider's key is configured."""

from __future__ import annotations

from cutline.core.config.settings import CompactionSettings, settings_from_dict
from cutline.core.models import Entry, Message, TextBlock
from cutline.core.summarizers.session_model import default_summarizer_model


def _path(provider: str | None, model: str) -> list[Entry]:
    reply = Message(role="assistant", content=[TextBlock(text="ok")], provider=provider, model=model)
    return [Entry(id="a", type="message", message=Message(role="user")), Entry(id="b", type="message", message=reply)]


def test_session_model_is_the_default_when_its_key_is_set() -> None:
    settings = settings_from_dict({"summarizer": "anthropic"})
    path = _path("anthropic", "claude-opus-4-5")
    assert default_summarizer_model(settings, path, {"ANTHROPIC_API_KEY": "k"}) == "claude-opus-4-5"
    assert default_summarizer_model(settings, path, {}) is None
    openai = settings_from_dict({"summarizer": "openai"})
    assert default_summarizer_model(openai, _path(None, "gpt-5-codex"), {"OPENAI_API_KEY": "k"}) == "gpt-5-codex"


def test_configured_model_other_provider_or_offline_summarizer_stay() -> None:
    env = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}
    assert (
        default_summarizer_model(
            settings_from_dict({"summarizer": "anthropic", "model": "m"}), _path("anthropic", "claude-x"), env
        )
        is None
    )
    assert (
        default_summarizer_model(settings_from_dict({"summarizer": "anthropic"}), _path("openai", "gpt-5"), env) is None
    )
    assert default_summarizer_model(CompactionSettings(), _path("anthropic", "claude-x"), env) is None
