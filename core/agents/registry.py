"""Every agent cutline reads, in the order the sniffer asks them; adding an agent is adding a line here.

An agent's package (its reader, writer, context) is imported when its adapter is first
asked for: `adapter_for("codex")` imports Codex's alone, and a file's format is told by
`formats.head_format` / `formats.detect_format` without importing any agent. `ADAPTERS`,
every adapter at once, imports them all on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from cutline.core.agents.formats import detect_format, head_format
from cutline.core.errors import FormatError

if TYPE_CHECKING:
    from cutline.core.agents.adapter import AgentAdapter

    ADAPTERS: tuple[AgentAdapter, ...]

__all__ = ["ADAPTERS", "AGENT_PACKAGES", "adapter_for", "detect", "head_format"]

# Codex before Qwen Code before Claude Code before pi: their record types overlap ("message", "user");
# OpenClaw before pi: its header is pi's with a newer version; opencode is a SQLite store only: it
# claims no JSONL record. The order of `formats.DETECTORS` (a test keeps the two the same).
AGENT_PACKAGES: dict[str, str] = {
    "codex": "cutline.core.agents.codex",
    "qwen_code": "cutline.core.agents.qwen_code",
    "claude_code": "cutline.core.agents.claude_code",
    "openclaw": "cutline.core.agents.openclaw",
    "pi": "cutline.core.agents.pi",
    "opencode": "cutline.core.agents.opencode",
}


def adapter_for(fmt: str) -> AgentAdapter:
    """The adapter of a session format (`Session.format`); only that agent's package is imported."""
    package = AGENT_PACKAGES.get(fmt)
    if package is None:
        raise FormatError(f"no reader for session format {fmt!r}")
    adapter: AgentAdapter = importlib.import_module(package).ADAPTER
    return adapter


def detect(record: dict[str, Any]) -> AgentAdapter | None:
    """The adapter whose format one parsed record is in, or None when its shape is not known."""
    fmt = detect_format(record)
    return adapter_for(fmt) if fmt is not None else None


def __getattr__(name: str) -> tuple[AgentAdapter, ...]:
    """`ADAPTERS`: every agent's adapter, in the sniffer's order (each package imported on first use)."""
    if name != "ADAPTERS":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    adapters = tuple(adapter_for(fmt) for fmt in AGENT_PACKAGES)
    globals()["ADAPTERS"] = adapters
    return adapters
