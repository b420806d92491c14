"""Qwen Code write-back on cutline's seam: a `chat_compression` record appended safely, recovered, undone.

The record is what Qwen Code 0.24 writes when it compresses (`system`, subtype
`chat_compression`, parented to the last record): `systemPayload.info` with the token
figures and `compressedHistory`, the history the program continues from. cutline's
summary goes in as Qwen Code frames its own (the summary, then its "Resume the prior
task" line) with the model's acknowledgement after it; the records a proposal keeps
follow, their `message` contents copied as they are. `qwen --continue` resumes from it
(tests/e2e/test_live_resume_qwen.py).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import uuid
from pathlib import Path
from typing import Any

from cutline.core.agents.appended_lines import append_lines, program_named, running_program
from cutline.core.agents.entries import now_iso
from cutline.core.agents.jsonl_writeback import undo_written
from cutline.core.agents.writeback import OnPrepared, PendingWrite, UndoResult, WriteBackPlan, WrittenBack, no_record
from cutline.core.errors import WriteBackRefused
from cutline.core.models import CompactionRecord, Entry, Session

# what Qwen Code puts after its summary, and the model turn it adds after that (its chat compression service)
RESUME_LINE = (
    "Resume the prior task using the summary above. Continue from the last in-flight step; do not acknowledge the "
    "summary, do not re-introduce, do not greet the user again."
)
ACKNOWLEDGEMENT = "Got it. Thanks for the additional context!"
SNAPSHOT_CLOSE = "</state_snapshot>"
_COMMON_FIELDS = ("sessionId", "cwd", "version", "gitBranch")
_IS_QWEN = program_named("qwen", "cli.js", "cli-entry.js")


def _raw(entry: Entry) -> dict[str, Any]:
    try:
        value = json.loads(entry.raw_line) if entry.raw_line else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def derived_uuid(session_id: str, entry_id: str) -> str:
    """A v4-shaped uuid fixed by the session and the proposal's entry id (so the preview is the written line)."""
    digest = hashlib.sha256(f"cutline:qwen:{session_id}:{entry_id}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def plan(session: Session) -> WriteBackPlan:
    """Whether the session takes a compression: a chat file whose last record has a uuid to link to."""
    path = session.active_path()
    return plan_from_leaf(path[-1] if path else None)


def plan_from_leaf(leaf: Entry | None) -> WriteBackPlan:
    """`plan` from the active path's last entry alone (None: the path is empty), e.g. as the store holds it.

    Why: the accept preview and `write-back-plan` of a long chat file read it whole only to
    ask this, as Claude Code's did (`claude_code.writeback.plan_from_leaf`).
    """
    if leaf is None:
        return WriteBackPlan.refused("the chat file has no records to compress")
    if _raw(leaf).get("uuid") != leaf.id:
        return WriteBackPlan.refused("the chat file's last record has no uuid: Qwen Code could not link a compression")
    return WriteBackPlan(
        possible=True,
        how="append",
        reason="a chat_compression record is appended; Qwen Code continues from its compressedHistory",
        style="Qwen Code 0.24 (chat_compression, compressedHistory)",
    )


def running(session: Session) -> str | None:
    """A running Qwen Code that may write to this chat file."""
    return running_program(session, _IS_QWEN, session.id)


def kept_contents(session: Session, first_kept: str | None) -> list[dict[str, Any]]:
    """The `message` contents of the records kept after the summary, from `first_kept` to the end of the path."""
    if first_kept is None:
        return []
    path = session.active_path()
    ids = [e.id for e in path]
    if first_kept not in ids:
        raise WriteBackRefused(f"the first kept record {first_kept} is not on the chat's active path")
    out: list[dict[str, Any]] = []
    for entry in path[ids.index(first_kept) :]:
        if entry.type == "compaction":
            raise WriteBackRefused("a compression lies inside the kept records; make a proposal that keeps less")
        message = _raw(entry).get("message")
        if entry.type == "message" and isinstance(message, dict):
            out.append(message)
    return out


def snapshot_and_notes(summary: str) -> tuple[str, str]:
    """A summary split after its `</state_snapshot>`: the snapshot, and cutline's notes that follow it (or "").

    Why: Qwen Code keeps the model's text whole (it drops only <analysis> blocks) and follows it with its resume
    line; the context it adds itself (restored files, images, reminders) goes in a user message after the model's
    acknowledgement. cutline's notes (the last exchange verbatim, tool failures, files) are that kind of context.
    """
    end = summary.rfind(SNAPSHOT_CLOSE)
    if end < 0:
        return summary, ""
    cut = end + len(SNAPSHOT_CLOSE)
    return summary[:cut].rstrip(), summary[cut:].strip()


def compression_record(session: Session, record: CompactionRecord, *, entry_id: str, timestamp: str) -> dict[str, Any]:
    """The `chat_compression` record for an accepted compaction."""
    path = session.active_path()
    leaf = _raw(path[-1]) if path else {}
    if not path or leaf.get("uuid") != path[-1].id:
        raise WriteBackRefused("the chat file's last record has no uuid: Qwen Code could not link a compression")
    kept = kept_contents(session, record.firstKeptEntryId)
    snapshot, notes = snapshot_and_notes(record.summary)
    history: list[dict[str, Any]] = [
        {"role": "user", "parts": [{"text": f"{snapshot}\n\n{RESUME_LINE}"}]},
        {"role": "model", "parts": [{"text": ACKNOWLEDGEMENT}]},
        *([{"role": "user", "parts": [{"text": notes}]}] if notes else []),
        *kept,
    ]
    info: dict[str, Any] = {
        "originalTokenCount": record.tokensBefore,
        "newTokenCount": record.tokensAfter if record.tokensAfter is not None else _estimate(history),
        "newTokenCountIsEstimated": True,
        "compressionStatus": 1,
        "triggerReason": "manual",
    }
    return {
        "uuid": derived_uuid(session.id, entry_id),
        "parentUuid": leaf["uuid"],
        **{k: leaf[k] for k in ("sessionId",) if k in leaf},
        "timestamp": timestamp,
        "type": "system",
        "provenance": "system",
        **{k: leaf[k] for k in _COMMON_FIELDS if k in leaf and k != "sessionId"},
        "subtype": "chat_compression",
        "systemPayload": {"info": info, "compressedHistory": history, "completedToolCallIds": []},
    }


def _estimate(history: list[dict[str, Any]]) -> int:
    """Tokens of the new history, by four characters a token."""
    return -(-len(json.dumps(history, ensure_ascii=False)) // 4)


def payload_for(session: Session, record: CompactionRecord, *, path: Path, entry_id: str, timestamp: str) -> bytes:
    """The exact bytes appended: the record as one line in the file's newline."""
    del path
    written = compression_record(session, record, entry_id=entry_id, timestamp=timestamp)
    return (json.dumps(written, ensure_ascii=False, separators=(",", ":")) + session.newline).encode("utf-8")


def write_back(
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
    """Append the compression record; the compaction entry as cutline's reader will see it."""
    if session.format != "qwen_code":
        raise WriteBackRefused(f"{path}: not a Qwen Code session ({session.format})")
    checked = plan(session)
    if not checked.possible:
        raise WriteBackRefused(f"{path}: {checked.reason}")
    key = entry_id or secrets.token_hex(4)
    stamp = timestamp or now_iso()
    try:
        payload = payload_for(session, record, path=path, entry_id=key, timestamp=stamp)
    except WriteBackRefused as exc:
        raise WriteBackRefused(f"{path}: {exc}") from None
    written_id = derived_uuid(session.id, key)
    pending, line = append_lines(
        path,
        session,
        payload,
        backup_dir=backup_dir,
        entry_id=written_id,
        proposal_id=proposal_id,
        on_prepared=on_prepared,
        written_ids=[written_id],
    )
    entry = Entry(
        id=written_id,
        parentId=session.active_path()[-1].id,
        type="compaction",
        timestamp=stamp,
        sourceType="system",
        compaction=record.model_copy(deep=True),
        line=line,
        raw_line=payload.decode("utf-8").rstrip("\r\n"),
    )
    return WrittenBack(entry=entry, pending=pending)


def undo(pending: PendingWrite, *, backup_dir: Path, from_backup: bool = False, branch: bool = False) -> UndoResult:
    """The exact former bytes when nothing followed; else the backup on request."""
    del branch
    return undo_written(pending, backup_dir=backup_dir, from_backup=from_backup, agent="Qwen Code")
