"""Where Claude Code keeps its sessions (`$CLAUDE_CONFIG_DIR` or `~/.claude`, `projects/<cwd-slug>/<id>.jsonl`) and a cheap look at one."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from cutline.core.agents.peek import SessionPeek, file_peek, head_records, head_text


def claude_code_files(env: Mapping[str, str], home: Path) -> list[Path]:
    """Every transcript under the config dir's `projects/` (subagent transcripts in deeper folders are not sessions)."""
    config = Path(env["CLAUDE_CONFIG_DIR"]).expanduser() if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
    return sorted((config / "projects").glob("*/*.jsonl"))


def claude_code_peek(path: Path) -> list[SessionPeek]:
    """The first record carrying `version` / `cwd` / `sessionId` (queue records come before them)."""
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
