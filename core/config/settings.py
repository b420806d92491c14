"""Compaction settings: one model mirroring OpenClaw's `agents.defaults.compaction` plus the seeds' keys, and its loaders.

Field names stay camelCase exactly as they appear in OpenClaw's config and in
cutline's `[compaction]` TOML table, so a key in an error message is the key a
person typed.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from cutline.core import choices
from cutline.core.config.errors import describe
from cutline.core.errors import SettingsError

# OpenClaw's own limits: 300 s for a whole compaction (EMBEDDED_COMPACTION_TIMEOUT_MS, overridable by
# agents.defaults.compaction.timeoutSeconds) and 180 s for one model request.
DEFAULT_TIMEOUT_SECONDS = 300.0
DEFAULT_REQUEST_TIMEOUT_SECONDS = 180.0
DEFAULT_MAX_RETRIES = 2

# A current Sonnet: the SDK marks claude-sonnet-4-5 deprecated (end of life 2026-11-30).
DEFAULT_MODEL = "claude-sonnet-5-5"

MODES = choices.MODES  # the names are listed once, in core.choices

DEFAULT_MEMORY_FLUSH_PROMPT = " ".join(
    [
        "Pre-compaction memory flush.",
        "Store durable memories now (use memory/YYYY-MM-DD.md; create memory/ if needed).",
        "If nothing to store, reply with NO_REPLY.",
    ]
)
DEFAULT_MEMORY_FLUSH_SYSTEM_PROMPT = " ".join(
    [
        "Pre-compaction memory flush turn.",
        "The session is near auto-compaction; capture durable memories to disk.",
        "You may reply, but usually NO_REPLY is correct.",
    ]
)
DEFAULT_POST_COMPACTION_PROMPT = "Compaction completed. Read memory/YYYY-MM-DD.md to recover context."


class MemoryFlushSettings(BaseModel):
    """OpenClaw's pre-compaction memory flush (a silent turn that lets the model save memories)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, defer_build=True)

    enabled: bool = True
    softThresholdTokens: int = Field(default=4000, ge=0)
    prompt: str = DEFAULT_MEMORY_FLUSH_PROMPT
    systemPrompt: str = DEFAULT_MEMORY_FLUSH_SYSTEM_PROMPT


class PostCompactionSettings(BaseModel):
    """OpenClaw's `memory.postCompaction`: a recovery turn injected after a compaction."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, defer_build=True)

    enabled: bool = False
    prompt: str = DEFAULT_POST_COMPACTION_PROMPT


class QualityGuardSettings(BaseModel):
    """OpenClaw's `qualityGuard` (on by default in its runner, up to 3 corrective retries) plus cutline's `strict`.

    `strict`: a proposal whose summary fails the guard cannot be accepted (OpenClaw
    cancels such a compaction).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True, defer_build=True)

    enabled: bool = True
    maxRetries: int = Field(default=1, ge=0, le=3)
    strict: bool = False


class CompactionSettings(BaseModel):
    """Everything that decides where a compaction cuts and how it summarizes.

    `contextWindow` counts as configured only when set explicitly; otherwise the
    model's known window wins and 200000 is the last resort (see core.engine.triggers).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True, defer_build=True)

    mode: str = "pi"
    enabled: bool = True
    reserveTokens: int = Field(default=16384, ge=0)
    reserveTokensFloor: int = Field(default=20000, ge=0)
    keepRecentTokens: int = Field(default=20000, ge=0)
    maxHistoryShare: float = Field(default=0.5, ge=0.1, le=0.9)
    memoryFlush: MemoryFlushSettings = Field(default_factory=MemoryFlushSettings)
    lastTurnInjection: bool = True
    lastTurnMaxTokens: int = Field(default=2000, ge=0)
    postCompaction: PostCompactionSettings = Field(default_factory=PostCompactionSettings)
    # first-and-tail (compaction-design-single-pass.md): CompactionThresholdTokens, ProtectedTailMessages
    protectedTailMessages: int = Field(default=6, ge=0)
    compactionThresholdTokens: int = Field(default=80000, ge=0)
    # system-and-summary (context-compaction-go.md): `compaction.threshold`; 0 disables auto-compaction
    threshold: int = Field(default=200000, ge=0)
    contextWindow: int = Field(default=200000, gt=0)
    # summarizing
    summarizer: str = "extractive"
    model: str = DEFAULT_MODEL
    promptName: str = "pi-checkpoint"
    customInstructions: str | None = None
    parts: int = Field(default=2, ge=1)
    maxChunkTokens: int | None = Field(default=None, gt=0)
    previewStyle: bool = False
    # which agent version's planner and summaries (None: chosen from the session, else current pi;
    # see core.engine.rules.choice)
    rules: str | None = None
    # OpenClaw 2026.9's safeguard: recent turns kept verbatim, identifier policy, quality guard, AGENTS.md sections
    recentTurnsPreserve: int = Field(default=3, ge=0, le=12)
    identifierPolicy: Literal["strict", "off"] = "strict"
    qualityGuard: QualityGuardSettings = Field(default_factory=QualityGuardSettings)
    postCompactionSections: list[str] = Field(default_factory=lambda: ["Session Startup", "Red Lines"])
    # the openai summarizer: an OpenAI-compatible endpoint (else OPENAI_BASE_URL) and its API flavour
    baseUrl: str | None = None
    api: Literal["responses", "chat"] = "responses"
    # the model check's prices per million tokens (`audit --probe` shows tokens only without them)
    inputPricePerMTok: float | None = Field(default=None, ge=0)
    outputPricePerMTok: float | None = Field(default=None, ge=0)
    # giving up in time: the whole compaction, one model request, retries of a failed request (inside the former)
    timeoutSeconds: float = Field(default=DEFAULT_TIMEOUT_SECONDS, gt=0)
    requestTimeoutSeconds: float = Field(default=DEFAULT_REQUEST_TIMEOUT_SECONDS, gt=0)
    maxRetries: int = Field(default=DEFAULT_MAX_RETRIES, ge=0)

    @field_validator("mode", mode="before")
    @classmethod
    def _openclaw_default_mode(cls, value: Any) -> Any:
        # OpenClaw calls pi's own behaviour "default"
        return "pi" if value == "default" else value

    @field_validator("mode")
    @classmethod
    def _known_mode(cls, value: str) -> str:
        return _one_of(value, choices.MODES)

    @field_validator("rules")
    @classmethod
    def _known_rules(cls, value: str | None) -> str | None:
        return None if value is None else _one_of(value, choices.RULE_SETS)

    @field_validator("summarizer")
    @classmethod
    def _known_summarizer(cls, value: str) -> str:
        return _one_of(value, choices.SUMMARIZERS)

    def with_overrides(self, **overrides: Any) -> CompactionSettings:
        """A copy with the given keys replaced (None values ignored), validated."""
        data = self.model_dump(exclude_unset=True)
        data.update({k: v for k, v in overrides.items() if v is not None})
        return settings_from_dict(data)


def _one_of(value: str, names: tuple[str, ...]) -> str:
    """`value` when it is one of `names`, else a ValueError saying which ones are."""
    if value not in names:
        raise ValueError(f"must be one of {', '.join(names)}")
    return value


def settings_from_dict(data: dict[str, Any], prefix: str = "compaction") -> CompactionSettings:
    """Validate a plain mapping; the first problem becomes a SettingsError naming its key."""
    try:
        return CompactionSettings.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in (prefix, *first.get("loc", ())))
        raise SettingsError(f"{key}: {describe(first)}") from None
