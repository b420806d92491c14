"""The compaction keys of an OpenClaw config (`openclaw.json`, written in JSON5)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import json5

from cutline.core.config.settings import (
    CompactionSettings,
    MemoryFlushSettings,
    PostCompactionSettings,
    QualityGuardSettings,
)
from cutline.core.errors import SettingsError

# json5 reports `<string>:LINE Unexpected "x" at column N`
_JSON5_WHERE = re.compile(r"^<string>:(\d+)\s*")


def _dig(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _known(table: dict[str, Any], model: type[Any]) -> dict[str, Any]:
    return {k: v for k, v in table.items() if k in model.model_fields}


def read_openclaw_config(path: str | Path) -> Any:
    """The parsed JSON5 document; a SettingsError with the file and line when it cannot be read."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise SettingsError(f"{file}: cannot read OpenClaw config ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise SettingsError(f"{file}: not valid JSON/JSON5 (not UTF-8)") from None
    try:
        return json5.loads(text)
    except ValueError as exc:
        message = str(exc).splitlines()[0] if str(exc) else "cannot parse"
        match = _JSON5_WHERE.match(message)
        where = f":{match.group(1)}" if match else ""
        raise SettingsError(f"{file}{where}: not valid JSON/JSON5 ({message[match.end() if match else 0 :]})") from None


# Keys OpenClaw 2026.9 retired (its doctor migration removes them): read, reported, never used.
RETIRED_COMPACTION_KEYS = (
    "reserveTokens",
    "reserveTokensFloor",
    "maxHistoryShare",
    "customInstructions",
    "identifierInstructions",
    "truncateAfterCompaction",
)
RETIRED_MEMORY_FLUSH_KEYS = ("prompt", "systemPrompt")
_PREFIX = "agents.defaults.compaction"


def _clamped(value: Any, low: int, high: int) -> Any:
    """OpenClaw clamps these counts rather than refusing them."""
    if isinstance(value, int) and not isinstance(value, bool):
        return min(high, max(low, value))
    return value


def retired_keys(compaction: dict[str, Any]) -> list[str]:
    """The retired keys present in an `agents.defaults.compaction` table, by their full path."""
    found = [f"{_PREFIX}.{key}" for key in RETIRED_COMPACTION_KEYS if key in compaction]
    flush = compaction.get("memoryFlush")
    if isinstance(flush, dict):
        found += [f"{_PREFIX}.memoryFlush.{key}" for key in RETIRED_MEMORY_FLUSH_KEYS if key in flush]
    if compaction.get("identifierPolicy") == "custom":
        found.append(f'{_PREFIX}.identifierPolicy "custom" (read as "strict")')
    return found


def retired_notice(path: str | Path) -> str | None:
    """One line naming the retired keys of an OpenClaw config, or None when it has none."""
    compaction = _dig(read_openclaw_config(path), "agents", "defaults", "compaction")
    found = retired_keys(compaction) if isinstance(compaction, dict) else []
    if not found:
        return None
    return f"{Path(path).name}: retired in OpenClaw 2026.9 and not used: {', '.join(found)}"


def openclaw_compaction_dict(path: str | Path) -> dict[str, Any]:
    """`agents.defaults.compaction` plus `memory.postCompaction`, as the keys of a `[compaction]` table.

    Keys cutline does not model are ignored (OpenClaw has more than cutline needs);
    keys OpenClaw 2026.9 retired are left out (see `retired_notice`).
    """
    config = read_openclaw_config(path)
    compaction = _dig(config, "agents", "defaults", "compaction")
    result: dict[str, Any] = {}
    if compaction is not None:
        if not isinstance(compaction, dict):
            raise SettingsError("agents.defaults.compaction: must be an object")
        result = _known({k: v for k, v in compaction.items() if k not in RETIRED_COMPACTION_KEYS}, CompactionSettings)
        if isinstance(result.get("memoryFlush"), dict):
            flush = {k: v for k, v in result["memoryFlush"].items() if k not in RETIRED_MEMORY_FLUSH_KEYS}
            result["memoryFlush"] = _known(flush, MemoryFlushSettings)
        if isinstance(result.get("qualityGuard"), dict):
            guard = _known(result["qualityGuard"], QualityGuardSettings)
            if "maxRetries" in guard:
                guard["maxRetries"] = _clamped(guard["maxRetries"], 0, 3)
            result["qualityGuard"] = guard
        if "recentTurnsPreserve" in result:
            result["recentTurnsPreserve"] = _clamped(result["recentTurnsPreserve"], 0, 12)
        if result.get("identifierPolicy") == "custom":
            result["identifierPolicy"] = "strict"
    post = _dig(config, "memory", "postCompaction")
    if isinstance(post, dict):
        result["postCompaction"] = _known(post, PostCompactionSettings)
    return result
