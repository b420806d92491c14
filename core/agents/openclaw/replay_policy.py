"""How OpenClaw 2026.9 rewrites tool call ids before it sends a session: the part of its transcript policy that does it.

OpenClaw keeps the ids as the model gave them in its store and rewrites them in memory on
every request (`resolveTranscriptPolicy` in src/agents/transcript-policy.ts, then
`sanitizeSessionHistory`), chosen from the provider, the model API and the model id of the
run. cutline keys it on the session's last `model-snapshot` event, which records exactly
those three for the last run. See docs/rules/openclaw-2026.9.md §11.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from cutline.core.models import Entry

ToolCallIdMode = Literal["strict", "strict9"]

# APIs as OpenClaw names them (`isAnthropicApi`, `isGoogleModelApi`, the Responses family)
_ANTHROPIC_APIS = frozenset({"anthropic-messages", "bedrock-converse-stream"})
_GOOGLE_APIS = frozenset({"google-gemini-cli", "google-generative-ai"})
_RESPONSES_APIS = frozenset({"openai-responses", "openai-chatgpt-responses", "azure-openai-responses"})
_COMPLETIONS_API = "openai-completions"

# bundled providers whose plugin builds the policy from the "openai-compatible" family
_OPENAI_COMPATIBLE_PROVIDERS = frozenset({"xai", "sglang"})
# bundled providers whose own policy cutline does not model (ids are left as stored for them)
UNMODELLED_PROVIDERS = frozenset({"clawrouter", "github-copilot", "ollama", "opencode-go", "openrouter"})


class ToolIdPolicy(NamedTuple):
    """What `sanitizeSessionHistory` does to tool call ids: the mode (None: ids sent as stored) and its options."""

    mode: ToolCallIdMode | None = None
    # `preserveNativeAnthropicToolUseIds`: a first `toolu_…` id stays as it is
    preserve_native_anthropic: bool = False
    # `preserveReplaySafeThinkingToolCallIds`: signed-thinking turns keep their calls' ids
    keep_thinking_turn_ids: bool = False


class ModelSnapshot(NamedTuple):
    """The provider, model API and model id of a run, as OpenClaw's `model-snapshot` custom event records them."""

    provider: str
    api: str
    model: str


def last_model_snapshot(path: list[Entry]) -> ModelSnapshot | None:
    """The last `model-snapshot` custom event on the path (OpenClaw's `readModelSnapshotState` reads the same)."""
    for entry in reversed(path):
        if entry.type != "custom" or entry.data.get("customType") != "model-snapshot":
            continue
        data = entry.data.get("data")
        if not isinstance(data, dict):
            continue
        fields = [data.get(k) for k in ("provider", "modelApi", "modelId")]
        return ModelSnapshot(*(f if isinstance(f, str) else "" for f in fields))
    return None


def _claude_identity(model: str) -> str:
    """`resolveClaudeModelIdentity`: lower case, no `anthropic/`, `._` and spaces as `-`, the last `claude-…` part."""
    normalized = model.strip().lower()
    normalized = re.sub(r"[._\s]+", "-", normalized.removeprefix("anthropic/"))
    found = re.search(r"(?:^|[-/])(claude-[^/]+)$", normalized)
    return found.group(1) if found else normalized


_OPUS_5 = re.compile(r"(?:^|-)claude-opus-5(?=$|[^a-z0-9])")
_KEEPS_THINKING = re.compile(
    r"(?:^|-)claude-(?:fable-5|mythos-(?:5|preview)|opus-4-(?:5|6|7|8)|sonnet-(?:5|4-6))(?=$|[^a-z0-9])"
)


def drops_thinking(model: str) -> bool:
    """`shouldDropClaudeThinkingBlocks`: a Claude model older than the ones whose thinking is replayed."""
    identity = _claude_identity(model)
    opus_5 = identity in ("opus", "opus-5", "opus-5-5") or bool(_OPUS_5.search(identity))
    return (identity.startswith("claude-") or opus_5) and not (opus_5 or _KEEPS_THINKING.search(identity))


def drops_thinking_blocks(provider: str, api: str, model: str) -> bool:
    """The `dropThinkingBlocks` flag of `resolveTranscriptPolicy`: thinking of older Claude models is not replayed.

    The `anthropic` provider sets it by model on any API; a provider without a policy of its
    own (and MiniMax's hybrid one) on Anthropic's APIs only; OpenAI, Google, xAI and SGLang
    never. Providers in UNMODELLED_PROVIDERS keep their thinking here (GitHub Copilot would
    drop it all, not modelled), and so does a model whose catalog entry turns reasoning effort
    off (`compat.supportsReasoningEffort: false`, not in the store).
    """
    provider = provider.strip().lower()
    if provider == "anthropic":
        return drops_thinking(model)
    if provider in UNMODELLED_PROVIDERS or provider in _OPENAI_COMPATIBLE_PROVIDERS or provider in ("openai", "google"):
        return False
    return api in _ANTHROPIC_APIS and drops_thinking(model)


def _anthropic(api: str, model: str, *, native: bool) -> ToolIdPolicy:
    """`buildStrictAnthropicReplayPolicy` (and the unowned fallback for Anthropic APIs): strict ids, signatures kept.

    Signed-thinking turns keep their ids when the API is Anthropic's and the model's thinking
    is replayed (`shouldAllowProviderOwnedThinkingReplay`).
    """
    keep = api in _ANTHROPIC_APIS and not drops_thinking(model)
    return ToolIdPolicy("strict", preserve_native_anthropic=native, keep_thinking_turn_ids=keep)


def _openai_compatible(api: str) -> ToolIdPolicy:
    """`buildOpenAICompatibleReplayPolicy`: strict ids for chat completions (the Responses path skips this step)."""
    return ToolIdPolicy("strict") if api == _COMPLETIONS_API else ToolIdPolicy()


def tool_id_policy(provider: str, api: str, model: str) -> ToolIdPolicy:
    """The id part of `resolveTranscriptPolicy` for a provider, model API and model id, as `sanitizeSessionHistory` applies it.

    The Responses APIs never get this rewrite (OpenClaw normalizes their ids another way, not
    modelled); bundled providers in UNMODELLED_PROVIDERS keep their ids here.
    """
    provider = provider.strip().lower()
    if api in _RESPONSES_APIS or provider in UNMODELLED_PROVIDERS:
        return ToolIdPolicy()
    if provider == "anthropic":  # "native-anthropic-by-model" family
        return _anthropic(api, model, native=True)
    if provider == "openai":  # `buildOpenAIReplayPolicy`
        return _openai_compatible(api)
    if provider in _OPENAI_COMPATIBLE_PROVIDERS:
        return _openai_compatible(api)
    if provider == "google":  # "google-gemini" family
        return ToolIdPolicy("strict")
    # a provider without a replay policy of its own: `buildUnownedProviderTransportReplayFallback`
    if api in _ANTHROPIC_APIS:
        return _anthropic(api, model, native=False)
    if api in _GOOGLE_APIS or api == _COMPLETIONS_API:
        return ToolIdPolicy("strict")
    return ToolIdPolicy()
