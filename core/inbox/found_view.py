"""A compaction found after the fact, as a person audits it: the agent's cut, what it summarized and kept, its summary.

The desk opens an inbox item found by the scan (core.inbox.scan) with this: the agent's
session is imported (as any session the desk opens) and its compaction found on the active
path by the id the scan remembered. What the compaction summarized runs from the previous
compaction's kept part (or the session's start) to the agent's cut; what it kept runs from
the cut to the compaction (none when the agent names no cut: Claude Code and Codex summarize
it all). Answering the item is core.inbox.answers' (edit_item, accept_item, reject_item).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from cutline.core.errors import CutlineError
from cutline.core.inbox.items import Inbox, InboxItem
from cutline.core.models import Entry, ToolCallBlock
from cutline.core.store import Store

# a message's text as the view carries it: enough to recognise it, never a whole big tool output
TEXT_LIMIT = 400


class FoundMessage(BaseModel):
    """One message around the agent's compaction."""

    entry_id: str
    part: Literal["summarized", "kept"]
    role: str
    text: str


class FoundView(BaseModel):
    """What the agent's compaction did, and the summary a person starts from."""

    item: InboxItem
    agent_summary: str | None  # the agent's own summary (None: unreadable)
    summary: str  # what the person edits: their draft if they wrote one, else the agent's summary
    first_kept_entry_id: str | None = None
    messages: list[FoundMessage] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


def _lines(path: list[Entry], start: int, end: int, part: Literal["summarized", "kept"]) -> list[FoundMessage]:
    out = []
    for entry in path[start:end]:
        if entry.message is None:
            continue
        text = " ".join(entry.message.text().split())
        calls = [b.name for b in entry.message.content if isinstance(b, ToolCallBlock)]
        if calls:  # a turn of tool calls reads as the calls it made
            text = " ".join([text, *(f"[{name}]" for name in calls)]).strip()
        out.append(FoundMessage(entry_id=entry.id, part=part, role=entry.message.role, text=text[:TEXT_LIMIT]))
    return out


def split_at_compaction(path: list[Entry], compaction_id: str) -> tuple[str | None, list[FoundMessage]] | None:
    """The agent's cut and the messages it summarized then kept, for the compaction `compaction_id` (None: not on path)."""
    at = next((i for i, e in enumerate(path) if e.id == compaction_id and e.compaction is not None), None)
    if at is None:
        return None
    record = path[at].compaction
    assert record is not None
    index = {e.id: i for i, e in enumerate(path[:at])}
    start = 0
    for i in range(at - 1, -1, -1):  # the previous compaction's kept part was in context: it starts what is summarized
        earlier = path[i].compaction
        if earlier is not None:
            kept_from = index.get(earlier.firstKeptEntryId or "")
            start = kept_from if kept_from is not None else i + 1
            break
    first_kept = record.firstKeptEntryId
    cut = index.get(first_kept or "", at)
    cut = max(cut, start)
    return first_kept, [*_lines(path, start, cut, "summarized"), *_lines(path, cut, at, "kept")]


def found_view(store: Store, ref: str) -> FoundView:
    """The item `ref` names, opened for a person's audit (CutlineError when it names no item found after the fact)."""
    inbox = Inbox(store)
    item = inbox.find(ref)
    if item is None or not item.found:
        raise CutlineError(f"no inbox item found after the fact is named {ref}")
    found = inbox.request(item.id).get("found")
    found = found if isinstance(found, dict) else {}
    own = found.get("summary") if isinstance(found.get("summary"), str) and found.get("summary") else None
    notes = list(item.notes)
    view = FoundView(item=item, agent_summary=own, summary=item.draft if item.draft is not None else own or "")
    if own is None:
        notes.append(f"the agent's summary cannot be shown: {found.get('unreadable') or 'the scan found no text'}")
    if not item.session_file:
        view.notes = [*notes, "the item names no session file: only its summary can be shown"]
        return view
    try:
        session_id = store.import_file(item.session_file).session_id
        session = store.load_session(session_id)
    except (CutlineError, OSError) as exc:
        view.notes = [*notes, f"{item.session_file} cannot be read: {exc}"]
        return view
    split = split_at_compaction(session.active_path(), str(found.get("compaction") or ""))
    if split is None:
        notes.append(f"compaction {found.get('compaction')} is no longer on the session's active path")
    else:
        view.first_kept_entry_id, view.messages = split
    view.notes = notes
    return view
