"""What every agent's write-back and undo exchange with the rest of cutline: the plan, the pending record, the outcome.

Why: the guarantees (pending record before the first byte, backup first, one atomic
append, checks with nothing in between, undo to the exact bytes) are the same for every
agent; these types let the store and the review code handle all of them alike while
each adapter does its format's part.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from cutline.core.errors import WriteBackRefused
from cutline.core.models import Entry

# how an accepted compaction reaches the session: appended to the file as it is, the
# file rewritten in the agent's current format first (what the agent does itself on load),
# or rows inserted into the agent's database in one transaction (OpenClaw)
WriteBackHow = Literal["append", "migrate-and-append", "insert", "none"]


class WriteBackPlan(BaseModel):
    """Whether a session can be written back, how, and why not: shown before anyone confirms."""

    model_config = ConfigDict(defer_build=True)

    possible: bool
    how: WriteBackHow
    # one line a person reads: what will happen, or why it cannot
    reason: str
    # the agent's writer this will imitate (e.g. "pi 0.87 (systemMessage checkpoint)")
    style: str = ""

    @classmethod
    def refused(cls, reason: str) -> WriteBackPlan:
        return cls(possible=False, how="none", reason=reason)


class PendingWrite(BaseModel):
    """What is about to be written, recorded in the store before the first byte reaches the file.

    With it, a later start can tell an interrupted write-back's outcome from the file alone:
    the file as it was (`size_before`/`sha_before`), the exact bytes to add (`payload_*`),
    or, for a rewrite, the exact bytes of the new file (`sha_after`).
    """

    model_config = ConfigDict(defer_build=True)

    proposal_id: str
    session_id: str
    path: str
    how: WriteBackHow
    entry_id: str
    size_before: int
    sha_before: str
    payload_size: int
    payload_sha: str
    size_after: int
    sha_after: str
    backup_path: str | None = None
    # the bytes appended (text), so an interrupted append can be told from a damaged file
    payload: str = ""
    # the summary version written (the store's business; the writer leaves it None)
    version: int | None = None
    # what was written, to find it again later (the drift warning): the records' own ids / uuids in
    # order (none for lines without ids, e.g. Codex's), and the 1-based line the first one starts on
    written_ids: list[str] = []
    first_line: int | None = None
    # what a database writer needs to take its rows back exactly (OpenClaw: the row keys and
    # the projection's watermark before the write); empty for files
    undo_state: dict[str, int | str | None] = {}


class WrittenBack(BaseModel):
    """A finished write-back: the new entry and the record of what was written (what undo and recovery need)."""

    model_config = ConfigDict(defer_build=True)

    entry: Entry
    pending: PendingWrite


RecoveryState = Literal["not-written", "written", "repaired", "unknown"]


class Recovery(BaseModel):
    """What an interrupted write-back turned out to be when cutline looked again."""

    model_config = ConfigDict(defer_build=True)

    state: RecoveryState
    message: str


class UndoResult(BaseModel):
    """What undo did: restored the exact bytes, branched back, or restored the backup."""

    model_config = ConfigDict(defer_build=True)

    how: Literal["exact", "branched", "restored-backup"]
    message: str
    size_after: int
    sha_after: str


# called with the pending record once the checks passed and before the first byte is
# written; it must have stored the record durably when it returns (raising aborts the write)
OnPrepared = Callable[[PendingWrite], None]


def no_record(_pending: PendingWrite) -> None:
    """For callers that keep no store (tests, exports): nothing is recorded."""


class AgentRunning(WriteBackRefused):
    """The agent seems to be running on this session: a write-back now would end up on a dead branch."""


UndoChoice = Literal["branch", "from_backup"]


class UndoNeedsChoice(WriteBackRefused):
    """The agent wrote after the compaction: undo cannot restore the exact bytes without a choice.

    `choices` are the ones the message offers (`--branch`, `--from-backup`), for a front end that asks.
    """

    def __init__(self, message: str, choices: tuple[UndoChoice, ...] = ("from_backup",)) -> None:
        super().__init__(message)
        self.choices = choices
