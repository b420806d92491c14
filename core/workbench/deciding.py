"""Save edits, preview and make the decision, undo it: what the desk's keys and the CLI's accept/undo commands call.

Each function is one call for a front end: it reads the store, decides, writes, and
answers with a typed value the caller shows.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cutline.core.engine.proposal import Proposal
from cutline.core.models import Session

if TYPE_CHECKING:
    from cutline.core.agents.writeback import UndoResult, WriteBackPlan
    from cutline.core.review import Decision, Origin, SummaryVersion
    from cutline.core.session_writes import UndoPlan
    from cutline.core.store import Store


@dataclass(frozen=True)
class Latest:
    """A session's newest proposal (any status), its status and its summary versions, oldest first."""

    proposal: Proposal | None
    status: str
    versions: list[SummaryVersion]


@dataclass(frozen=True)
class AcceptPreview:
    """What accepting a proposal would write: the line, its timestamp, the summary accepted and whether it can be written back."""

    proposal_id: str
    line: str
    timestamp: str
    write_back: WriteBackPlan
    summary: str


def latest_proposal(store: Store, session_id: str) -> Latest:
    """The newest proposal of the session (any status), its status and its versions."""
    from cutline.core import review

    infos = review.list_proposals(store, session_id)
    if not infos:
        return Latest(None, "open", [])
    proposal = review.load_proposal(store, infos[0].id)
    return Latest(proposal, infos[0].status, review.versions(store, proposal.id))


def save_edit(store: Store, proposal_id: str, text: str, origin: Origin = "edited") -> SummaryVersion:
    """A new summary version of an open proposal (an edit, or a revert to an earlier text)."""
    from cutline.core import review

    return review.add_version(store, proposal_id, text, origin=origin)


def entry_timestamp(moment: dt.datetime) -> str:
    """A compaction entry's timestamp as the agents write it (milliseconds, Z)."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def accept_preview(store: Store, proposal_id: str, moment: dt.datetime) -> AcceptPreview:
    """The line accepting `proposal_id`'s latest summary would write at `moment`, and whether it can be written back.

    Raises InvalidProposal when the current summary cannot be accepted.
    """
    from cutline.core import review
    from cutline.core.session_writes import session_write_back_plan

    proposal = review.load_proposal(store, proposal_id)
    text = review.latest_version(store, proposal_id).text
    validation = review.validate_version(proposal, text)
    if not validation.ok:
        raise review.InvalidProposal(f"the current summary cannot be accepted: {validation.summary()}")
    timestamp = entry_timestamp(moment)
    line = review.preview_entry(store, proposal_id, timestamp=timestamp)
    plan = session_write_back_plan(store, proposal.session_id)  # a look for a running agent too
    return AcceptPreview(proposal_id, line, timestamp, plan, text)


def write_back_of(store: Store, proposal_id: str) -> WriteBackPlan:
    """Whether `proposal_id`'s session can be written back, how, and why not (nothing is written)."""
    from cutline.core import review
    from cutline.core.session_writes import session_write_back_plan

    return session_write_back_plan(store, review.load_proposal(store, proposal_id).session_id)


def write_back_of_session(session: Session) -> WriteBackPlan:
    """`write_back_of` for a session in hand."""
    from cutline.core.session_writes import write_back_plan

    return write_back_plan(session)


def accept(
    store: Store, proposal_id: str, *, write_back: bool, note: str | None = None, timestamp: str | None = None
) -> Decision:
    """Accept the proposal's latest summary version (refused if invalid or already decided), written back if asked."""
    from cutline.core import review

    return review.accept(store, proposal_id, write_back=write_back, note=note, timestamp=timestamp)


def write_back_later(store: Store, proposal_id: str, *, timestamp: str | None = None) -> Decision:
    """Write back a proposal accepted earlier into the store only (accept's checks and guarantees); it stays accepted."""
    from cutline.core import review

    return review.write_back_later(store, proposal_id, timestamp=timestamp)


def written_back_to(store: Store, proposal_id: str) -> str | None:
    """Where `proposal_id`'s compaction is written now; None when not written back (or undone)."""
    from cutline.core.session_writes import written_back_to as where

    return where(store, proposal_id)


def reject(store: Store, proposal_id: str, note: str | None = None) -> Decision:
    """Reject the proposal (it and its versions stay in the store, marked rejected)."""
    from cutline.core import review

    return review.reject(store, proposal_id, note=note)


def undo(store: Store, proposal_id: str, *, from_backup: bool = False, branch: bool = False) -> UndoResult:
    """Take back a proposal's write-back: the session file exactly as before it (the proposal is open again)."""
    from cutline.core.session_writes import undo as undo_write

    return undo_write(store, proposal_id, from_backup=from_backup, branch=branch)


def undo_plan(store: Store, proposal_id: str) -> UndoPlan:
    """What undoing `proposal_id`'s write-back would restore and from where (refused as `undo` refuses; nothing written)."""
    from cutline.core.session_writes import undo_plan as plan_undo

    return plan_undo(store, proposal_id)
