"""What cutline needs from one agent: recognize its files, read them, rebuild the context it sends, write back.

Each agent is a package under `core/agents/` whose `ADAPTER` is an `AgentAdapter`;
the registry in `core/agents/__init__.py` lists them, so adding an agent is adding
a package and one line there.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from cutline.core.agents.context import build_context, context_indices, entry_message
from cutline.core.agents.jsonl import Lines
from cutline.core.agents.peek import SessionPeek
from cutline.core.agents.wire import WireContext, wire_messages
from cutline.core.errors import WriteBackRefused
from cutline.core.models import CompactionRecord, Entry, Message, Session, SessionFormat, Usage

# receives each entry as it is read, with whether `entry_from_line` rebuilds it from its line alone
EntrySink = Callable[[Entry, bool], None]


class UsageRecord(NamedTuple):
    """Usage the provider reported for one model call, at the path entry that carries it."""

    position: int  # in the path
    usage: Usage


def handed_over(session: Session, sink: EntrySink | None, keep: bool) -> Session:
    """A session read whole, its entries handed to `sink` afterwards (for readers that need the whole file first)."""
    if sink is not None:
        for entry in session.entries:
            sink(entry, False)
    if not keep:
        session.entries = []
    return session


class AgentAdapter(ABC):
    """One agent's session files: detect, read, the context it sends, its usage records, write-back and undo."""

    format: SessionFormat  # what `Session.format` says for sessions this adapter reads
    label: str  # the agent's name as people write it

    @abstractmethod
    def detect(self, record: dict[str, Any]) -> bool:
        """Whether one parsed record is in this agent's format (the sniffer asks each adapter in turn)."""

    @abstractmethod
    def read(self, lines: Lines, file: str, stem: str, sink: EntrySink | None, keep: bool) -> Session:
        """The session in `lines` (problems collected, never raised); each entry goes to `sink` as it is read."""

    def context_indices(self, path: list[Entry]) -> list[int]:
        """Path indices of the entries whose messages the agent sends next, in order."""
        return context_indices(path)

    def context(self, path: list[Entry]) -> list[Message]:
        """The messages the agent sends next for this path."""
        return build_context(path)

    def entry_message(self, entry: Entry) -> Message | None:
        """The message one entry contributes to the context (a compaction gives its summary)."""
        return entry_message(entry)

    def wire_context(self, session: Session) -> WireContext:
        """The neutral message list the agent's next request carries (what `cutline context` prints)."""
        return WireContext(agent=self.format, messages=wire_messages(self.context(session.active_path())))

    def session_files(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """The files in which this agent keeps its sessions on this machine (`env` and `home` as the agent reads them)."""
        return []

    def peek(self, path: Path) -> list[SessionPeek]:
        """A cheap look at the sessions one of those files holds (its head only; see core/agents/peek.py)."""
        return []

    def usage_records(self, path: list[Entry]) -> list[UsageRecord]:
        """The recorded usage on a path, one record per model call."""
        return [
            UsageRecord(i, entry.message.usage)
            for i, entry in enumerate(path)
            if entry.message is not None and entry.message.role == "assistant" and entry.message.usage is not None
        ]

    def write_back_refusal(self) -> str | None:
        """Why this agent's sessions take no compaction from cutline, or None when they do."""
        return f"{self.label} sessions are not written back yet"

    def write_back(
        self,
        path: Path,
        session: Session,
        record: CompactionRecord,
        *,
        backup_dir: Path,
        entry_id: str | None = None,
        timestamp: str | None = None,
    ) -> Entry:
        """Write an accepted compaction into the agent's session; returns the new entry."""
        raise WriteBackRefused(f"{path}: {self.write_back_refusal()}")

    def undo(self, path: Path, session: Session, entry_id: str, *, backup_dir: Path) -> None:
        """Take back a compaction cutline wrote (restore the session as the agent had it)."""
        raise WriteBackRefused(f"{path}: undoing a write-back is not supported for {self.label} sessions yet")
