"""Every agent cutline reads, in the order the sniffer asks them; adding an agent is adding a line here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cutline.core.agents import claude_code, codex, openclaw, opencode, pi, qwen_code
from cutline.core.agents.adapter import AgentAdapter
from cutline.core.agents.peek import head_records, head_text
from cutline.core.errors import FormatError

# Codex before Qwen Code before Claude Code before pi: their record types overlap ("message", "user");
# OpenClaw before pi: its header is pi's with a newer version.
ADAPTERS: tuple[AgentAdapter, ...] = (
    codex.ADAPTER,
    qwen_code.ADAPTER,
    claude_code.ADAPTER,
    openclaw.ADAPTER,
    pi.ADAPTER,
    opencode.ADAPTER,  # a SQLite store only: it claims no JSONL record
)


def adapter_for(fmt: str) -> AgentAdapter:
    """The adapter of a session format (`Session.format`)."""
    for adapter in ADAPTERS:
        if adapter.format == fmt:
            return adapter
    raise FormatError(f"no reader for session format {fmt!r}")


def detect(record: dict[str, Any]) -> AgentAdapter | None:
    """The adapter whose format one parsed record is in, or None when its shape is not known."""
    for adapter in ADAPTERS:
        if adapter.detect(record):
            return adapter
    return None


def head_format(path: Path) -> str | None:
    """The format of the first record at the head of the file an adapter knows (None: none does, or no record)."""
    for record in head_records(head_text(path)):
        adapter = detect(record)
        if adapter is not None:
            return adapter.format
    return None
