"""A held compaction made reviewable, and the person's answer to it.

When an agent holds a compaction, its session is imported and a proposal made of it: the
agent's cut (pi's `firstKeptEntryId`) is kept, and cutline's summary (the extractive one:
offline, instant) is version 1 for the person to edit, compare and accept like any other
proposal. Accepting answers the agent with the latest version, exactly as written, and the
agent's own cut; rejecting tells it to cancel. The decision is recorded on the proposal too.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from cutline.core.errors import CutlineError
from cutline.core.inbox.items import Inbox, InboxClosed, InboxItem
from cutline.core.inbox.wire import Hold
from cutline.core.store import Store
from cutline.core.store.db import utc_now
from cutline.core.store.proposals import Decision, ProposalDecided

__all__ = ["InboxClosed", "accept_item", "edit_item", "make_proposal", "pi_details", "reject_item", "summary_of"]


def _on_disk(ref: str) -> bool:
    """Whether a session file, or the store of a `STORE#SESSION` ref (OpenClaw, opencode), is there."""
    from cutline.core.agents.store_refs import split_ref

    return split_ref(ref)[0].is_file()


def pi_details(preparation: dict[str, Any]) -> dict[str, list[str]]:
    """pi's own compaction details from the preparation's file operations (its computeFileLists)."""
    ops = preparation.get("fileOps")
    ops = ops if isinstance(ops, dict) else {}

    def names(key: str) -> set[str]:
        value = ops.get(key)
        return {str(v) for v in value} if isinstance(value, list) else set()

    modified = names("edited") | names("written")
    return {"readFiles": sorted(names("read") - modified), "modifiedFiles": sorted(modified)}


def make_proposal(store: Store, item: InboxItem, hold: Hold) -> None:
    """Import the held session and store cutline's proposal of it, linked to the item (notes say what differs)."""
    from cutline.core.config.settings import CompactionSettings
    from cutline.core.engine.compact import compact
    from cutline.core.review import save_proposal
    from cutline.core.summarizers import get_summarizer

    inbox = Inbox(store)
    if not hold.sessionFile or not _on_disk(hold.sessionFile):
        draft = extractive_draft(hold.preparation, hold.agent)
        if draft:
            inbox.set_draft(item.id, draft)
            inbox.note(item.id, "no session file: the summary to edit is cutline's extractive one of the messages sent")
        else:
            inbox.note(item.id, "the agent named no session file: write a summary with `cutline inbox edit`")
        return
    session_id = store.import_file(hold.sessionFile).session_id
    inbox.link(item.id, session_id, None)
    session = store.load_session(session_id)
    own = hold.preparation.get("settings")
    own = own if isinstance(own, dict) else {}
    values = {k: own[k] for k in ("keepRecentTokens", "reserveTokens") if isinstance(own.get(k), int)}
    settings = CompactionSettings.model_validate(values)
    the_plan = plan_at_cut(store, session, settings, item.first_kept_entry_id)
    if the_plan.nothingToCompact or the_plan.firstKeptEntryId is None:
        inbox.note(item.id, "cutline's planner finds nothing to summarize: write a summary with `cutline inbox edit`")
        return
    settings = settings.with_overrides(keepRecentTokens=the_plan.keepRecentTokens)
    proposal = asyncio.run(compact(the_plan, session, get_summarizer("extractive"), settings))
    if item.first_kept_entry_id and proposal.firstKeptEntryId != item.first_kept_entry_id:
        proposal.notes.append(
            f"{item.agent} cuts at entry {item.first_kept_entry_id}, cutline's plan at {proposal.firstKeptEntryId}: "
            f"the agent keeps its own cut"
        )
    proposal.notes.append(f"held live by {item.agent} (inbox {item.id}): accepting answers the agent")
    save_proposal(store, proposal, the_plan.model_dump_json(), source_sha256=session.source_sha256)
    inbox.link(item.id, None, proposal.id)


def extractive_draft(preparation: dict[str, Any], agent: str = "pi") -> str:
    """cutline's extractive summary of the messages an agent sent with its compaction ('' when none can be read).

    In the agent's own shape (`agent` as the hold names it: pi, claude-code, codex, openclaw).
    The messages come as the agent holds them: OpenClaw's user turns carry their text as a bare
    string, as pi's do on disk, so each is shaped as the readers shape a session's messages
    before it is read.
    """
    from pydantic import ValidationError

    from cutline.core.agents.entries import shape_content
    from cutline.core.models import Message
    from cutline.core.summarizers import get_summarizer
    from cutline.core.summarizers.base import SummaryRequest
    from cutline.core.summarizers.prompts import prompt_for_agent

    raw = preparation.get("messagesToSummarize")
    messages = []
    for value in raw if isinstance(raw, list) else []:
        if not isinstance(value, dict):
            continue
        shaped = dict(value)
        shape_content(shaped)
        try:
            messages.append(Message.model_validate(shaped))
        except ValidationError:
            continue
    if not messages:
        return ""
    previous = preparation.get("previousSummary")
    request = SummaryRequest(
        messages=messages,
        previous_summary=previous if isinstance(previous, str) else None,
        prompt_name="openclaw-safeguard" if agent == "openclaw" else prompt_for_agent(agent.replace("-", "_")),
    )
    return asyncio.run(get_summarizer("extractive").summarize(request))


def plan_at_cut(store: Store, session: Any, settings: Any, first_kept: str | None) -> Any:
    """cutline's plan of the session, moved to the agent's cut when the planners' counts differ.

    pi and cutline estimate tokens differently, so the same keepRecentTokens may cut elsewhere;
    the cut only moves one way as keepRecentTokens grows, so a bisection over it finds the plan
    that keeps from `first_kept` (in log n plans) when there is one; otherwise cutline's own plan.
    """
    from cutline.core.engine.plan import plan
    from cutline.core.engine.rules.choice import evidence
    from cutline.core.store.token_counts import count_entries

    path = session.active_path()
    counts = count_entries(store, session, "chars4")
    tokens = [counts.get(e.id, 0) for e in path]
    rules = evidence(path, session.format, session.version)

    def at(keep: int) -> Any:
        return plan(path, settings.with_overrides(keepRecentTokens=keep), "chars4", tokens, rules=rules)

    own = at(settings.keepRecentTokens)
    ids = [e.id for e in path]
    if first_kept is None:  # the agent names no cut (Claude Code summarizes it all): keep less until there is a plan
        for keep in (settings.keepRecentTokens // 4, settings.keepRecentTokens // 20, 0):
            if not own.nothingToCompact and own.firstKeptEntryId is not None:
                break
            own = at(keep)
        return own
    if own.firstKeptEntryId == first_kept or first_kept not in ids:
        return own
    target = ids.index(first_kept)
    low, high = 0, max(sum(tokens), 1)
    while low <= high:  # the cut's path index falls as keepRecentTokens grows
        keep = (low + high) // 2
        candidate = at(keep)
        if candidate.firstKeptEntryId == first_kept:
            return candidate
        at_index = candidate.firstKeptPathIndex
        if at_index is not None and at_index > target:  # kept too little
            low = keep + 1
        else:
            high = keep - 1
    return own


def summary_of(store: Store, item: InboxItem) -> tuple[str, int | None]:
    """The summary an accept would send: the proposal's latest version (and its number), else the draft."""
    if item.proposal_id is not None:
        from cutline.core.review import latest_version

        version = latest_version(store, item.proposal_id)
        return version.text, version.n
    if item.draft is not None:
        return item.draft, None
    if item.found:
        return found_summary(store, item), None
    raise CutlineError(
        f"inbox item {item.id} has no summary yet: write one with `cutline inbox edit {item.id} FILE` first"
    )


def found_summary(store: Store, item: InboxItem) -> str:
    """The agent's own summary of a compaction found after the fact (CutlineError when it cannot be read)."""
    found = Inbox(store).request(item.id).get("found")
    found = found if isinstance(found, dict) else {}
    if isinstance(found.get("summary"), str) and found["summary"]:
        return str(found["summary"])
    why = found.get("unreadable") or "the scan found no summary text in it"
    raise CutlineError(f"inbox item {item.id}: the agent's summary cannot be shown ({why})")


def edit_item(store: Store, ref: str, text: str) -> InboxItem:
    """The person's summary: a new version of the item's proposal (or its draft when there is none)."""
    inbox = Inbox(store)
    item = _find(inbox, ref)
    if item.status != "waiting":
        raise InboxClosed(f"inbox item {item.id} is already {item.status}")
    text = text.rstrip("\n")  # an editor's final newline is not part of the summary
    if not text.strip():
        raise CutlineError("the summary is empty")
    if item.proposal_id is not None:
        from cutline.core.review import add_version

        add_version(store, item.proposal_id, text)
    else:
        inbox.set_draft(item.id, text)
    return inbox.get(item.id)


def _find(inbox: Inbox, ref: str) -> InboxItem:
    item = inbox.find(ref)
    if item is None:
        raise CutlineError(f"no inbox item {ref}")
    return item


def _record(store: Store, item: InboxItem, decision: str, version: int | None, note: str | None) -> None:
    if item.proposal_id is None or item.session_id is None:
        return
    with contextlib.suppress(ProposalDecided):
        store.proposals.record_decision(
            Decision(
                proposal_id=item.proposal_id,
                session_id=item.session_id,
                decision="accepted" if decision == "accepted" else "rejected",
                decided_at=utc_now(),
                note=note or f"answered live to {item.agent} (inbox {item.id})",
                version=version,
            )
        )


def accept_item(store: Store, ref: str, note: str | None = None) -> InboxItem | None:
    """Answer the item `ref` names with the latest summary; None when `ref` names no inbox item."""
    inbox = Inbox(store)
    item = inbox.find(ref)
    if item is None:
        return None
    if item.status != "waiting":
        raise InboxClosed(f"inbox item {item.id} is already {item.shown_status()}")
    text, version = summary_of(store, item)
    if not item.live:
        return _accept_written_back(store, inbox, item, text, note)
    if item.proposal_id is not None:
        from cutline.core.review import load_proposal, validate_version

        validation = validate_version(load_proposal(store, item.proposal_id), text)
        if not validation.ok:
            raise CutlineError(f"inbox item {item.id} cannot be accepted: {validation.summary()}")
    request = inbox.request(item.id)
    preparation = request.get("preparation")
    answer = {
        "summary": text,
        "firstKeptEntryId": item.first_kept_entry_id,
        "tokensBefore": item.tokens_before or 0,
        "details": pi_details(preparation if isinstance(preparation, dict) else {}),
    }
    answered = inbox.answer(item.id, "accepted", answer)
    _record(store, answered, "accepted", version, note)
    return answered


def _accept_written_back(store: Store, inbox: Inbox, item: InboxItem, text: str, note: str | None) -> InboxItem:
    """An agent that does not wait (Claude Code): the accepted summary is written into its session file.

    The agent went on after the hook (its turn ran uncompacted), so the file has grown since the
    proposal was made: the proposal is made again of the file as it is now, with the person's
    summary as its latest version, and the old one is closed as superseded.
    """
    from cutline.core.review import accept, add_version
    from cutline.core.store import file_sha256

    if item.found and item.proposal_id is None:
        item = _propose_found(store, inbox, item, text)
    if item.proposal_id is None or item.session_file is None:
        raise CutlineError(f"inbox item {item.id} has no proposal to write back; see `cutline inbox show {item.id}`")
    old = item.proposal_id
    path = Path(item.session_file)
    if path.is_file() and store.proposals.source_sha256(old) != file_sha256(path):
        hold = Hold.model_validate({**inbox.request(item.id), "type": "hold"})
        make_proposal(store, item, hold)
        item = inbox.get(item.id)
        if item.proposal_id == old:
            raise CutlineError(f"inbox item {item.id}: {path} changed and no new proposal could be made of it")
        assert item.proposal_id is not None
        add_version(store, item.proposal_id, text)
        _record(
            store, item.model_copy(update={"proposal_id": old}), "rejected", None, f"superseded by {item.proposal_id}"
        )
    assert item.proposal_id is not None
    decision = accept(store, item.proposal_id, write_back=True, note=note)
    answered = inbox.answer(item.id, "accepted", {"summary": text, "writtenTo": decision.written_to})
    inbox.delivered(item.id)
    for line in decision.notes:
        inbox.note(item.id, line)
    return answered


def _propose_found(store: Store, inbox: Inbox, item: InboxItem, text: str) -> InboxItem:
    """A compaction found after the fact gets its proposal when the person writes a better summary back.

    Not at scan time: a scan stays cheap. The person's summary (their draft) becomes the
    proposal's latest version; the agent's own summary unchanged is refused (nothing to write).
    """
    from cutline.core.review import add_version

    if item.draft is None:
        raise CutlineError(
            f"inbox item {item.id} holds {item.agent}'s own summary: write a better one first "
            f"(`cutline inbox edit {item.id} FILE`), or dismiss it (`cutline inbox dismiss {item.id}`)"
        )
    if item.session_file is None or not _on_disk(item.session_file):
        raise CutlineError(f"inbox item {item.id}: {item.agent}'s session {item.session_file} cannot be written back")
    hold = Hold(type="hold", agent=item.agent, sessionFile=item.session_file, sessionId=item.agent_session_id)
    make_proposal(store, item, hold)
    item = inbox.get(item.id)
    if item.proposal_id is None:
        raise CutlineError(
            f"inbox item {item.id}: cutline finds nothing to compact in {item.session_file} since {item.agent}'s "
            f"compaction; your summary is kept: `cutline accept {item.id}` again once the agent has gone on"
        )
    add_version(store, item.proposal_id, text)
    return item


def reject_item(store: Store, ref: str, note: str | None = None) -> InboxItem | None:
    """Tell the agent to cancel the compaction; None when `ref` names no inbox item."""
    inbox = Inbox(store)
    item = inbox.find(ref)
    if item is None:
        return None
    answered = inbox.answer(item.id, "rejected", None)
    if not item.live:
        inbox.delivered(item.id)
    _record(store, answered, "rejected", None, note)
    return answered


def _answer_for_review(store: Store, proposal_id: str, decision: str, note: str | None) -> Decision | None:
    """`review.accept` / `review.reject` of a proposal an agent holds live: answer the agent instead of writing."""
    item = Inbox(store).find(proposal_id)
    if item is None or not item.live or item.proposal_id != proposal_id or item.session_id is None:
        return None
    answered = (accept_item if decision == "accepted" else reject_item)(store, item.id, note)
    assert answered is not None
    return Decision(
        proposal_id=proposal_id,
        session_id=item.session_id,
        decision="accepted" if decision == "accepted" else "rejected",
        decided_at=answered.answered_at or utc_now(),
        note=note,
        notes=[f"{item.agent} holds this compaction live (inbox {item.id}): it gets the answer and writes it itself"],
    )


def _install() -> None:
    from cutline.core import review

    review.live_answer = _answer_for_review


_install()
