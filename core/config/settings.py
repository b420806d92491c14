"""Compaction settings: one model mirroring OpenClaw's `agents.defaults.compaction` plus the seeds' keys, and its loaders.

Field names stay camelCase exactly as they appear in OpenClaw's config and in
cutline's `[compaction]` TOML table, so a key in an error message is the key a
person typed.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from cutline.core.errors import SettingsError
from cutline.core.paths import config_path

# A current Sonnet: the SDK marks claude-sonnet-4-5 deprecated (end of life 2026-11-30).
DEFAULT_MODEL = "claude-sonnet-5-5"

Mode = Literal["pi", "safeguard", "first-and-tail", "system-and-summary"]
MODES: tuple[str, ...] = ("pi", "safeguard", "first-and-tail", "system-and-summary")
# planner rule sets (core.engine.rules): pi 0.73.1, current pi (0.87.1 = 1.5.2), OpenClaw 2026.9
Rules = Literal["pi", "pi-0.73", "openclaw-2026.9"]

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

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    enabled: bool = True
    softThresholdTokens: int = Field(default=4000, ge=0)
    prompt: str = DEFAULT_MEMORY_FLUSH_PROMPT
    systemPrompt: str = DEFAULT_MEMORY_FLUSH_SYSTEM_PROMPT


class PostCompactionSettings(BaseModel):
    """OpenClaw's `memory.postCompaction`: a recovery turn injected after a compaction."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    enabled: bool = False
    prompt: str = DEFAULT_POST_COMPACTION_PROMPT


class CompactionSettings(BaseModel):
    """Everything that decides where a compaction cuts and how it summarizes.

    `contextWindow` counts as configured only when set explicitly; otherwise the
    model's known window wins and 200000 is the last resort (see core.engine.triggers).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    mode: Mode = "pi"
    rules: Rules = "pi"
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

    @field_validator("mode", mode="before")
    @classmethod
    def _openclaw_default_mode(cls, value: Any) -> Any:
        # OpenClaw calls pi's own behaviour "default"
        return "pi" if value == "default" else value

    def with_overrides(self, **overrides: Any) -> CompactionSettings:
        """A copy with the given keys replaced (None values ignored), validated."""
        data = self.model_dump(exclude_unset=True)
        data.update({k: v for k, v in overrides.items() if v is not None})
        return settings_from_dict(data)


# ---------------------------------------------------------------------------
# Validation with messages that name the key
# ---------------------------------------------------------------------------


def _describe(error: dict[str, Any]) -> str:
    kind = error.get("type", "")
    ctx = error.get("ctx") or {}
    if kind == "greater_than_equal":
        return f"must be >= {ctx.get('ge')}"
    if kind == "greater_than":
        return f"must be > {ctx.get('gt')}"
    if kind == "less_than_equal":
        return f"must be <= {ctx.get('le')}"
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "literal_error":
        return f"must be one of {', '.join(MODES)}"
    if kind.startswith("int_"):
        return "must be a whole number"
    if kind.startswith("float_"):
        return "must be a number"
    if kind.startswith("bool_"):
        return "must be true or false"
    if kind.startswith("string_"):
        return "must be a string"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return "must be a table of settings"
    return str(error.get("msg", "invalid value"))


def settings_from_dict(data: dict[str, Any], prefix: str = "compaction") -> CompactionSettings:
    """Validate a plain mapping; the first problem becomes a SettingsError naming its key."""
    try:
        return CompactionSettings.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in (prefix, *first.get("loc", ())))
        raise SettingsError(f"{key}: {_describe(first)}") from None


# ---------------------------------------------------------------------------
# OpenClaw config (JSON5-ish) and cutline's TOML
# ---------------------------------------------------------------------------


def json5_to_json(text: str) -> str:
    """Turn the JSON5 people write in OpenClaw configs into JSON.

    Handles // and /* */ comments, trailing commas, unquoted keys and single-quoted
    strings; anything fancier fails in json.loads with a line number.
    """
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'":
            quote = ch
            j = i + 1
            buf: list[str] = []
            while j < n and text[j] != quote:
                if text[j] == "\\" and j + 1 < n:
                    nxt = text[j + 1]
                    if quote == "'" and nxt == "'":
                        buf.append("'")
                    elif nxt == "\n":
                        pass  # JSON5 line continuation
                    else:
                        buf.append(text[j : j + 2])
                    j += 2
                    continue
                if quote == "'" and text[j] == '"':
                    buf.append('\\"')
                else:
                    buf.append(text[j])
                j += 1
            out.append('"' + "".join(buf) + '"')
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif ch == ",":
            j = i + 1
            while j < n:
                if text[j].isspace():
                    j += 1
                elif text.startswith("//", j):
                    k = text.find("\n", j)
                    j = n if k < 0 else k
                elif text.startswith("/*", j):
                    k = text.find("*/", j + 2)
                    j = n if k < 0 else k + 2
                else:
                    break
            if j < n and text[j] in "}]":
                i += 1  # trailing comma
            else:
                out.append(ch)
                i += 1
        elif ch.isalpha() or ch in "_$":
            j = i
            while j < n and (text[j].isalnum() or text[j] in "_$"):
                j += 1
            word = text[i:j]
            k = j
            while k < n and text[k] in " \t\r\n":
                k += 1
            if k < n and text[k] == ":" and word not in ("true", "false", "null"):
                out.append(json.dumps(word))
            else:
                out.append(word)
            i = j
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _dig(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def openclaw_compaction_dict(path: str | Path) -> dict[str, Any]:
    """The compaction keys of an OpenClaw config: `agents.defaults.compaction` plus `memory.postCompaction`.

    Keys cutline does not model are ignored (OpenClaw has more than cutline needs).
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise SettingsError(f"{file}: cannot read OpenClaw config ({exc.strerror})") from None
    try:
        config = json.loads(json5_to_json(text))
    except json.JSONDecodeError as exc:
        raise SettingsError(f"{file}:{exc.lineno}: not valid JSON/JSON5 ({exc.msg})") from None
    compaction = _dig(config, "agents", "defaults", "compaction")
    result: dict[str, Any] = {}
    if compaction is not None:
        if not isinstance(compaction, dict):
            raise SettingsError("agents.defaults.compaction: must be an object")
        known = set(CompactionSettings.model_fields)
        result = {k: v for k, v in compaction.items() if k in known}
        if isinstance(result.get("memoryFlush"), dict):
            flush_keys = set(MemoryFlushSettings.model_fields)
            result["memoryFlush"] = {k: v for k, v in result["memoryFlush"].items() if k in flush_keys}
    post = _dig(config, "memory", "postCompaction")
    if isinstance(post, dict):
        result["postCompaction"] = {k: v for k, v in post.items() if k in PostCompactionSettings.model_fields}
    return result


def toml_compaction_dict(path: str | Path | None = None) -> dict[str, Any]:
    """The `[compaction]` table of cutline's TOML config ({} when the file or table is absent)."""
    file = Path(path) if path is not None else config_path()
    if not file.exists():
        return {}
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{file}: not valid TOML ({exc})") from None
    except OSError as exc:
        raise SettingsError(f"{file}: cannot read config ({exc.strerror})") from None
    table = data.get("compaction", {})
    if not isinstance(table, dict):
        raise SettingsError("compaction: must be a table")
    return table


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def load_settings(
    config: str | Path | None = None,
    *,
    openclaw: str | Path | None = None,
    overrides: dict[str, Any] | None = None,
) -> CompactionSettings:
    """Settings from cutline's TOML config, then an OpenClaw config, then explicit overrides (later wins).

    `config` defaults to `$CUTLINE_HOME/config.toml`; None values in `overrides` are ignored.
    """
    data = toml_compaction_dict(config)
    if openclaw is not None:
        data = _merge(data, openclaw_compaction_dict(openclaw))
    if overrides:
        data = _merge(data, {k: v for k, v in overrides.items() if v is not None})
    return settings_from_dict(data)
