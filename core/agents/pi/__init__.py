"""pi: session JSONL read (reader, v1 migration), written out (writer), written back to (append) and taken back."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cutline.core.agents.adapter import EntrySink
from cutline.core.agents.appending_adapter import AppendingAdapter
from cutline.core.agents.jsonl import Lines
from cutline.core.agents.peek import SessionPeek, file_peek, head_records, head_text
from cutline.core.agents.pi import writeback
from cutline.core.agents.pi.detect import is_pi_record
from cutline.core.agents.pi.reader import read_pi
from cutline.core.agents.pi.system import system_prompt
from cutline.core.agents.wire import WireContext, wire_messages
from cutline.core.models import Session, SessionFormat


class PiAdapter(AppendingAdapter):
    """pi-coding-agent's session files (`~/.pi/agent/sessions/**/*.jsonl`), versions 1-3, as 0.73 and 0.87 write them.

    Written back through pi/writeback.py; undo can continue on a branch from before the compaction (pi's tree).
    """

    format: SessionFormat = "pi"
    label = "pi"
    writer = writeback
    branches = True

    def detect(self, record: dict[str, Any]) -> bool:
        return is_pi_record(record)

    def read(self, lines: Lines, file: str, stem: str, sink: EntrySink | None, keep: bool) -> Session:
        return read_pi(lines, file, stem, sink, keep)

    def wire_context(self, session: Session) -> WireContext:
        """pi's Anthropic request: the context's system messages, replayed into one prompt, go in `system`, not `messages`."""
        messages = self.context(session.active_path())
        prompt = system_prompt(messages)
        notes = [
            f"system prompt from the session's system entries ({len(prompt):,} chars), sent as the request's `system`"
        ]
        return WireContext(
            agent=self.format,
            messages=wire_messages([m for m in messages if m.role != "system"]),
            notes=notes if prompt else [],
        )

    def session_files(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """`~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl` (`PI_CODING_AGENT_DIR` moves `~/.pi/agent`)."""
        agent_dir = (
            Path(env["PI_CODING_AGENT_DIR"]).expanduser() if env.get("PI_CODING_AGENT_DIR") else home / ".pi" / "agent"
        )
        return sorted((agent_dir / "sessions").glob("*/*.jsonl"))

    def peek(self, path: Path) -> list[SessionPeek]:
        """The header line: id, format version and cwd; a `role:"system"` entry near the start marks current pi (0.87+)."""
        text = head_text(path)
        records = head_records(text)
        header = records[0] if records and records[0].get("type") == "session" else {}
        version = header.get("version")
        shown = f"v{version}" if isinstance(version, int) else None
        if re.search(r'"role"\s*:\s*"system"', text):
            shown = f"{shown or 'v3'} (0.87+)"
        session_id = header.get("id")
        cwd = header.get("cwd")
        return [
            file_peek(
                path, session_id if isinstance(session_id, str) else None, shown, cwd if isinstance(cwd, str) else None
            )
        ]


ADAPTER = PiAdapter()
