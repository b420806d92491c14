"""opencode write-back: a compaction inserted into opencode's SQLite store as opencode writes its own, recovered, undone.

opencode 1.18 reads a session from its `message` and `part` rows (creation time, then id)
and resumes from the last finished compaction (context.py): a user message with a
`compaction` part (`tail_start_id`: the first kept message, absent when nothing is kept)
answered by an assistant message with `summary: true` (mode and agent "compaction",
`finish` "stop") whose text is the summary. cutline writes exactly those two messages
and their parts, after every message of the session, in one `BEGIN IMMEDIATE`
transaction, after checking under that lock that the session's rows are exactly those the
proposal was made from, that opencode is not compacting it, and after a copy of the
database made with SQLite's backup API; the pending record is stored before the insert.
The ids are derived from the proposal, so recovery finds them; undo deletes exactly
those rows when opencode added nothing after them, else restores the backup.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any

from cutline.core.agents.entries import iso_to_ms, now_iso
from cutline.core.agents.openclaw.running import holders
from cutline.core.agents.openclaw.writeback import BUSY_TIMEOUT_S, backup_store
from cutline.core.agents.openclaw.writeback import _connected as connected
from cutline.core.agents.openclaw.writeback import _immediate as immediate
from cutline.core.agents.opencode.reader import obj, read_opencode
from cutline.core.agents.opencode.store import Row, StoreSession, fingerprint, read_rows
from cutline.core.agents.safe_write import sha256_hex
from cutline.core.agents.store_refs import split_ref
from cutline.core.agents.writeback import (
    OnPrepared,
    PendingWrite,
    Recovery,
    UndoNeedsChoice,
    UndoResult,
    WriteBackPlan,
    WrittenBack,
    no_record,
)
from cutline.core.errors import WriteBackRefused
from cutline.core.models import CompactionRecord, Entry, Session

STYLE = "opencode 1.18 (compaction user message + summary message)"
_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
# the hex digits of an id's time part: (ms × 4096 + counter), 48 bits (opencode's Identifier.ascending)
_TIME_MASK = 0xFFFFFFFFFFFF


def plan(session: Session) -> WriteBackPlan:
    """Whether the session takes a compaction: one session of an opencode store, with messages."""
    _store, session_id = split_ref(session.source_path or "")
    if session_id is None:
        return WriteBackPlan.refused("only sessions read from opencode's SQLite store are written back")
    if not any(e.type == "message" for e in session.active_path()):
        return WriteBackPlan.refused("the session has no messages to compact")
    return WriteBackPlan(
        possible=True,
        how="insert",
        reason=(
            "a compaction (its user message and the summary message) is inserted into opencode's store in one "
            "transaction (the database is copied first); opencode resumes from it"
        ),
        style=STYLE,
    )


def running(session: Session) -> str | None:
    """A running opencode (or any process) holding this session's store."""
    store, _ = split_ref(session.source_path or "")
    if not store.is_file():
        return None
    held = holders(store)
    return held[0].describe() if held else None


def _random(seed: str, length: int) -> str:
    digest = hashlib.sha256(seed.encode()).digest()
    return "".join(_BASE62[b % 62] for b in digest[:length])


def _id(prefix: str, ms: int, counter: int, seed: str) -> str:
    return f"{prefix}_{((ms * 0x1000) + counter) & _TIME_MASK:012x}{_random(seed, 14)}"


def _last(session: Session, role: str) -> dict[str, Any]:
    """The stored data of the session's last message with this role (agent, model, path come from it)."""
    for entry in reversed(session.entries):
        if entry.raw_line and entry.sourceType == role:
            try:
                value = json.loads(entry.raw_line)
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
    return {}


def rows_for(session: Session, record: CompactionRecord, *, key: str, timestamp: str) -> dict[str, Any]:
    """The message and part rows cutline inserts for `record` (JSON-ready; `preview_line` shows them)."""
    _store, session_id = split_ref(session.source_path or "")
    sid = session_id or session.id
    last_ms = max((iso_to_ms(e.timestamp) or 0 for e in session.entries), default=0)
    ms = max(iso_to_ms(timestamp) or 0, last_ms + 1)
    user = _last(session, "user")
    assistant = _last(session, "assistant")
    model = obj(user.get("model"))
    seed = f"{sid}:{key}"
    user_id = _id("msg", ms, 0, seed + ":user")
    summary_id = _id("msg", ms + 1, 0, seed + ":summary")
    compaction_part: dict[str, Any] = {"type": "compaction", "auto": False}
    if record.firstKeptEntryId:
        compaction_part["tail_start_id"] = record.firstKeptEntryId
    zero = {"total": 0, "input": 0, "output": 0, "reasoning": 0, "cache": {"write": 0, "read": 0}}
    user_data: dict[str, Any] = {"role": "user", "time": {"created": ms}}
    if isinstance(user.get("agent"), str):
        user_data["agent"] = user["agent"]
    user_data["model"] = {k: model[k] for k in ("providerID", "modelID", "variant") if k in model}
    summary_data: dict[str, Any] = {
        "parentID": user_id,
        "role": "assistant",
        "mode": "compaction",
        "agent": "compaction",
        "summary": True,
        "path": assistant.get("path") if isinstance(assistant.get("path"), dict) else {"cwd": session.cwd or "/"},
        "cost": 0,
        "tokens": zero,
        "modelID": model.get("modelID") or assistant.get("modelID") or "",
        "providerID": model.get("providerID") or assistant.get("providerID") or "",
        "time": {"created": ms + 1, "completed": ms + 1},
        "finish": "stop",
    }
    return {
        "session": sid,
        "messages": [
            {"id": user_id, "time": ms, "data": user_data},
            {"id": summary_id, "time": ms + 1, "data": summary_data},
        ],
        "parts": [
            {"id": _id("prt", ms, 0, seed + ":compaction"), "message": user_id, "time": ms, "data": compaction_part},
            {
                "id": _id("prt", ms + 1, 0, seed + ":start"),
                "message": summary_id,
                "time": ms + 1,
                "data": {"type": "step-start"},
            },
            {
                "id": _id("prt", ms + 1, 1, seed + ":text"),
                "message": summary_id,
                "time": ms + 1,
                "data": {"type": "text", "text": record.summary, "time": {"start": ms + 1, "end": ms + 1}},
            },
            {
                "id": _id("prt", ms + 1, 2, seed + ":finish"),
                "message": summary_id,
                "time": ms + 1,
                "data": {"type": "step-finish", "reason": "stop", "tokens": zero, "cost": 0},
            },
        ],
    }


def preview(session: Session, record: CompactionRecord, *, key: str, timestamp: str) -> str:
    """The rows as one JSON line: what `write_back` inserts for this key and time."""
    return json.dumps(
        rows_for(session, record, key=key, timestamp=timestamp), ensure_ascii=False, separators=(",", ":")
    )


def _as_rows(rows: dict[str, Any]) -> tuple[list[Row], list[Row]]:
    dump = json.dumps
    messages = [
        Row(m["id"], m["id"], m["time"], dump(m["data"], ensure_ascii=False, separators=(",", ":")))
        for m in rows["messages"]
    ]
    parts = [
        Row(p["id"], p["message"], p["time"], dump(p["data"], ensure_ascii=False, separators=(",", ":")))
        for p in rows["parts"]
    ]
    return messages, parts


def _with(stored: StoreSession, rows: dict[str, Any]) -> StoreSession:
    messages, parts = _as_rows(rows)
    all_parts = sorted([*stored.parts, *parts], key=lambda r: (r.message_id, r.id))
    return StoreSession(stored.info, [*stored.messages, *messages], all_parts)


def session_after(session: Session, written: str) -> Session:
    """The session as read once `written` (see `preview`) is inserted, the store untouched."""
    where, stored = read_rows(session.source_path or "")
    after = _with(stored, json.loads(written))
    out = read_opencode(where, after)
    out.source_path = where
    out.source_size, out.source_sha256 = fingerprint(after)
    return out


def _stored(conn: sqlite3.Connection, session_id: str) -> StoreSession:
    messages = [
        Row(str(r[0]), str(r[0]), int(r[1]), str(r[2]))
        for r in conn.execute(
            "SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id", (session_id,)
        )
    ]
    parts = [
        Row(str(r[0]), str(r[1]), int(r[2]), str(r[3]))
        for r in conn.execute(
            "SELECT id, message_id, time_created, data FROM part WHERE session_id = ? ORDER BY message_id, id",
            (session_id,),
        )
    ]
    return StoreSession({}, messages, parts)


def _check_unchanged(conn: sqlite3.Connection, store: Path, session: Session, session_id: str) -> StoreSession:
    stored = _stored(conn, session_id)
    if session.source_sha256 is None or session.source_size is None:
        raise WriteBackRefused(f"{store}: the session carries no fingerprint; re-import it and try again")
    if fingerprint(stored) != (session.source_size, session.source_sha256):
        raise WriteBackRefused(
            f"{store}: session {session_id} changed since the proposal was made ({len(stored.messages)} messages now); "
            "nothing was written — re-import it and make a new proposal"
        )
    row = conn.execute("SELECT time_compacting FROM session WHERE id = ?", (session_id,)).fetchone()
    if row is not None and row[0]:
        raise WriteBackRefused(f"{store}: opencode is compacting session {session_id} now; nothing was written")
    return stored


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
    """Insert the compaction's two messages and their parts (see the module doc); the entry as cutline reads it."""
    if session.format != "opencode":
        raise WriteBackRefused(f"{path}: not an opencode session ({session.format})")
    checked = plan(session)
    if not checked.possible:
        raise WriteBackRefused(f"{path}: {checked.reason}")
    store, session_id = split_ref(str(path))
    assert session_id is not None  # the plan checked it
    kept = record.firstKeptEntryId
    if kept and not any(e.id == kept and e.data.get("messageId") == kept for e in session.entries):
        raise WriteBackRefused(
            f"{path}: the kept part must start at an opencode message, and {kept} is not one; nothing was written"
        )
    stamp = timestamp or now_iso()
    rows = rows_for(session, record, key=entry_id or uuid.uuid4().hex[:8], timestamp=stamp)
    text = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
    payload = text.encode("utf-8")
    messages, parts = _as_rows(rows)
    with connected(store) as conn, immediate(conn, store):
        stored = _check_unchanged(conn, store, session, session_id)
        saved = backup_store(store, backup_dir, f"{messages[0].id}.{(session.source_sha256 or '')[:16]}")
        size_after, sha_after = fingerprint(_with(stored, rows))
        pending = PendingWrite(
            proposal_id=proposal_id,
            session_id=session.id,
            path=str(path),
            how="insert",
            entry_id=messages[0].id,
            size_before=session.source_size or 0,
            sha_before=session.source_sha256 or "",
            payload_size=len(payload),
            payload_sha=sha256_hex(payload),
            size_after=size_after,
            sha_after=sha_after,
            backup_path=str(saved),
            payload=text,
            written_ids=[m.id for m in messages],
        )
        on_prepared(pending)
        for m in messages:
            conn.execute(
                "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)",
                (m.id, session_id, m.time_created, m.time_created, m.data),
            )
        for p in parts:
            conn.execute(
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)",
                (p.id, p.message_id, session_id, p.time_created, p.time_created, p.data),
            )
    entry = Entry(
        id=messages[0].id,
        parentId=session.entries[-1].id if session.entries else None,
        type="compaction",
        timestamp=stamp,
        compaction=record.model_copy(deep=True),
        raw_line=text,
    )
    return WrittenBack(entry=entry, pending=pending)


def recover(pending: PendingWrite) -> Recovery:
    """Whether an interrupted write-back committed: its compaction message is in the store (one transaction)."""
    store, session_id = split_ref(pending.path)
    if session_id is None or not store.is_file():
        return Recovery(state="unknown", message=f"{pending.path}: the opencode store is not there")
    try:
        with connected(store) as conn:
            row = conn.execute(
                "SELECT 1 FROM message WHERE session_id = ? AND id = ?", (session_id, pending.entry_id)
            ).fetchone()
    except (sqlite3.Error, WriteBackRefused) as exc:
        return Recovery(state="unknown", message=f"{pending.path}: cannot read the opencode store ({exc})")
    if row is not None:
        return Recovery(state="written", message=f"{pending.path}: the compaction {pending.entry_id} is in the store")
    return Recovery(state="not-written", message=f"{pending.path}: the transaction had not committed; nothing changed")


def undo(pending: PendingWrite, *, backup_dir: Path, from_backup: bool = False) -> UndoResult:
    """Delete exactly the rows the write-back added, in one transaction, when opencode added nothing after them.

    Otherwise refuse naming what is possible: the backup of the whole database
    (`from_backup`), a copy of the store as it is now kept first.
    """
    store, session_id = split_ref(pending.path)
    if session_id is None:
        raise WriteBackRefused(f"{pending.path}: not a session of an opencode store")
    if from_backup:
        return _restore_backup(store, session_id, pending, backup_dir)
    rows = json.loads(pending.payload) if pending.payload else None
    if not isinstance(rows, dict):
        raise WriteBackRefused(f"{pending.path}: the write-back record holds no rows; undo with --from-backup")
    messages, parts = _as_rows(rows)
    with connected(store) as conn, immediate(conn, store):
        stored = _stored(conn, session_id)
        size, digest = fingerprint(stored)
        if digest == pending.sha_before:
            raise WriteBackRefused(f"{pending.path} is already as it was before the write-back")
        ours = {m.id for m in messages}
        present = {m.id: m for m in stored.messages}
        if any(present.get(m.id) != m for m in messages):
            raise UndoNeedsChoice(
                f"{pending.path}: cutline's compaction is no longer in the store as written; "
                "the rows cannot be taken back — undo with --from-backup"
            )
        later = [m for m in stored.messages if m.id not in ours and m.time_created >= messages[0].time_created]
        if later or digest != pending.sha_after:
            added = (
                f"opencode wrote {len(later)} message(s) after the compaction"
                if later
                else "opencode changed the session"
            )
            raise UndoNeedsChoice(
                f"{added}; the rows cannot be taken back exactly — undo with --from-backup "
                "(restores the whole store as it was before the write-back; a copy of it now is kept)"
            )
        for p in parts:
            conn.execute("DELETE FROM part WHERE id = ? AND session_id = ?", (p.id, session_id))
        for m in messages:
            conn.execute("DELETE FROM message WHERE id = ? AND session_id = ?", (m.id, session_id))
        size, digest = fingerprint(_stored(conn, session_id))
        if digest != pending.sha_before:
            raise WriteBackRefused(
                f"{pending.path}: removing the rows did not give the session back as it was; nothing changed"
            )
    return UndoResult(
        how="exact",
        message=f"{pending.path}: the compaction's messages and parts were removed; the session is as it was",
        size_after=size,
        sha_after=digest,
    )


def _restore_backup(store: Path, session_id: str, pending: PendingWrite, backup_dir: Path) -> UndoResult:
    """The whole database back from the backup (SQLite's backup API into the live file), the store as now kept first."""
    if not pending.backup_path or not Path(pending.backup_path).is_file():
        raise WriteBackRefused(f"{pending.path}: the backup {pending.backup_path} is not there")
    try:
        original = sqlite3.connect(f"{Path(pending.backup_path).resolve().as_uri()}?mode=ro", uri=True)
        try:
            digest = fingerprint(_stored(original, session_id))[1]
        finally:
            original.close()
    except sqlite3.Error as exc:
        raise WriteBackRefused(f"{pending.path}: the backup {pending.backup_path} cannot be read ({exc})") from None
    if digest != pending.sha_before:
        raise WriteBackRefused(
            f"{pending.path}: the backup {pending.backup_path} is not the session as it was; refusing"
        )
    kept = backup_store(store, backup_dir, f"before-undo.{int(time.time() * 1000)}")
    try:
        source = sqlite3.connect(f"{Path(pending.backup_path).resolve().as_uri()}?mode=ro", uri=True)
        target = sqlite3.connect(str(store), timeout=BUSY_TIMEOUT_S)
        try:
            source.backup(target)
        finally:
            target.close()
            source.close()
    except sqlite3.Error as exc:
        raise WriteBackRefused(
            f"{pending.path}: the backup could not be restored ({exc}); the store is unchanged"
        ) from None
    return UndoResult(
        how="restored-backup",
        message=(
            f"{store} is as it was before the write-back (the whole store, every session in it); "
            f"the store as it was just now is kept in {kept}"
        ),
        size_after=pending.size_before,
        sha_after=pending.sha_before,
    )
