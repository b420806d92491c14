"""Where Codex keeps its sessions (`$CODEX_HOME/sessions/Y/M/D/rollout-*.jsonl`, default `~/.codex`) and a cheap look at one."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from cutline.core.agents.peek import SessionPeek, file_peek, head_text, string_field


def codex_files(env: Mapping[str, str], home: Path) -> list[Path]:
    """Every rollout under the sessions folder (archived sessions are left out, as Codex's own resume list does)."""
    codex_home = Path(env["CODEX_HOME"]).expanduser() if env.get("CODEX_HOME") else home / ".codex"
    return sorted((codex_home / "sessions").rglob("rollout-*.jsonl"))


def codex_peek(path: Path) -> list[SessionPeek]:
    """`session_meta` on the first line: id, cli_version, cwd (read from the head even when the line runs past it)."""
    text = head_text(path)
    if '"session_meta"' not in text[:4096]:
        return [file_peek(path, None, None, None)]
    return [file_peek(path, string_field(text, "id"), string_field(text, "cli_version"), string_field(text, "cwd"))]
