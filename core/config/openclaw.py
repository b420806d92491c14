"""The compaction keys of an OpenClaw config (`openclaw.json`, written in JSON5)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import json5

from cutline.core.config.settings import CompactionSettings, MemoryFlushSettings, PostCompactionSettings
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


def openclaw_compaction_dict(path: str | Path) -> dict[str, Any]:
    """`agents.defaults.compaction` plus `memory.postCompaction`, as the keys of a `[compaction]` table.

    Keys cutline does not model are ignored (OpenClaw has more than cutline needs).
    """
    config = read_openclaw_config(path)
    compaction = _dig(config, "agents", "defaults", "compaction")
    result: dict[str, Any] = {}
    if compaction is not None:
        if not isinstance(compaction, dict):
            raise SettingsError("agents.defaults.compaction: must be an object")
        result = _known(compaction, CompactionSettings)
        if isinstance(result.get("memoryFlush"), dict):
            result["memoryFlush"] = _known(result["memoryFlush"], MemoryFlushSettings)
    post = _dig(config, "memory", "postCompaction")
    if isinstance(post, dict):
        result["postCompaction"] = _known(post, PostCompactionSettings)
    return result
