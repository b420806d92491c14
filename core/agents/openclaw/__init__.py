"""OpenClaw: its SQLite store (store.py) and its pi-style JSONL transcripts (session header version 4), read through pi's reader.

OpenClaw 2026.9 keeps transcripts in SQLite (`agents/<id>/agent/openclaw-agent.sqlite`)
and writes JSONL only as exports and legacy imports; its events are pi's entries under a
version 4 header. A file with a version 1-3 header cannot be told from pi's and reads as
pi. Write-back is refused: cutline never writes to OpenClaw's store.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cutline.core.agents.adapter import AgentAdapter, EntrySink
from cutline.core.agents.jsonl import Lines
from cutline.core.agents.openclaw.store import peek_store
from cutline.core.agents.peek import SessionPeek
from cutline.core.agents.pi.reader import read_pi
from cutline.core.models import Session, SessionFormat

# the first session-header version OpenClaw writes and pi does not
FIRST_OPENCLAW_VERSION = 4


class OpenClawAdapter(AgentAdapter):
    """OpenClaw's transcripts: JSONL here; its SQLite store is read by `store.read_store` (read_session routes it)."""

    format: SessionFormat = "openclaw"
    label = "OpenClaw"

    def detect(self, record: dict[str, Any]) -> bool:
        version = record.get("version")
        return (
            record.get("type") == "session"
            and isinstance(version, int)
            and not isinstance(version, bool)
            and version >= FIRST_OPENCLAW_VERSION
        )

    def read(self, lines: Lines, file: str, stem: str, sink: EntrySink | None, keep: bool) -> Session:
        session = read_pi(lines, file, stem, sink, keep)
        session.format = self.format
        return session

    def session_files(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """`$OPENCLAW_STATE_DIR/agents/<id>/agent/openclaw-agent.sqlite` (default state dir `~/.openclaw`)."""
        state = Path(env["OPENCLAW_STATE_DIR"]).expanduser() if env.get("OPENCLAW_STATE_DIR") else home / ".openclaw"
        return sorted(state.glob("agents/*/agent/openclaw-agent.sqlite"))

    def peek(self, path: Path) -> list[SessionPeek]:
        """Every session of the store, from its session list and header events (no transcript is decoded)."""
        return peek_store(path)

    def write_back_refusal(self) -> str | None:
        return "OpenClaw keeps its transcripts in its SQLite store, which cutline does not write to yet"


ADAPTER = OpenClawAdapter()
