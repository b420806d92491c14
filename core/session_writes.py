"""Accepted compactions written into the agent's session, recovered after a crash, and taken back (undo).

The order is the safety: the plan is checked (and shown) before anything runs; the
proposal must have been made from the very bytes in the file; no agent may be running
on it; the store records the write-back as pending before the first byte; the agent's
writer checks and writes with nothing in between; then the decision and the finished
record are committed together. A start after a crash finishes what the file shows.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import tempfile
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from cutline.core.agents.adapter import AgentAdapter, off_branch_warning
from cutline.core.agents.entries import StableIds, now_iso
from cutline.core.agents.registry import adapter_for
from cutline.core.agents.wire import WireContext
from cutline.core.agents.writeback import (
    AgentRunning,
    OnPrepared,
    PendingWrite,
    UndoResult,
    WriteBackPlan,
    WrittenBack,
)
from cutline.core.engine.proposal import Proposal
from cutline.core.errors import CutlineError, NotFoundError, WriteBackRefused
from cutline.core.models import CompactionRecord, Entry, Session
from cutline.core.paths import backups_dir
from cutline.core.store import Store
from cutline.core.store.db import utc_now
from cutline.core.store.proposals import Decision, ProposalDecided

ACCEPT_WITHOUT = "accept without write-back (`cutline accept PROPOSAL` without --write-back) to record it only"


def write_back_plan(
    session: Session, *, look_for_agent: bool = True, plan: WriteBackPlan | None = None
) -> WriteBackPlan:
    """Can this session be written back, how, and why not — what the desk and the CLI show before confirming.

    From the session alone (or `plan`, made already from what the store holds of it), plus
    (with `look_for_agent`) whether its agent is running now.
    """
    if plan is None:
        plan = adapter_for(session.format).write_back_plan(session)
    if plan.possible and look_for_agent:
        running = adapter_for(session.format).running_agent(session)
        if running is not None:
            return WriteBackPlan.refused(
                f"{adapter_for(session.format).label} is running on this session ({running}); quit it first, "
                "then accept and resume it"
            )
    return plan


class WriteBackOutcome(BaseModel):
    """The decision recorded and what a person should know about the write-back."""

    model_config = ConfigDict(defer_build=True)

    decision: Decision
    notes: list[str] = []


def stored_write_back_plan(store: Store, header: Session, *, look_for_agent: bool = True) -> WriteBackPlan | None:
    """`write_back_plan` of a stored session from its header and the store's facts of its path, without its entries.

    pi: the entry count, the trailing newline and whether current pi wrote the path; Claude
    Code and Qwen Code: the path's last record; Codex: the rollout's last line. None where more is needed
    (a pi file before version 3, a Codex last line whose `ordinal` is a boolean, another
    agent's session): then the caller reads the session whole.
    """
    plan: WriteBackPlan | None
    if header.format == "pi":
        from cutline.core.agents.pi.append import stored_write_back_plan as pi_plan

        row = store.sessions.row(header.id)
        if row is None:
            return None
        plan = pi_plan(header, bool(row["entry_count"]), store.sessions.path_is_current_pi(header.id))
    elif header.format == "claude_code":
        from cutline.core.agents.claude_code.writeback import plan_from_leaf

        plan = plan_from_leaf(store.sessions.path_leaf(header.id))
    elif header.format == "qwen_code":
        from cutline.core.agents.qwen_code.writeback import plan_from_leaf as qwen_plan

        plan = qwen_plan(store.sessions.path_leaf(header.id))
    elif header.format == "codex":
        from cutline.core.agents.codex.writeback import plan_from_last

        plan = plan_from_last(header.header_line, store.sessions.last_entry(header.id))
    else:
        return None
    return None if plan is None else write_back_plan(header, plan=plan, look_for_agent=look_for_agent)


def session_write_back_plan(store: Store, session_id: str, *, look_for_agent: bool = True) -> WriteBackPlan:
    """`write_back_plan` of a stored session: from its header and stored facts where they tell, else read whole.

    Why: the accept preview, `write-back-plan` and `context --proposal` loaded a 50,000-record
    Claude Code session whole (~650 MB) only to ask whether it can be written back.
    Raises NotFoundError when the store holds no such session.
    """
    return plan_and_session(store, session_id, look_for_agent=look_for_agent)[0]


def plan_and_session(
    store: Store, session_id: str, *, look_for_agent: bool = True
) -> tuple[WriteBackPlan, Session | None]:
    """`session_write_back_plan`, with the whole session when it had to be read for it (None: told from stored facts)."""
    stored = stored_write_back_plan(store, store.sessions.header(session_id), look_for_agent=look_for_agent)
    if stored is not None:
        return stored, None
    session = store.load_session(session_id)
    return write_back_plan(session, look_for_agent=look_for_agent), session


def stored_preview_line(
    store: Store, header: Session, record: CompactionRecord, *, entry_id: str, timestamp: str
) -> str | None:
    """`preview_line` of a stored session its plan says can be written back, without its other entries.

    From the header and the stored path from the first kept entry to the leaf (pi: the leaf
    alone; Codex: with the highest `ordinal` of the stored lines), which is all the agents'
    writers look at for these. None where more is needed, and the caller reads the session
    whole: pi before version 3 or written by current pi (its checkpoint is made from the
    whole path), a first kept entry not on the stored path, Claude Code's parent chain
    leaving the kept part of the path, anything the writer refuses (the whole session says why).
    Why: the accept preview of a 50,000-record Claude Code session loaded it whole (~650 MB).
    """
    if not _written_from_stretch(store, header):
        return None
    kept = _kept_stretch(store, header, record.firstKeptEntryId if header.format != "pi" else None)
    last = _highest_ordinal(store, header) if header.format == "codex" else None
    if kept is None or (header.format == "codex" and last is None):
        return None
    return _line_from(kept, record, entry_id=entry_id, timestamp=timestamp, last=last)


def _written_from_stretch(store: Store, header: Session) -> bool:
    """Whether the agent's writer needs only a stretch of the stored path (and, for Codex, its highest `ordinal`).

    Not for pi before version 3 or written by current pi (its checkpoint is made from the whole path), nor other agents.
    """
    kind = header.format
    if kind not in ("pi", "claude_code", "codex", "qwen_code"):
        return False
    return kind != "pi" or (
        (header.version if header.version is not None else 1) >= 3 and not store.sessions.path_is_current_pi(header.id)
    )


def _highest_ordinal(store: Store, header: Session) -> int | None:
    """`last_ordinal` of a stored rollout from its raw lines, one at a time (None: no line carries a number)."""
    from cutline.core.agents.codex.compaction import highest_ordinal

    return highest_ordinal(header.header_line, store.sessions.raw_lines(header.id))


def _line_from(
    kept: Session, record: CompactionRecord, *, entry_id: str, timestamp: str, last: int | None
) -> str | None:
    """The writer's line from the header holding a stretch of the path (Codex: and `last`); None where it refuses."""
    try:
        if kept.format == "codex":
            from cutline.core.agents.codex.compaction import compaction_payload

            return compaction_payload(kept, record, timestamp=timestamp, last=last).decode("utf-8").rstrip("\r\n")
        return adapter_for(kept.format).preview_line(kept, record, entry_id=entry_id, timestamp=timestamp)
    except (WriteBackRefused, ValueError):
        return None


def _kept_stretch(store: Store, header: Session, first_kept: str | None) -> Session | None:
    """The header holding the stored active path from `first_kept` (None: the leaf alone) to the leaf, chained.

    None when `first_kept` is not on the stored path, or the path is empty.
    """
    start = _kept_start(store, header, first_kept)
    if start is None:
        return None
    return _chained(header, store.sessions.path_entries(header.id, start, store.sessions.path_length(header.id)))


def _kept_start(store: Store, header: Session, first_kept: str | None) -> int | None:
    """The stored active path's position of `first_kept` (None: the leaf's); None when it is off the path or the path is empty."""
    if first_kept is None:
        start = store.sessions.path_length(header.id) - 1
        return start if start >= 0 else None
    return store.sessions.path_index_of(header.id, first_kept)


def _chained(header: Session, entries: list[Entry]) -> Session:
    """The header holding `entries` (a stretch of its active path) as its whole path, each the parent of the next."""
    chained: list[Entry] = []
    for entry in entries:
        chained.append(entry.model_copy(update={"parentId": chained[-1].id if chained else None}))
    return header.model_copy(update={"entries": chained, "leaf_id": chained[-1].id if chained else None})


# -- the context told from the file's last lines (`cutline context`, the desk's Context tab) -------------------------

# the formats whose context is read from a suffix of their file (their readers put every context rule in the entries
# from the latest compaction's first kept entry on; OpenClaw, opencode and the others are read whole)
_CONTEXT_FROM_SUFFIX = frozenset({"pi", "claude_code", "codex", "qwen_code"})


def stored_context_after(
    store: Store, header: Session, plan: WriteBackPlan, first_kept: str | None, line: str
) -> WireContext | None:
    """`context --proposal`'s context (what the agent sends once `line` is appended) from the stored rows, or None.

    The agent's reader reads the file's lines from the first one of the stored path from the
    proposal's first kept entry (none: the leaf) on, then `line`: the latest compaction
    and all it keeps, so every context rule sees what it sees in the whole file with the line
    appended. None where that cannot be the same answer, and the caller reads the file whole:
    not an append, pi before version 3 or written by current pi (its checkpoint and system
    entries come from the whole path), a first kept entry off the stored path, a file whose
    bytes are not the ones the store holds (size and hash, as an import tells an unchanged file)
    or that ends without a newline.
    Why: a 50,000-record Claude Code file read whole with the line appended peaked at ~780 MB.
    """
    if plan.how != "append" or header.format not in _CONTEXT_FROM_SUFFIX or not _written_from_stretch(store, header):
        return None
    if not header.trailing_newline or not _file_is_stored(header):
        return None  # without a final newline the appended line joins the last one: only the whole file says how
    start = _kept_start(store, header, first_kept)
    return None if start is None else _suffix_context(store, header, start, line)


def stored_wire_context(store: Store, session_id: str) -> WireContext | None:
    """`cutline context SESSION` from the stored rows: the agent's reader on the file's lines from the latest compaction's window, or None.

    The window starts at the latest compaction on the stored path or its first kept entry,
    whichever is earlier (`window_start`, from the compaction's stored facts). None, and the
    caller reads the session whole, where the context needs more: no compaction (the whole
    path is the context), a pi `context_edit` on the path, a pi file of another version than 3, a Codex
    compaction without `replacement_history` (the earlier user prompts are sent again),
    other agents. Why: a 50,000-record session was rebuilt whole (~650 MB) for its last stretch.
    """
    header = store.sessions.header(session_id)
    if header.format not in _CONTEXT_FROM_SUFFIX:
        return None
    if header.format == "pi" and (header.version != 3 or store.sessions.path_has_type(session_id, "context_edit")):
        return None
    compaction = store.sessions.latest_path_compaction(session_id)
    if compaction is None:
        return None
    at = store.sessions.path_index_of(session_id, compaction)
    facts = store.sessions.entry_facts(session_id, compaction)
    if at is None or facts is None:
        return None
    if header.format == "codex" and not _replaces_history(store, session_id, at):
        return None
    start = at
    kept = json.loads(facts).get("k")
    if isinstance(kept, str):
        found = store.sessions.path_index_of(session_id, kept)
        if found is not None and found < at:
            start = found
    return None if start == 0 else _suffix_context(store, header, start, None)


def _replaces_history(store: Store, session_id: str, at: int) -> bool:
    """Whether the Codex compaction at path position `at` carries its `replacement_history` (the context starts with it)."""
    found = store.sessions.path_entries(session_id, at, at + 1)
    record = found[0].compaction if found else None
    details = record.details if record is not None else None
    return isinstance(details, dict) and isinstance(details.get("replacement_history"), list)


def unchanged_session(store: Store, path: Path) -> str | None:
    """The stored session of a session file the store holds as it is (its size and hash, as an import tells), else None.

    The file's most recently updated session, as `Store.import_file` finds an unchanged file's; None for an
    OpenClaw or opencode store, whose sessions are not told by a file's bytes.
    """
    from cutline.core.agents.store_refs import is_store_ref

    if is_store_ref(path):
        return None
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    rows = store.sessions.rows_for_path(str(resolved))
    if not rows:
        return None
    header = store.sessions.header(str(rows[0]["id"]))
    return header.id if _file_is_stored(header) else None


def _file_is_stored(header: Session) -> bool:
    """Whether the session's file holds the bytes the store read (its size, then its hash)."""
    from cutline.core.store.importer import file_sha256

    if not header.source_path or header.source_size is None or header.source_sha256 is None:
        return False
    source = Path(header.source_path)
    try:
        return (
            source.is_file()
            and source.stat().st_size == header.source_size
            and file_sha256(source) == header.source_sha256
        )
    except OSError:
        return False


def _suffix_context(store: Store, header: Session, start: int, appended: str | None) -> WireContext | None:
    """The wire context of the file's stored lines from the first one of the path's entries from `start` on (and `appended`).

    Written to a file of the source's name in a temporary folder (the header line first,
    where the agent has one) and read by the agent's own reader, as `context` reads a file.
    """
    from cutline.core.agents import read_session, session_wire_context

    first = store.sessions.first_seq_from(header.id, start)
    if first is None:
        return None
    name = Path(header.source_path or f"{header.id}.jsonl").name
    with tempfile.TemporaryDirectory(prefix="cutline-context-") as folder:
        written = Path(folder) / name
        with written.open("w", encoding="utf-8", newline="") as out:
            if header.header_line:
                out.write(header.header_line + "\n")
            last: int | None = None
            for number, raw in store.sessions.lines_from(header.id, first):
                if number is not None and number == last:
                    continue  # one line read as several entries
                last = number
                out.write(raw + "\n")
            if appended is not None:
                out.write(appended + "\n")
        return session_wire_context(read_session(written))


def write_back(
    store: Store, decision: Decision, *, entry_id: str, record_text: str, timestamp: str | None = None
) -> WriteBackOutcome:
    """Write an accepted proposal's compaction into its session and record the decision (see the module doc).

    `decision` is filled in (written_to, entry_id) and recorded; `record_text` is the
    summary version being accepted.
    """
    proposal = Proposal.model_validate_json(store.proposals.row(decision.proposal_id)["proposal_json"])
    record = proposal.compaction_record(record_text)
    header = store.sessions.header(proposal.session_id)
    # told from the store's facts where they tell (`StoredSession`), else from the session read whole, as before
    plan = stored_write_back_plan(store, header, look_for_agent=False)
    session = _WholeSession(store.load_session(proposal.session_id)) if plan is None else StoredSession(store, header)
    adapter = adapter_for(session.header.format)
    if plan is None:
        plan = adapter.write_back_plan(session.header)
    if not plan.possible:
        raise WriteBackRefused(f"write-back refused: {plan.reason}; {ACCEPT_WITHOUT}")
    if session.has_entry(entry_id):
        return _already_written(store, session, decision, entry_id)
    leaf = session.leaf()
    if leaf != proposal.parentEntryId:
        raise WriteBackRefused(
            f"the session moved on since proposal {proposal.id} was made (leaf {leaf}, was {proposal.parentEntryId}); make a new proposal"
        )
    header = session.header
    made_from = store.proposals.source_sha256(proposal.id)
    if made_from is not None and made_from != header.source_sha256:
        raise WriteBackRefused(
            f"the session file changed since proposal {proposal.id} was made (an earlier message was edited or "
            "the file was rewritten); make a new proposal"
        )
    running = adapter.running_agent(header)
    if running is not None:
        raise AgentRunning(
            f"{adapter.label} seems to be running on this session ({running}): it would keep writing on its old "
            f"branch. Quit it, accept again, then resume it; or {ACCEPT_WITHOUT}"
        )
    if not header.source_path:
        raise WriteBackRefused("the session has no source file to write back to")
    version = decision.version

    def record_pending(pending: PendingWrite) -> None:
        store.write_backs.record_pending(pending.model_copy(update={"version": version}))

    try:
        written = session.write(
            Path(header.source_path),
            record,
            backup_dir=backups_dir(),
            entry_id=entry_id,
            timestamp=timestamp,
            proposal_id=proposal.id,
            on_prepared=record_pending,
        )
    except WriteBackRefused:
        store.write_backs.forget(proposal.id)
        raise
    del session  # the whole session, when it was read, is not held through the re-import
    decision.written_to = header.source_path
    decision.entry_id = written.entry.id
    try:
        _record_done(store, decision, written.pending.model_copy(update={"version": version}))
    except sqlite3.OperationalError as exc:
        raise CutlineError(
            f"the compaction was written to {header.source_path}, but the store could not record it ({exc}); "
            "cutline records it the next time it starts — do not compact this session again"
        ) from None
    notes = [f"backup of the file as it was: {written.pending.backup_path}"] if written.pending.backup_path else []
    notes += _reimport(store, header.source_path, decision.proposal_id)
    notes += _checked_once_more(store, header, written.pending, decision.proposal_id, notes)
    return WriteBackOutcome(decision=decision, notes=notes)


def _checked_once_more(
    store: Store, session: Session, pending: PendingWrite, proposal_id: str, said: list[str]
) -> list[str]:
    """Right before success is reported: did lines land after the compaction since the re-import read the file?

    Why: with a writer the running-agent check does not recognise, agent lines landed after
    the compaction between the re-import and the report (6 of 22 runs) and success was
    reported on what had become a dead branch. The file is looked at once more (a stat,
    then a re-import only when it grew) and the drift, if any, said.
    """
    if session.format == "openclaw" or not session.source_path:
        return []  # a store, not a file that grows: its rows were checked under the write transaction
    try:
        size = Path(session.source_path).stat().st_size
    except OSError:
        return []
    if size <= pending.size_after:
        return []
    later = [note for note in _reimport(store, session.source_path, proposal_id) if note not in said]
    return [f"checked once more before reporting: {note}" for note in later]


def _record_done(store: Store, decision: Decision, record: PendingWrite) -> None:
    """The decision and the finished write-back, in one transaction (a decision recorded meanwhile by recovery is ours)."""
    try:
        with store.transaction():
            _record_accepted(store, decision)
            store.write_backs.set_state(decision.proposal_id, "done", record)
    except ProposalDecided:
        earlier = [d for d in store.proposals.decisions(decision.proposal_id) if d.decision == "accepted"]
        if not earlier or earlier[-1].entry_id != decision.entry_id:
            raise
        store.write_backs.set_state(decision.proposal_id, "done", record)


def _record_accepted(store: Store, decision: Decision) -> None:
    """Record an accepted write-back: of an open proposal, or of one accepted earlier into the store only (written later)."""
    if store.proposals.status(decision.proposal_id) != "accepted":
        store.proposals.record_decision(decision)
        return
    earlier = [d for d in store.proposals.decisions(decision.proposal_id) if d.decision == "accepted"]
    if not earlier or earlier[-1].written_to is not None:  # recorded already (a recovery), not accepted store-only
        raise ProposalDecided(f"proposal {decision.proposal_id} was decided by someone else meanwhile")
    store.proposals.record_written_later(decision)


def written_back_to(store: Store, proposal_id: str) -> str | None:
    """Where the proposal's compaction is written now (None: not written back, or the write-back was undone)."""
    found = store.write_backs.get(proposal_id)
    return found[1].path if found is not None and found[0] in ("done", "pending") else None


def _reimport(store: Store, path: str, proposal_id: str) -> list[str]:
    """Re-import the written file; a note when the agent is not on the compaction's branch."""
    try:
        store.import_file(path)
    except CutlineError as exc:
        return [f"the store could not re-read {path} ({exc}); import it again"]
    warning = drift_warning(store, proposal_id)
    return [warning] if warning else []


def drift_warning(store: Store, proposal_id: str) -> str | None:
    """A warning when the agent wrote past the compaction cutline wrote for this proposal, on another branch.

    The compaction is found by what the store recorded as written (its records' ids, its
    line), not by the proposal's entry id: Claude Code's and Codex's written ids differ from it.
    """
    found = store.write_backs.get(proposal_id)
    if found is None or found[0] != "done":
        return None
    record = found[1]
    try:
        session_id = store.resolve_session(record.path)
        header = store.sessions.header(session_id)
    except CutlineError:
        return None
    adapter = adapter_for(header.format)
    if header.format == "codex":
        from cutline.core.agents.codex.writeback import drift_after

        ours = store.sessions.first_compaction_at(session_id, record.first_line, record.entry_id)
        return None if ours is None else drift_after(ours, store.sessions.lines_after(session_id, ours.line))
    if type(adapter).drift is AgentAdapter.drift:
        # the written records by id, and whether all are on the stored path: the rows alone say it
        ids = record.written_ids or [record.entry_id]
        if not any(store.sessions.has_entry(session_id, i) for i in ids):
            return None
        if all(store.sessions.path_index_of(session_id, i) is not None for i in ids):
            return None
        return off_branch_warning(ids)
    session = store.load_session(session_id)
    return adapter.drift(session, record)


def _already_written(
    store: Store, session: _WholeSession | StoredSession, decision: Decision, entry_id: str
) -> WriteBackOutcome:
    """The compaction is in the file already (the store was not told): record it instead of writing it twice."""
    if not session.on_path(entry_id):
        raise WriteBackRefused(
            f"compaction {entry_id} is in {session.header.source_path} already, but the agent continued on another branch; "
            "make a new proposal"
        )
    decision.written_to = session.header.source_path
    decision.entry_id = entry_id
    _record_accepted(store, decision)
    return WriteBackOutcome(
        decision=decision,
        notes=[f"compaction {entry_id} was already in the file (an earlier write-back the store had not recorded)"],
    )


class _WholeSession:
    """What `write_back` asks of a session, answered from the session read whole (agents the store cannot tell for)."""

    def __init__(self, session: Session) -> None:
        self.header = session

    def has_entry(self, entry_id: str) -> bool:
        return self.header.by_id().get(entry_id) is not None

    def on_path(self, entry_id: str) -> bool:
        return any(e.id == entry_id for e in self.header.active_path())

    def leaf(self) -> str | None:
        return self.header.active_path()[-1].id if self.header.entries else None

    def write(
        self,
        path: Path,
        record: CompactionRecord,
        *,
        backup_dir: Path,
        entry_id: str,
        timestamp: str | None,
        proposal_id: str,
        on_prepared: OnPrepared,
    ) -> WrittenBack:
        return adapter_for(self.header.format).write_back(
            path,
            self.header,
            record,
            backup_dir=backup_dir,
            entry_id=entry_id,
            timestamp=timestamp,
            proposal_id=proposal_id,
            on_prepared=on_prepared,
        )


class StoredSession(_WholeSession):
    """`_WholeSession`'s answers from the store's rows: the header, single rows by id, the path from the first kept entry.

    For a session whose write-back plan the store tells (`stored_write_back_plan`). The
    agent's writer gets the header holding the stored path from the first kept entry to the
    leaf (Codex: with the rollout's highest `ordinal`, its next line and that line's id), all
    it looks at; where that stretch cannot say (not on the stored path, a parent chain
    leaving it, current pi's checkpoint), the session is read whole and written as before.
    Why: `accept --write-back` of a 50,000-record Claude Code session loaded it whole
    (~620 MB) for its leaf and its kept records.
    """

    def __init__(self, store: Store, header: Session) -> None:
        super().__init__(header)
        self.store = store

    def has_entry(self, entry_id: str) -> bool:
        return self.store.sessions.has_entry(self.header.id, entry_id)

    def on_path(self, entry_id: str) -> bool:
        return self.store.sessions.path_index_of(self.header.id, entry_id) is not None

    def leaf(self) -> str | None:
        found = self.store.sessions.path_leaf(self.header.id)
        if found is None and self.store.sessions.last_entry(self.header.id) is not None:
            return _WholeSession(self.store.load_session(self.header.id)).leaf()  # entries but no stored path
        return None if found is None else found.id

    def write(
        self,
        path: Path,
        record: CompactionRecord,
        *,
        backup_dir: Path,
        entry_id: str,
        timestamp: str | None,
        proposal_id: str,
        on_prepared: OnPrepared,
    ) -> WrittenBack:
        stamp = timestamp or now_iso()
        header = self.header
        kept = last = None
        if _written_from_stretch(self.store, header):
            kept = _kept_stretch(self.store, header, record.firstKeptEntryId)
            last = _highest_ordinal(self.store, header) if header.format == "codex" and kept is not None else None
        if (
            kept is None
            or (header.format == "codex" and last is None)
            or _line_from(kept, record, entry_id=entry_id, timestamp=stamp, last=last) is None
        ):
            kept = self.store.load_session(header.id)  # the stretch cannot say what the whole session says: read whole
        elif last is not None:  # Codex
            from cutline.core.agents.codex.writeback import append_compacted

            line = (self.store.sessions.highest_line(header.id) or 1) + 1
            return append_compacted(
                path,
                kept,
                record,
                last=last,
                line=line,
                new_id=self._codex_entry_id(line),
                backup_dir=backup_dir,
                timestamp=stamp,
                proposal_id=proposal_id,
                on_prepared=on_prepared,
            )
        return _WholeSession(kept).write(  # the stretch from the first kept entry, or the session read whole
            path,
            record,
            backup_dir=backup_dir,
            entry_id=entry_id,
            timestamp=stamp,
            proposal_id=proposal_id,
            on_prepared=on_prepared,
        )

    def _codex_entry_id(self, line: int) -> str:
        """`new_entry_id` of the whole rollout: the first of its candidate ids no stored entry has."""
        header_id = self.header.header.get("id")
        seed = header_id if isinstance(header_id, str) else self.header.id
        taken: set[str] = set()
        while True:
            candidate = StableIds(seed, set(taken)).make(line)
            if not self.store.sessions.has_entry(self.header.id, candidate):
                return candidate
            taken.add(candidate)


# -- recovery -------------------------------------------------------------------------


def recover_write_backs(store: Store) -> list[str]:
    """Finish write-backs a crash interrupted: record the written ones, repair half-written lines, drop the rest.

    Cheap when there is nothing to do (one indexed query); returns one line per record handled.
    """
    if not store.write_backs.any_pending():
        return []
    messages: list[str] = []
    for pending in store.write_backs.pending():
        try:
            session_format = store.sessions.header(pending.session_id).format
        except NotFoundError:
            store.write_backs.forget(pending.proposal_id)
            continue
        outcome = adapter_for(session_format).recover(pending)
        if outcome.state == "written":
            decision = Decision(
                proposal_id=pending.proposal_id,
                session_id=pending.session_id,
                decision="accepted",
                decided_at=utc_now(),
                written_to=pending.path,
                entry_id=pending.entry_id,
                note="recorded after an interrupted write-back",
                version=pending.version,
            )
            try:
                _record_done(store, decision, pending)
            except ProposalDecided:
                store.write_backs.set_state(pending.proposal_id, "done", pending)
            _reimport(store, pending.path, pending.proposal_id)
            messages.append(f"proposal {pending.proposal_id}: {outcome.message}; recorded as accepted")
        elif outcome.state in ("not-written", "repaired"):
            store.write_backs.forget(pending.proposal_id)
            if outcome.state == "repaired":
                _reimport(store, pending.path, pending.proposal_id)
            messages.append(f"proposal {pending.proposal_id}: {outcome.message}; the proposal is still open")
        else:
            messages.append(f"proposal {pending.proposal_id}: {outcome.message}; left for a later look")
    return messages


# -- undo -----------------------------------------------------------------------------


def undo(store: Store, ref: str, *, from_backup: bool = False, branch: bool = False) -> UndoResult:
    """Take back a proposal's write-back: the session exactly as before it, when nothing was added after it.

    When the agent wrote since, refuses (UndoNeedsChoice) naming what is possible;
    `branch` (continue from before the compaction) and `from_backup` are those choices.
    The proposal is open again afterwards.
    """
    proposal_id, record = _undoable(store, ref)
    session = store.sessions.header(record.session_id)  # the running-agent look reads the header's facts alone
    adapter = adapter_for(session.format)
    running = adapter.running_agent(session)
    if running is not None:
        raise AgentRunning(f"{adapter.label} seems to be running on this session ({running}); quit it before undoing")
    result = adapter.undo(record, backup_dir=backups_dir(), from_backup=from_backup, branch=branch)
    with store.transaction() as conn:
        store.write_backs.set_state(proposal_id, "undone")
        conn.execute("UPDATE proposals SET status = 'open' WHERE id = ? AND status = 'accepted'", (proposal_id,))
    with contextlib.suppress(CutlineError):
        store.import_file(record.path)
    return result


def _undoable(store: Store, ref: str) -> tuple[str, PendingWrite]:
    """The proposal's id and its finished write-back's record; refused when there is nothing (left) to undo."""
    proposal_id = store.proposals.resolve(ref)
    recover_write_backs(store)
    found = store.write_backs.get(proposal_id)
    if found is None:
        raise NotFoundError(f"proposal {proposal_id} was not written back by cutline; there is nothing to undo")
    state, record = found
    if state == "undone":
        raise WriteBackRefused(f"proposal {proposal_id}'s write-back was undone already")
    if state == "pending":
        raise WriteBackRefused(f"proposal {proposal_id}'s write-back is unfinished; run cutline again to recover it")
    return proposal_id, record


class UndoPlan(BaseModel):
    """What undoing a proposal's write-back would restore, and from where: shown before anyone confirms."""

    model_config = ConfigDict(defer_build=True)

    proposal_id: str
    path: str
    # one line: what will be restored, from where
    restores: str
    backup_path: str | None = None
    # whether the agent's sessions can continue from before the compaction (pi's tree): `--branch`
    branches: bool = False


def undo_plan(store: Store, ref: str) -> UndoPlan:
    """What `undo` would do with PROPOSAL's write-back, from the store's record alone (the session is not touched;
    a write-back left unfinished is recovered first, as `undo` does).

    Refused as `undo` refuses: nothing written back by cutline, undone already, unfinished.
    When the agent wrote since, `undo` itself says so and names the choices (UndoNeedsChoice).
    """
    proposal_id, record = _undoable(store, ref)
    adapter = adapter_for(store.sessions.header(record.session_id).format)
    path = record.path
    if record.how == "append":
        restores = (
            f"{path} goes back byte for byte to the {record.size_before:,} bytes it had before the write-back: "
            f"the {record.size_after - record.size_before:,} bytes cutline appended are cut off"
        )
    elif record.how == "insert":
        restores = f"{path}: the compaction event and the rows cutline added are deleted, in one transaction"
    else:
        restores = (
            f"{path} is restored from the backup made before the write-back ({record.backup_path or 'none recorded'})"
        )
    return UndoPlan(
        proposal_id=proposal_id,
        path=path,
        restores=restores,
        backup_path=record.backup_path,
        branches=bool(getattr(adapter, "branches", False)),
    )
