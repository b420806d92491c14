"""OpenClaw stores in tests: copies made with SQLite's backup API, and a session's rows as plain data to compare."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from cutline.core.agents.openclaw.sqlite_compat import ensure_octet_length
from cutline.core.agents.openclaw.store import event_texts
from cutline.core.models import Problem


def copy_store(source: Path, target: Path) -> Path:
    """A consistent copy of a store (its -wal included), made with SQLite's backup API; parents created."""
    target.parent.mkdir(parents=True, exist_ok=True)
    src = sqlite3.connect(source)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()
    return target


def session_rows(store: Path, session_id: str) -> dict[str, Any]:
    """Every row OpenClaw keeps for a session's transcript and its projection, and the decoded events."""
    conn = sqlite3.connect(store)
    try:
        problems: list[Problem] = []
        events = [json.loads(text) for _, text in event_texts(conn, session_id, str(store), problems)]
        assert not problems, problems

        def rows(sql: str) -> list[list[Any]]:
            return [[v.hex() if isinstance(v, bytes) else v for v in row] for row in conn.execute(sql, (session_id,))]

        return {
            "events": events,
            "transcript_events": rows(
                "SELECT seq, event_json, event_zstd, event_utf8_bytes, navigation_json, created_at"
                " FROM transcript_events WHERE session_id = ? ORDER BY seq"
            ),
            "identities": rows(
                "SELECT event_id, seq, event_type, parent_id, message_idempotency_key, created_at"
                " FROM transcript_event_identities WHERE session_id = ? ORDER BY seq"
            ),
            "active": rows(
                "SELECT active_position, event_seq, message_position, context_eligible"
                " FROM session_transcript_active_events WHERE session_id = ? ORDER BY active_position"
            ),
            "state": rows("SELECT * FROM session_transcript_index_state WHERE session_id = ?"),
        }
    finally:
        conn.close()


def integrity_ok(store: Path) -> bool:
    """SQLite's integrity_check on the store is `ok` (octet_length() supplied for an older SQLite)."""
    conn = sqlite3.connect(store)
    ensure_octet_length(conn)  # integrity_check evaluates the tables' CHECKs
    try:
        return conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()


def without_last_event(source: Path, target: Path, session_id: str) -> Path:
    """A copy of a store whose session's last event is taken out with its projection rows, as OpenClaw had it before.

    The inverse of appending one event: its `transcript_events` and identity rows and its
    active-path row go, and the watermark points at the event before it again.
    """
    copy_store(source, target)
    conn = sqlite3.connect(target)
    ensure_octet_length(conn)
    try:
        with conn:
            seq, position = conn.execute(
                "SELECT event_seq, active_position FROM session_transcript_active_events WHERE session_id = ?"
                " ORDER BY active_position DESC LIMIT 1",
                (session_id,),
            ).fetchone()
            assert (
                seq
                == conn.execute(
                    "SELECT max(seq) FROM transcript_events WHERE session_id = ?", (session_id,)
                ).fetchone()[0]
            ), "the last event is the end of the active path"
            parent = conn.execute(
                "SELECT parent_id FROM transcript_event_identities WHERE session_id = ? AND seq = ?", (session_id, seq)
            ).fetchone()[0]
            for table, column in (
                ("session_transcript_active_events", "event_seq"),
                ("transcript_event_identities", "seq"),
                ("transcript_events", "seq"),
            ):
                conn.execute(f"DELETE FROM {table} WHERE session_id = ? AND {column} = ?", (session_id, seq))
            conn.execute(
                "UPDATE session_transcript_index_state SET indexed_seq = ?, leaf_event_id = ?,"
                " active_event_count = ? WHERE session_id = ?",
                (seq - 1, parent, position, session_id),
            )
    finally:
        conn.close()
    return target


def append_message_event(
    conn: sqlite3.Connection,
    session_id: str,
    text: str | None = None,
    *,
    id_suffix: str = "",
    stamp: str = "2026-01-01T00:00:00.000Z",
) -> None:
    """What a running OpenClaw writes on its next turn: one message event and its projection rows, in one transaction.

    `conn` is in autocommit mode (isolation_level=None) with octet_length() available; the text
    defaults to `agent <seq>`.
    """
    conn.execute("BEGIN IMMEDIATE")
    seq, leaf, position, messages = conn.execute(
        "SELECT indexed_seq + 1, leaf_event_id, active_event_count, active_message_count"
        " FROM session_transcript_index_state WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    event_id = f"agent-{seq}{id_suffix}"
    event = {"type": "message", "id": event_id, "parentId": leaf, "timestamp": stamp}
    event["message"] = {"role": "user", "content": f"agent {seq}" if text is None else text, "timestamp": 0}
    conn.execute(
        "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, 0)",
        (session_id, seq, json.dumps(event)),
    )
    conn.execute(
        "INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, created_at)"
        " VALUES (?, ?, ?, 'message', ?, 0)",
        (session_id, event_id, seq, leaf),
    )
    conn.execute(
        "INSERT INTO session_transcript_active_events VALUES (?, ?, ?, ?, 1)", (session_id, position, seq, messages)
    )
    conn.execute(
        "UPDATE session_transcript_index_state SET indexed_seq = ?, leaf_event_id = ?, active_event_count = ?,"
        " active_message_count = ? WHERE session_id = ?",
        (seq, event_id, position + 1, messages + 1, session_id),
    )
    conn.execute("COMMIT")
