"""Where Qwen Code keeps its sessions (`~/.qwen/projects/<cwd with "/" as "-">/chats/<sessionId>.jsonl`) and a cheap look at one."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from cutline.core.agents.peek import SessionPeek, file_peek, head_records, head_text


def qwen_dir(env: Mapping[str, str], home: Path) -> Path:
    """Qwen Code's own folder: `$QWEN_HOME` when set, else `~/.qwen`."""
    return Path(env["QWEN_HOME"]).expanduser() if env.get("QWEN_HOME") else home / ".qwen"


def qwen_code_files(env: Mapping[str, str], home: Path) -> list[Path]:
    """Every chat file under `projects/*/chats/`."""
    return sorted((qwen_dir(env, home) / "projects").glob("*/chats/*.jsonl"))


def qwen_code_peek(path: Path) -> list[SessionPeek]:
    """The first record's `sessionId`, `version` and `cwd` (every record carries them)."""
    version = cwd = session_id = None
    for record in head_records(head_text(path)):
        version = version or _string(record, "version")
        cwd = cwd or _string(record, "cwd")
        session_id = session_id or _string(record, "sessionId")
        if version and cwd and session_id:
            break
    return [file_peek(path, session_id or path.stem, version, cwd)]


def _string(record: dict[str, object], key: str) -> str | None:
    value = record.get(key)
    return value if isinstance(value, str) and value else None
