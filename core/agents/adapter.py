"""What cutline needs from one agent: recognize its files, read them, rebuild the context it sends, write back.

Each agent is a package under `core/agents/` whose `ADAPTER` is an `AgentAdapter`;
the registry in `core/agents/__init__.py` lists them, so adding an agent is adding
a package and one line there.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from cutline.core.agents.context import build_context, context_indices, entry_message
from cutline.core.agents.entries import OtherEntry
from cutline.core.agents.jsonl import Lines, NotStreamable, StreamedLines
from cutline.core.agents.light import LightEntry
from cutline.core.agents.peek import SessionPeek
from cutline.core.agents.wire import WireContext, wire_messages
from cutline.core.agents.writeback import (
    OnPrepared,
    PendingWrite,
    Recovery,
    UndoResult,
    WriteBackPlan,
    WrittenBack,
    no_record,
)
from cutline.core.errors import WriteBackRefused
from cutline.core.models import CompactionRecord, Entry, Message, Session, SessionFormat

# receives each entry as it is read, with whether `entry_from_line` rebuilds it from its line alone
# (a pi reader that keeps no entry hands message lines over as light entries: core.agents.light; a Claude Code
# or Codex reading for an import hands its "other" records over with their model serialized: `OtherEntry`)
EntrySink = Callable[[Entry | LightEntry | OtherEntry, bool], None]
# told, once a streamed reading (`AgentAdapter.read_streamed`) is done, each entry handed on earlier that the
# end of the reading changed: its place in the order handed on, and how to change the entry rebuilt from its row
EntryAmend = Callable[[int, Callable[[Entry], None]], None]
# a streamed reading's guess, entry by entry as they are handed on, of each one's place on the final active path
# (None: off it); a wrong guess costs a row written twice, never a wrong row
PathGuess = Callable[[Entry | LightEntry | OtherEntry], int | None]


def handed_over(session: Session, sink: EntrySink | None, keep: bool) -> Session:
    """A session read whole, its entries handed to `sink` afterwards (for readers that need the whole file first).

    With `keep` False each entry is let go as soon as the sink has it: the rows an
    import makes of them (their serialized models) never sit next to every entry
    (a 50,000-record Claude Code file held both, ~200 MB more at the peak).
    """
    if not keep:
        entries = session.entries
        session.entries = []
        if sink is not None:
            entries.reverse()
            while entries:
                sink(entries.pop(), False)
        return session
    if sink is not None:
        for entry in session.entries:
            sink(entry, False)
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

    # whether `read_streamed` reads this agent's files (an import then writes each entry as its line is read)
    streams = False

    def read_streamed(self, lines: StreamedLines, file: str, stem: str, sink: EntrySink, amend: EntryAmend) -> Session:
        """The session in a file read a chunk at a time, no entry kept: each goes to `sink` as read, later changes to `amend`.

        Raises `NotStreamable` where the result would differ from `read`'s (the caller reads the file whole then).
        """
        raise NotStreamable(f"{file}: {self.label} files are read whole")

    def streamed_session_id(self, head: list[dict[str, Any]], whole: bool, file: str) -> str | None:
        """The id `read_streamed` gives the session, from the file's first records (`whole`: all of them); None when they do not tell."""
        return None

    def path_guess(self) -> PathGuess | None:
        """A fresh guesser of the entries' places on the active path for one streamed reading; None: guess from the parents."""
        return None

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

    # -- write-back and undo: the seam every agent's writer fills in ------------------------------

    def write_back_plan(self, session: Session) -> WriteBackPlan:
        """Whether this session can take a compaction from cutline, how, and why not (pure: from the session alone).

        Shown before anyone confirms; `write_back` refuses exactly when this says no.
        """
        return WriteBackPlan.refused(self.write_back_refusal() or f"{self.label} sessions are not written back yet")

    def write_back_refusal(self) -> str | None:
        """Why this agent's sessions never take a compaction from cutline, or None when some do (see `write_back_plan`)."""
        return f"{self.label} sessions are not written back yet"

    def running_agent(self, session: Session) -> str | None:
        """A running agent process that may be writing to this session (its description), or None.

        A write-back while the agent runs ends on a dead branch: callers refuse when one is found.
        """
        return None

    def preview_line(self, session: Session, record: CompactionRecord, *, entry_id: str, timestamp: str) -> str:
        """Exactly what `write_back` will add for this compaction (shown in the confirmation)."""
        return record.model_dump_json()

    def session_after_write_back(self, session: Session, written: str) -> Session | None:
        """The session as its agent reads it once `written` (what `preview_line` gives) is in it, without writing it.

        None where the agent does not say; appended files are read again with the line appended
        (`cutline.core.review.context_after_accept`), so only agents that insert need this.
        """
        return None

    def write_back(
        self,
        path: Path,
        session: Session,
        record: CompactionRecord,
        *,
        backup_dir: Path,
        entry_id: str | None = None,
        timestamp: str | None = None,
        proposal_id: str = "",
        on_prepared: OnPrepared = no_record,
    ) -> WrittenBack:
        """Write an accepted compaction into the agent's session.

        Every implementation keeps the same guarantees: refuse unless the session is
        byte for byte what `session` was read from; back it up first (private, the
        source's mode); call `on_prepared` with the pending record before the first byte
        is written; then check and write with nothing in between (one append, one rename
        or one transaction); a failure leaves the session as it was.
        """
        raise WriteBackRefused(f"{path}: {self.write_back_plan(session).reason}")

    def recover(self, pending: PendingWrite) -> Recovery:
        """What became of an interrupted write-back (repairing a half-written one), from the session alone."""
        return Recovery(state="unknown", message=f"{pending.path}: {self.label} write-backs cannot be recovered yet")

    def undo(
        self, pending: PendingWrite, *, backup_dir: Path, from_backup: bool = False, branch: bool = False
    ) -> UndoResult:
        """Take back a finished write-back: the exact former session when nothing followed it.

        When the agent wrote since, raise UndoNeedsChoice naming what is possible
        (`branch`: continue from before the compaction where the format has branches;
        `from_backup`: the backup, keeping a copy of the current state).
        """
        raise WriteBackRefused(f"{pending.path}: undoing a write-back is not supported for {self.label} sessions yet")

    def drift(self, session: Session, written: PendingWrite) -> str | None:
        """A warning when the agent wrote past a compaction cutline wrote, on another branch (it will not resume from it).

        `written` is the store's record of the write-back: the records are found by the ids
        written (a Claude Code boundary and summary have uuids of their own, not the proposal's id).
        """
        ids = written.written_ids or [written.entry_id]
        if not any(e.id in ids for e in session.entries):
            return None
        on_path = {e.id for e in session.active_path()}
        if all(i in on_path for i in ids):
            return None
        return off_branch_warning(ids)


def off_branch_warning(ids: list[str]) -> str:
    """`AgentAdapter.drift`'s warning: the written records `ids` are in the session but not all on its active path."""
    return (
        f"the agent kept writing on its old branch after compaction {ids[0]}: it will not resume from it; "
        "make a new proposal, or undo this one"
    )
