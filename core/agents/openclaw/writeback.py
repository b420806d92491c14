"""OpenClaw write-back: a compaction event and its projection rows inserted into the agent's SQLite store, recovered, undone.

OpenClaw 2026.9 resumes from the active path it projects in
`session_transcript_active_events` and `session_transcript_index_state`; an event that is
not projected is not seen (and a projection marked for rebuild makes `agent --local`
fail). So the event goes in as OpenClaw's own forward index appends one: the
`transcript_events` row, its `transcript_event_identities` row, one active-event row at
the next position, and the watermark moved to it — in one `BEGIN IMMEDIATE`
transaction, after checking under that lock that the session's events are exactly those
the proposal was made from and that the projection is current, and after a copy of the
database made with SQLite's backup API. The pending record is stored before the insert;
the transaction makes the outcome all or nothing, and the event's id (derived from the
proposal) tells after a crash whether it committed.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cutline.core.agents.entries import now_iso
from cutline.core.agents.openclaw.running import running_openclaw
from cutline.core.agents.openclaw.sqlite_compat import ensure_octet_length
from cutline.core.agents.openclaw.store import event_texts, fingerprint, read_store, with_inserted
from cutline.core.agents.pi.writer import compaction_line
from cutline.core.agents.safe_write import (
    TMP_SUFFIX,
    clean_leftovers,
    file_mode,
    fsync_dir,
    private_dir,
    sha256_hex,
)
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
from cutline.core.models import CompactionRecord, Entry, Problem, Session

STYLE = "OpenClaw 2026.9 (compaction event + transcript projection rows)"
# how long cutline waits for another writer's transaction before refusing
BUSY_TIMEOUT_S = 5.0
# the namespace of the event ids cutline writes (uuid5 of session and proposal entry id)
_EVENT_NAMESPACE = uuid.UUID("7d0c5b0e-1f5a-4c39-9a53-0c0ac7c15e15")


def plan(session: Session) -> WriteBackPlan:
    """Whether the session takes a compaction: one session of an OpenClaw store with events on its active path."""
    _store, session_id = split_ref(session.source_path or "")
    if session_id is None:
        return WriteBackPlan.refused(
            "only sessions read from OpenClaw's SQLite store are written back (this is an exported JSONL file)"
        )
    if not session.active_path():
        return WriteBackPlan.refused("the session has no events to compact")
    return WriteBackPlan(
        possible=True,
        how="insert",
        reason=(
            "the compaction event and its projection rows are inserted into OpenClaw's store in one transaction "
            "(the database is copied first); OpenClaw resumes from them"
        ),
        style=STYLE,
    )


def running(session: Session) -> str | None:
    """A running OpenClaw (or any process) holding this session's store."""
    store, _ = split_ref(session.source_path or "")
    return running_openclaw(store) if store.is_file() else None


def event_id_for(session_id: str, key: str) -> str:
    """The id of the event cutline writes for a proposal (stable: recovery recognises it)."""
    return str(uuid.uuid5(_EVENT_NAMESPACE, f"{session_id}:{key}"))


def event_for(session: Session, record: CompactionRecord, *, event_id: str, timestamp: str) -> str:
    """The event's JSON, as pi writes a compaction entry (OpenClaw's own events are pi's), parented on the leaf."""
    path = session.active_path()
    kept = record if record.firstKeptEntryId is not None else record.model_copy(update={"firstKeptEntryId": event_id})
    return compaction_line(kept, entry_id=event_id, parent_id=path[-1].id if path else None, timestamp=timestamp)


def session_after(session: Session, event: str) -> Session:
    """The session as read once `event` (see `event_for`) is inserted, the store untouched (for previews)."""
    return read_store(session.source_path or "", inserted=event)


# -- connections ----------------------------------------------------------------------


@contextlib.contextmanager
def _connected(store: Path) -> Iterator[sqlite3.Connection]:
    """A read-write connection in autocommit mode (transactions are explicit), octet_length() supplied."""
    if not store.is_file():
        raise WriteBackRefused(f"{store}: no such OpenClaw store")
    side_files = [Path(f"{store}{suffix}") for suffix in ("-wal", "-shm")]
    there_before = {side: side.exists() for side in side_files}
    try:
        conn = sqlite3.connect(str(store), timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise WriteBackRefused(f"{store}: cannot open the OpenClaw store ({exc})") from None
    try:
        ensure_octet_length(conn)
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        yield conn
    finally:
        conn.close()
        _remove_unused_side_files(side_files, there_before)


# a -shm file in use holds at least one 32 KiB page of the WAL index
_SHM_PAGE = 32768


def _remove_unused_side_files(side_files: list[Path], there_before: dict[Path, bool]) -> None:
    """Remove a -wal and -shm this connection created and never used (a failed open on a full disk leaves them).

    Only when both are new and unused: an empty -wal holds no data, and a -shm shorter than
    one index page was never mapped by any connection, so no process is relying on either.
    """
    if any(there_before.values()):
        return
    try:
        wal, shm = (side.stat().st_size for side in side_files)
    except FileNotFoundError:
        return
    if wal == 0 and shm < _SHM_PAGE:
        for side in side_files:
            with contextlib.suppress(OSError):
                side.unlink()


@contextlib.contextmanager
def _immediate(conn: sqlite3.Connection, store: Path) -> Iterator[None]:
    """One write transaction taken at once (BEGIN IMMEDIATE); rolled back unless the block ends normally."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        raise WriteBackRefused(f"{store}: {_why_not_begun(store, exc)}; nothing was written") from None
    try:
        yield
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    try:
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise WriteBackRefused(
            f"{store}: the transaction could not be committed ({exc}); nothing was written"
        ) from None


def _why_not_begun(store: Path, exc: sqlite3.OperationalError) -> str:
    """Why a write transaction could not start: another writer only when SQLite says busy or locked.

    Why: on a full disk SQLite says "disk I/O error" (it cannot make the -shm), which was
    reported as another process writing.
    """
    code = int(getattr(exc, "sqlite_errorcode", 0)) & 0xFF  # the primary code of an extended one
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or any(word in str(exc) for word in ("locked", "busy")):
        return f"another process is writing the OpenClaw store ({exc})"
    try:
        full = os.statvfs(store.parent).f_bavail == 0
    except OSError:
        full = False
    if full or code == sqlite3.SQLITE_FULL:
        return f"cannot write the OpenClaw store: the disk holding it is full ({exc})"
    return f"cannot write the OpenClaw store ({exc})"


def _watermark(conn: sqlite3.Connection, session_id: str) -> dict[str, Any] | None:
    row = conn.execute(
        "SELECT indexed_seq, leaf_event_id, needs_rebuild, active_event_count, active_message_count, updated_at"
        " FROM session_transcript_index_state WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    if row is None:
        return None
    keys = ("indexed_seq", "leaf_event_id", "needs_rebuild", "active_event_count", "active_message_count", "updated_at")
    return dict(zip(keys, row, strict=True))


def _last_seq(conn: sqlite3.Connection, session_id: str) -> int:
    row = conn.execute("SELECT max(seq) FROM transcript_events WHERE session_id = ?", (session_id,)).fetchone()
    return int(row[0]) if row is not None and row[0] is not None else -1


def _texts(conn: sqlite3.Connection, store: Path, session_id: str) -> list[tuple[int, str]]:
    problems: list[Problem] = []
    texts = event_texts(conn, session_id, f"{store}#{session_id}", problems)
    if problems:
        raise WriteBackRefused(f"{store}: an event of session {session_id} cannot be read ({problems[0].message})")
    return texts


# -- write ----------------------------------------------------------------------------


def _check_projection(conn: sqlite3.Connection, store: Path, session_id: str, leaf: str) -> dict[str, Any]:
    """The projection must be current and end at the session's leaf, as OpenClaw's own append requires."""
    mark = _watermark(conn, session_id)
    last = _last_seq(conn, session_id)
    stale = f"{store}: OpenClaw's projection of session {session_id} is not current"
    if mark is None or mark["needs_rebuild"] or mark["indexed_seq"] != last:
        raise WriteBackRefused(
            f"{stale} (OpenClaw rebuilds it when it next opens the session); run OpenClaw on it once, "
            "then make a new proposal"
        )
    count, unclassified = conn.execute(
        "SELECT count(*), sum(context_eligible IS NULL) FROM session_transcript_active_events WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    if count != mark["active_event_count"] or unclassified:
        raise WriteBackRefused(f"{stale} (its active rows disagree with its watermark); nothing was written")
    if mark["leaf_event_id"] != leaf:
        raise WriteBackRefused(
            f"{store}: OpenClaw's leaf is {mark['leaf_event_id']}, not {leaf} as read; re-import and make a new proposal"
        )
    return mark


def _check_unchanged(conn: sqlite3.Connection, store: Path, session: Session, session_id: str) -> list[tuple[int, str]]:
    texts = _texts(conn, store, session_id)
    size, digest = fingerprint(texts)
    if session.source_sha256 is None or session.source_size is None:
        raise WriteBackRefused(f"{store}: the session carries no fingerprint; re-import it and try again")
    if (size, digest) != (session.source_size, session.source_sha256):
        last = texts[-1][0] if texts else -1
        raise WriteBackRefused(
            f"{store}: session {session_id} changed since the proposal was made (its events now end at seq {last}); "
            "nothing was written — re-import it and make a new proposal"
        )
    return texts


def backup_store(store: Path, backup_dir: Path, tag: str) -> Path:
    """A copy of the whole database made with SQLite's backup API (private directory, the store's mode), fsynced.

    Taken through a connection of its own: a connection holding the write lock (ours,
    while checking) does not keep the backup from reading the committed state.
    """
    private_dir(backup_dir)
    clean_leftovers(backup_dir)
    target = (
        backup_dir / f"{store.stem}-{sha256_hex(str(store.resolve()).encode())[:8]}.{tag}{store.suffix or '.sqlite'}"
    )
    temporary = target.with_name(target.name + TMP_SUFFIX)
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()
    mode = file_mode(store)
    os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode))
    os.chmod(temporary, mode)
    try:
        source = sqlite3.connect(str(store), timeout=BUSY_TIMEOUT_S)
        copy = sqlite3.connect(str(temporary))
        try:
            source.backup(copy)
            copy.execute("PRAGMA journal_mode = DELETE")  # one self-contained file, no -wal beside it
        finally:
            copy.close()
            source.close()
        fd = os.open(temporary, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, target)
        fsync_dir(backup_dir)
    except (OSError, sqlite3.Error) as exc:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise WriteBackRefused(f"{store}: cannot make a backup in {backup_dir} ({exc}); nothing was written") from None
    return target


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
    """Insert the compaction event and its projection rows (see the module doc); the entry as cutline reads it."""
    if session.format != "openclaw":
        raise WriteBackRefused(f"{path}: not an OpenClaw session ({session.format})")
    checked = plan(session)
    if not checked.possible:
        raise WriteBackRefused(f"{path}: {checked.reason}")
    store, session_id = split_ref(str(path))
    assert session_id is not None  # the plan checked it
    leaf = session.active_path()[-1].id
    stamp = timestamp or now_iso()
    event_id = event_id_for(session_id, entry_id or uuid.uuid4().hex[:8])
    text = event_for(session, record, event_id=event_id, timestamp=stamp)
    payload = text.encode("utf-8")
    with _connected(store) as conn, _immediate(conn, store):
        texts = _check_unchanged(conn, store, session, session_id)
        mark = _check_projection(conn, store, session_id, leaf)
        after, _ = with_inserted(texts, None, text)
        seq = after[-1][0]
        saved = backup_store(store, backup_dir, f"{seq}.{(session.source_sha256 or '')[:16]}")
        size_after, sha_after = fingerprint(after)
        pending = PendingWrite(
            proposal_id=proposal_id,
            session_id=session.id,
            path=str(path),
            how="insert",
            entry_id=event_id,
            size_before=session.source_size or 0,
            sha_before=session.source_sha256 or "",
            payload_size=len(payload),
            payload_sha=sha256_hex(payload),
            size_after=size_after,
            sha_after=sha_after,
            backup_path=str(saved),
            payload=text,
            undo_state={
                "seq": seq,
                "parent": leaf,
                "active_position": int(mark["active_event_count"]),
                "watermark_updated_at": mark["updated_at"],
            },
        )
        on_prepared(pending)
        _insert(conn, session_id, seq, event_id, leaf, text, int(mark["active_event_count"]))
    entry = Entry(
        id=event_id,
        parentId=leaf,
        type="compaction",
        timestamp=stamp,
        compaction=record.model_copy(deep=True),
        line=seq,
        raw_line=text,
    )
    return WrittenBack(entry=entry, pending=pending)


def _insert(
    conn: sqlite3.Connection, session_id: str, seq: int, event_id: str, parent: str, text: str, position: int
) -> None:
    """The rows OpenClaw's forward index writes for one appended compaction event (no FTS row: not a message)."""
    now = int(time.time() * 1000)
    conn.execute(
        "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)",
        (session_id, seq, text, now),
    )
    conn.execute(
        "INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, created_at)"
        " VALUES (?, ?, ?, 'compaction', ?, ?)",
        (session_id, event_id, seq, parent, now),
    )
    conn.execute(
        "INSERT INTO session_transcript_active_events"
        " (session_id, active_position, event_seq, message_position, context_eligible) VALUES (?, ?, ?, NULL, 1)",
        (session_id, position, seq),
    )
    conn.execute(
        "UPDATE session_transcript_index_state SET indexed_seq = ?, leaf_event_id = ?,"
        " active_event_count = active_event_count + 1, updated_at = ? WHERE session_id = ?",
        (seq, event_id, now, session_id),
    )


# -- recovery -------------------------------------------------------------------------


def recover(pending: PendingWrite) -> Recovery:
    """Whether an interrupted write-back committed: its event is in the store (one transaction: all or nothing)."""
    store, session_id = split_ref(pending.path)
    if session_id is None or not store.is_file():
        return Recovery(state="unknown", message=f"{pending.path}: the OpenClaw store is not there")
    try:
        with _connected(store) as conn:
            row = conn.execute(
                "SELECT seq FROM transcript_event_identities WHERE session_id = ? AND event_id = ?",
                (session_id, pending.entry_id),
            ).fetchone()
    except (sqlite3.Error, WriteBackRefused) as exc:
        return Recovery(state="unknown", message=f"{pending.path}: cannot read the OpenClaw store ({exc})")
    if row is not None:
        return Recovery(
            state="written", message=f"{pending.path}: the compaction event {pending.entry_id} is in the store"
        )
    return Recovery(state="not-written", message=f"{pending.path}: the transaction had not committed; nothing changed")


# -- undo -----------------------------------------------------------------------------


def undo(pending: PendingWrite, *, backup_dir: Path, from_backup: bool = False) -> UndoResult:
    """Delete exactly the rows the write-back added, in one transaction, when OpenClaw added nothing after them.

    Otherwise refuse naming what is possible: the backup of the whole database
    (`from_backup`), a copy of the store as it is now kept first.
    """
    store, session_id = split_ref(pending.path)
    if session_id is None:
        raise WriteBackRefused(f"{pending.path}: not a session of an OpenClaw store")
    if from_backup:
        return _restore_backup(store, pending, backup_dir)
    state = pending.undo_state
    seq = state.get("seq")
    if not isinstance(seq, int):
        raise WriteBackRefused(f"{pending.path}: the write-back record holds no row keys; undo with --from-backup")
    with _connected(store) as conn, _immediate(conn, store):
        texts = _texts(conn, store, session_id)
        size, digest = fingerprint(texts)
        if digest == pending.sha_before:
            raise WriteBackRefused(f"{pending.path} is already as it was before the write-back")
        ours = dict(texts).get(seq)
        if ours != pending.payload:
            raise UndoNeedsChoice(
                f"{pending.path}: cutline's compaction event is no longer in the store as written; "
                "the rows cannot be taken back — undo with --from-backup"
            )
        later = [s for s, _ in texts if s > seq]
        mark = _watermark(conn, session_id)
        if later or mark is None or mark["leaf_event_id"] != pending.entry_id or mark["indexed_seq"] != seq:
            added = f"OpenClaw wrote {len(later)} event(s) after the compaction" if later else "OpenClaw moved its leaf"
            raise UndoNeedsChoice(
                f"{added}; the rows cannot be taken back exactly — undo with --from-backup "
                "(restores the whole store as it was before the write-back; a copy of it now is kept)"
            )
        _delete(conn, session_id, seq, pending)
        size, digest = fingerprint(_texts(conn, store, session_id))
        if digest != pending.sha_before:
            raise WriteBackRefused(
                f"{pending.path}: removing the rows did not give the session back as it was; nothing changed"
            )
    return UndoResult(
        how="exact",
        message=f"{pending.path}: the compaction event and its projection rows were removed; the session is as it was",
        size_after=size,
        sha_after=digest,
    )


def _delete(conn: sqlite3.Connection, session_id: str, seq: int, pending: PendingWrite) -> None:
    state = pending.undo_state
    position = state.get("active_position")
    found = conn.execute(
        "SELECT active_position FROM session_transcript_active_events WHERE session_id = ? AND event_seq = ?",
        (session_id, seq),
    ).fetchall()
    if [row[0] for row in found] != [position]:
        raise UndoNeedsChoice(f"{pending.path}: OpenClaw re-projected the session since; undo with --from-backup")
    conn.execute(
        "DELETE FROM session_transcript_active_events WHERE session_id = ? AND event_seq = ?", (session_id, seq)
    )
    conn.execute(
        "DELETE FROM transcript_event_identities WHERE session_id = ? AND event_id = ?", (session_id, pending.entry_id)
    )
    conn.execute("DELETE FROM transcript_events WHERE session_id = ? AND seq = ?", (session_id, seq))
    conn.execute(
        "UPDATE session_transcript_index_state SET indexed_seq = ?, leaf_event_id = ?,"
        " active_event_count = active_event_count - 1, updated_at = ? WHERE session_id = ?",
        (seq - 1, state.get("parent"), state.get("watermark_updated_at"), session_id),
    )


def _restore_backup(store: Path, pending: PendingWrite, backup_dir: Path) -> UndoResult:
    """The whole database back from the backup (SQLite's backup API into the live file), the store as now kept first."""
    if not pending.backup_path or not Path(pending.backup_path).is_file():
        raise WriteBackRefused(f"{pending.path}: the backup {pending.backup_path} is not there")
    _, session_id = split_ref(pending.path)
    try:
        original = sqlite3.connect(f"{Path(pending.backup_path).resolve().as_uri()}?mode=ro", uri=True)
        try:
            digest = fingerprint(_texts(original, store, session_id or ""))[1]
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
