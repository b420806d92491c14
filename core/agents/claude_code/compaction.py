"""The two records Claude Code (2.1.33x) writes for a compaction, made for an accepted cutline summary.

Claude Code's own shape (tests/fixtures/corpus/claude-code, README "Compaction"): a
`system` / `compact_boundary` record with `parentUuid` null and `logicalParentUuid` = the
last record before it, whose `compactMetadata.preservedSegment` names the records kept
verbatim (head..tail of the chain, re-anchored after the summary); then the summary as an
`isCompactSummary` user record framed the way Claude Code frames its own summaries
(docs/rules/agent-prompts.md). On resume Claude Code sends the summary, the kept records,
then the new prompt. The uuids are derived from the proposal's entry id, so the preview
and the written lines are the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

from cutline.core.models import CompactionRecord, Entry, Session

# WXe: the first line of the summary message Claude Code gives the model after a compaction
SUMMARY_OPENING = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation."
)
# r9n: where the model can read what the summary left out (the transcript keeps every line)
TRANSCRIPT_NOTE = (
    "If you need specific details from before compaction (like exact code snippets, error messages, "
    "or content you generated), read the full transcript at: "
)
# jXn: appended when messages are kept verbatim after the summary
KEPT_VERBATIM_NOTE = (
    "The messages after this summary are the most recent messages from before compaction, kept verbatim. "
    "The summary was written without seeing them, so something it says has not happened yet may already "
    "have happened in them."
)
# fields Claude Code repeats on every record of a session (copied from the leaf record)
_COMMON_FIELDS = ("userType", "entrypoint", "cwd", "sessionId", "version", "gitBranch", "slug")


class NotWritable(ValueError):
    """This session or this compaction cannot be written as Claude Code records (the message says why)."""


def summary_text(summary: str, transcript: str, kept: bool) -> str:
    """The summary record's text, framed as Claude Code frames the summaries it writes."""
    text = f"{SUMMARY_OPENING}\n\nSummary:\n{summary}"
    if transcript:
        text += f"\n\n{TRANSCRIPT_NOTE}{transcript}"
    if kept:
        text += f"\n\n{KEPT_VERBATIM_NOTE}"
    return text


def derived_uuid(session_id: str, entry_id: str, role: str) -> str:
    """A v4-shaped uuid fixed by the session, the proposal's entry id and the record's role (boundary, summary)."""
    digest = hashlib.sha256(f"cutline:{session_id}:{entry_id}:{role}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def _raw(entry: Entry) -> dict[str, Any]:
    try:
        value = json.loads(entry.raw_line) if entry.raw_line else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def kept_chain(session: Session, first_kept: str | None) -> list[Entry]:
    """The records kept verbatim: Claude Code's chain (raw `parentUuid` links) from the leaf back to `first_kept`.

    Claude Code finds the kept segment by walking `parentUuid` from its tail to its head, so
    the head must be on that walk; refused otherwise (a block record beside the chain).
    """
    path = session.active_path()
    if not path:
        raise NotWritable("the session has no records")
    if first_kept is None:
        return []
    records = {e.id: e for e in session.entries if _raw(e).get("uuid") == e.id}
    chain: list[Entry] = []
    node = records.get(path[-1].id)
    seen: set[str] = set()
    while node is not None and node.id not in seen:
        seen.add(node.id)
        chain.append(node)
        if node.id == first_kept:
            chain.reverse()
            return chain
        parent = _raw(node).get("parentUuid")
        if parent is None and node.type == "compaction":
            parent = _raw(node).get("logicalParentUuid")
        node = records.get(parent) if isinstance(parent, str) else None
    raise NotWritable(
        f"the first kept record {first_kept} is not on Claude Code's parent chain from the leaf "
        "(it sits beside it, e.g. a parallel tool call); make a proposal that keeps from another message"
    )


def off_chain_messages(session: Session, first_kept: str | None) -> list[str]:
    """Kept records with a message that are not on Claude Code's chain (parallel tool calls and results beside it).

    Claude Code keeps only the records its walk from tail to head passes, so these would be dropped.
    """
    if first_kept is None:
        return []
    path = session.active_path()
    ids = [e.id for e in path]
    if first_kept not in ids:
        raise NotWritable(f"the first kept record {first_kept} is not on the session's active path")
    on_chain = {e.id for e in kept_chain(session, first_kept)}
    return [e.id for e in path[ids.index(first_kept) :] if e.message is not None and e.id not in on_chain]


def _estimate(text: str, kept: list[Entry]) -> int:
    """Tokens after the compaction, by four characters a token (the summary and the kept messages' content)."""
    chars = len(text) + sum(len(dumps(_raw(e).get("message", {}).get("content", ""))) for e in kept)
    return -(-chars // 4)


def _common(leaf: dict[str, Any]) -> dict[str, Any]:
    return {k: leaf[k] for k in _COMMON_FIELDS if k in leaf}


def compaction_records(
    session: Session, record: CompactionRecord, *, entry_id: str, timestamp: str, transcript: str
) -> list[dict[str, Any]]:
    """The boundary and summary records for `record`, in the order they are appended."""
    path = session.active_path()
    kept = kept_chain(session, record.firstKeptEntryId)
    leaf = _raw(path[-1]) if path else {}
    if leaf.get("uuid") != (path[-1].id if path else None):
        raise NotWritable("the session's last record has no uuid of its own: Claude Code could not link a compaction")
    boundary_id = derived_uuid(session.id, entry_id, "boundary")
    summary_id = derived_uuid(session.id, entry_id, "summary")
    text = summary_text(record.summary, transcript, bool(kept))
    metadata: dict[str, Any] = {
        "trigger": "manual",
        "preTokens": record.tokensBefore,
        "postTokens": record.tokensAfter if record.tokensAfter is not None else _estimate(text, kept),
    }
    if kept:
        ids = [e.id for e in kept]
        metadata["preservedSegment"] = {"headUuid": ids[0], "anchorUuid": summary_id, "tailUuid": ids[-1]}
        metadata["preservedMessages"] = {"anchorUuid": summary_id, "uuids": ids, "allUuids": ids}
    common = _common(leaf)
    boundary = {
        "parentUuid": None,
        "logicalParentUuid": leaf["uuid"],
        "isSidechain": False,
        "type": "system",
        "subtype": "compact_boundary",
        "content": "Conversation compacted",
        "isMeta": False,
        "timestamp": timestamp,
        "uuid": boundary_id,
        "level": "info",
        "compactMetadata": metadata,
        **common,
    }
    summary = {
        "parentUuid": boundary_id,
        "isSidechain": False,
        "type": "user",
        "message": {"role": "user", "content": text},
        "isVisibleInTranscriptOnly": True,
        "isCompactSummary": True,
        "uuid": summary_id,
        "timestamp": timestamp,
        **common,
    }
    return [boundary, summary]


def dumps(value: Any) -> str:
    """JSON as Claude Code writes it (JSON.stringify: no spaces, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def compaction_payload(
    session: Session, record: CompactionRecord, *, entry_id: str, timestamp: str, transcript: str
) -> bytes:
    """The exact bytes appended: the two records, each a line ending in the session's newline."""
    records = compaction_records(session, record, entry_id=entry_id, timestamp=timestamp, transcript=transcript)
    return "".join(dumps(r) + session.newline for r in records).encode("utf-8")
