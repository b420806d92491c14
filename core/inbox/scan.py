"""Compactions found after the fact: a scan of every agent's session folders puts the new ones in the inbox.

No agent waits on these: pi, Claude Code, Codex, Qwen Code, OpenClaw or opencode compacted on its own and
went on. The person can read the agent's summary, write a better one back (`cutline inbox edit`,
then `cutline accept`) or dismiss it (`cutline inbox dismiss`).

Cheap by construction: every session file the discovery lists is stat'ed; only a file whose
(device, inode, size, mtime) changed is read, and only from where the last scan stopped (the
byte offset after its last whole line; an OpenClaw store from its last event's rowid, an opencode
store from the latest message update it saw). A file
that shrank or was replaced (another inode) is read again from its start. A compaction is
known by its file and its entry id (Codex: its line number; opencode: its store, session and
compaction message id), so a file read again lists
nothing twice; compactions cutline wrote back itself are not listed.

The first scan of a store is a baseline: the compactions already on disk are remembered, not
listed (a machine with months of sessions would otherwise fill the inbox), unless asked for
(`include_existing`). Files that appear later are new sessions: all their compactions are listed.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cutline.core.agents.entries import StableIds
from cutline.core.errors import CutlineError
from cutline.core.inbox.items import Inbox, InboxItem, NewItem
from cutline.core.store import Store

AFTER_THE_FACT = "after the fact"
READ_CHUNK = 1 << 20
UNREADABLE = "an encrypted remote compaction: its summary is readable only by the model, not here"

_SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS inbox_scanned (
        path TEXT PRIMARY KEY,
        device INTEGER NOT NULL,
        inode INTEGER NOT NULL,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        position INTEGER NOT NULL,
        line INTEGER NOT NULL DEFAULT 0,
        session_id TEXT
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS inbox_found (
        path TEXT NOT NULL,
        compaction TEXT NOT NULL,
        item_id TEXT,
        PRIMARY KEY (path, compaction)
    )
    """,
    "CREATE TABLE IF NOT EXISTS inbox_scan_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)


@dataclass(frozen=True)
class Found:
    """One compaction a session file holds, as the scan reads it."""

    key: str  # the compaction's entry id (Codex: an id made from the rollout's id and the line number)
    session_id: str | None
    summary: str | None
    tokens_before: int | None = None
    unreadable: str | None = None  # why the summary cannot be read


@dataclass
class ScanReport:
    """What a scan looked at and what it put in the inbox (the counts are the cost test's measure)."""

    files: int = 0  # stat'ed
    files_read: int = 0
    bytes_read: int = 0
    baseline: bool = False
    known: int = 0  # compactions remembered without being listed (the baseline)
    items: list[InboxItem] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


# -- recognising a compaction in one JSONL line, per agent ------------------------------------------------------

# the bytes a line must hold to be worth parsing (most lines are not compactions)
_MARKS: dict[str, tuple[bytes, ...]] = {
    "pi": (b'"compaction"',),
    "claude-code": (b"compact_boundary", b"isCompactSummary"),
    "codex": (b'"compacted"', b"session_meta"),
    "qwen-code": (b"chat_compression",),
}


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [str(b["text"]) for b in value if isinstance(b, dict) and isinstance(b.get("text"), str)]
        return "\n".join(parts) if parts else None
    return None


class _LineReader:
    """Turns the lines of one file into compactions; keeps what a later line needs (Claude Code's summary)."""

    def __init__(self, agent: str, session_id: str | None) -> None:
        self.agent = agent
        self.session_id = session_id
        self.found: list[Found] = []

    def line(self, number: int, value: dict[str, Any]) -> None:
        getattr(self, "_" + self.agent.replace("-", "_"))(number, value)

    def _pi(self, number: int, value: dict[str, Any]) -> None:
        if value.get("type") == "session" and isinstance(value.get("id"), str):
            self.session_id = value["id"]
        if value.get("type") == "compaction" and isinstance(value.get("id"), str):
            tokens = value.get("tokensBefore")
            self.found.append(
                Found(
                    value["id"],
                    self.session_id,
                    _text(value.get("summary")),
                    tokens if isinstance(tokens, int) else None,
                )
            )

    def _claude_code(self, number: int, value: dict[str, Any]) -> None:
        if value.get("type") == "system" and value.get("subtype") == "compact_boundary":
            meta = value.get("compactMetadata")
            tokens = meta.get("preTokens") if isinstance(meta, dict) else None
            session = value.get("sessionId")
            self.found.append(
                Found(
                    str(value.get("uuid") or f"line:{number}"),
                    session if isinstance(session, str) else self.session_id,
                    None,
                    tokens if isinstance(tokens, int) else None,
                )
            )
        elif value.get("isCompactSummary") is True and self.found and self.found[-1].summary is None:
            message = value.get("message")
            summary = _text(message.get("content")) if isinstance(message, dict) else None
            last = self.found[-1]
            self.found[-1] = Found(last.key, last.session_id, summary, last.tokens_before)

    def _codex(self, number: int, value: dict[str, Any]) -> None:
        from cutline.core.agents.codex.reader import is_encrypted_item

        payload = value.get("payload")
        if not isinstance(payload, dict):
            return
        if value.get("type") == "session_meta" and isinstance(payload.get("id"), str):
            self.session_id = payload["id"]
        if value.get("type") != "compacted":
            return
        history = payload.get("replacement_history")
        encrypted = is_encrypted_item(payload) or (
            isinstance(history, list) and any(is_encrypted_item(item) for item in history)
        )
        message = payload.get("message")
        summary = message if isinstance(message, str) and message else None
        # the id cutline's Codex reader gives this line, so a compaction cutline wrote back is recognised
        key = StableIds(self.session_id).make(number) if self.session_id else f"line:{number}"
        self.found.append(Found(key, self.session_id, summary, None, UNREADABLE if encrypted and not summary else None))

    def _qwen_code(self, number: int, value: dict[str, Any]) -> None:
        if value.get("type") != "system" or value.get("subtype") != "chat_compression":
            return
        from cutline.core.agents.qwen_code.reader import compaction_fields

        payload = value.get("systemPayload")
        summary = compaction_fields(payload)["summary"] if isinstance(payload, dict) else None
        session = value.get("sessionId")
        self.found.append(
            Found(
                str(value.get("uuid") or f"line:{number}"),
                session if isinstance(session, str) else self.session_id,
                summary or None,
            )
        )


def read_jsonl(
    path: Path, agent: str, start: int, first_line: int, session_id: str | None
) -> tuple[list[Found], int, int, str | None, int]:
    """The compactions in `path` from byte `start` (line `first_line`) to its last whole line.

    Returns them, the byte offset after the last whole line, the number of the next line, the
    session id learned, and the bytes read. A partly written last line is left for the next scan.
    """
    marks = _MARKS[agent]
    reader = _LineReader(agent, session_id)
    position = start
    number = first_line
    read = 0
    carry = b""
    with path.open("rb") as handle:
        handle.seek(start)
        while chunk := handle.read(READ_CHUNK):
            read += len(chunk)
            data = carry + chunk
            end = data.rfind(b"\n")
            if end < 0:
                carry = data
                continue
            for raw in data[: end + 1].split(b"\n")[:-1]:
                number += 1
                if any(mark in raw for mark in marks):
                    try:
                        value = json.loads(raw)
                    except ValueError:
                        value = None
                    if isinstance(value, dict):
                        reader.line(number, value)
            position += end + 1
            carry = data[end + 1 :]
    return reader.found, position, number, reader.session_id, read


def read_opencode(path: Path, since_ms: int) -> tuple[list[tuple[str, Found]], int, int]:
    """The finished compactions of an opencode store whose summary message changed at or after `since_ms`.

    A compaction is known by its user message (the one with a `compaction` part: the reader's
    compaction entry id); it counts once its summary message (assistant, `summary: true`) has
    finished without error, which opencode records by updating that row, so the scan goes on
    from the latest `time_updated` it saw (rows of that same millisecond are read again; the
    inbox_found table lists each compaction once). Returns (ref, found) pairs, the position, bytes read.
    """
    from cutline.core.agents.opencode.reader import summary_text
    from cutline.core.agents.store_refs import session_ref

    found: list[tuple[str, Found]] = []
    last = since_ms
    read = 0
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
    try:
        rows = conn.execute(
            "SELECT id, session_id, time_updated, data FROM message WHERE time_updated >= ? ORDER BY time_updated, id",
            (since_ms,),
        ).fetchall()
        for message_id, session, updated, data in rows:
            last = max(last, int(updated))
            read += len(data) if isinstance(data, str) else 0
            if not isinstance(data, str) or ('"summary":true' not in data and '"summary": true' not in data):
                continue
            try:
                info = json.loads(data)
            except ValueError:
                continue
            if not isinstance(info, dict) or info.get("role") != "assistant" or info.get("summary") is not True:
                continue
            parent = info.get("parentID")
            if not info.get("finish") or info.get("error") or not isinstance(parent, str):
                continue
            parts = []
            for (text,) in conn.execute("SELECT data FROM part WHERE message_id = ? ORDER BY id", (message_id,)):
                read += len(text) if isinstance(text, str) else 0
                try:
                    value = json.loads(text)
                except (TypeError, ValueError):
                    continue
                if isinstance(value, dict):
                    parts.append(value)
            found.append(
                (session_ref(path, str(session)), Found(parent, str(session), summary_text(parts) or None, None))
            )
    finally:
        conn.close()
    return found, last, read


def read_openclaw(path: Path, after_rowid: int) -> tuple[list[tuple[str, Found]], int, int]:
    """The compaction events of an OpenClaw store after `after_rowid`: (ref, found) pairs, the last rowid, bytes read."""
    from cutline.core.agents.openclaw.store import _decompress

    found: list[tuple[str, Found]] = []
    last = after_rowid
    read = 0
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
    try:
        rows = conn.execute(
            "SELECT rowid, session_id, seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events"
            " WHERE rowid > ? ORDER BY rowid",
            (after_rowid,),
        )
        for rowid, session, seq, text, blob, size in rows:
            last = max(last, int(rowid))
            if not isinstance(text, str):
                if not isinstance(blob, bytes):
                    continue
                read += len(blob)
                try:
                    text = _decompress(blob, size)
                except Exception:  # a bad event is the reader's to report, not the scan's
                    continue
            read += len(text)
            if '"compaction"' not in text:
                continue
            try:
                event = json.loads(text)
            except ValueError:
                continue
            if not isinstance(event, dict) or event.get("type") != "compaction":
                continue
            tokens = event.get("tokensBefore")
            key = event.get("id") if isinstance(event.get("id"), str) else f"seq:{seq}"
            found.append(
                (
                    f"{path}#{session}",
                    Found(
                        str(key), str(session), _text(event.get("summary")), tokens if isinstance(tokens, int) else None
                    ),
                )
            )
    finally:
        conn.close()
    return found, last, read


# the agents whose sessions live in a SQLite store (a position is a rowid / a time, not a byte offset)
_STORES = ("openclaw", "opencode")

# -- the scan ----------------------------------------------------------------------------------------------------


def session_files(env: Mapping[str, str] | None = None, home: Path | None = None) -> list[tuple[str, Path]]:
    """(agent, file) for every session file each agent keeps, as `cutline ls --all` finds them (not read)."""
    from cutline.core.agents.registry import ADAPTERS

    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home()) if home is None else home
    out: list[tuple[str, Path]] = []
    for adapter in ADAPTERS:
        agent = _agent(adapter.format)
        if agent is None:
            continue
        try:
            files = adapter.session_files(env, home)
        except OSError:
            continue
        out.extend((agent, path) for path in files)
    return out


def _agent(fmt: str) -> str | None:
    """The agent's name as the inbox writes it (its hooks' names) for a reader's format."""
    name = fmt.replace("_", "-")
    return name if name in ("openclaw", "opencode", "claude-code", "codex", "qwen-code", "pi") else None


def _signature(path: Path, agent: str) -> tuple[int, int, int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    size, mtime = info.st_size, info.st_mtime_ns
    if agent in _STORES:  # their writes land in the -wal first
        try:
            wal = os.stat(f"{path}-wal")
            size, mtime = size + wal.st_size, max(mtime, wal.st_mtime_ns)
        except OSError:
            pass
    return info.st_dev, info.st_ino, size, mtime


class Scanner:
    """The scan's memory in one store: what each file was like, and which compactions are known."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.inbox = Inbox(store)
        self._db = store.database
        with self._db.transaction() as conn:
            for statement in _SCHEMA:
                conn.execute(statement)

    def _written_by_cutline(self, path: str) -> set[str]:
        """The entry ids of the compactions cutline itself wrote into `path` (an accepted proposal's write-back)."""
        resolved = str(Path(path).resolve())
        rows = self._db.rows(  # an OpenClaw store's sessions are written to as STORE#SESSION
            "SELECT entry_id FROM decisions WHERE entry_id IS NOT NULL"
            " AND (written_to IN (?, ?) OR substr(written_to, 1, length(?) + 1) = ? || '#'"
            " OR substr(written_to, 1, length(?) + 1) = ? || '#')",
            (path, resolved, path, path, resolved, resolved),
        )
        return {str(r["entry_id"]) for r in rows}

    def scan(
        self,
        files: Iterable[tuple[str, Path]],
        *,
        include_existing: bool = False,
        on_item: Callable[[InboxItem], None] | None = None,
    ) -> ScanReport:
        """Look at every file; read what changed; put new compactions in the inbox (see the module's docstring)."""
        report = ScanReport()
        baseline = self._db.one("SELECT value FROM inbox_scan_meta WHERE key = 'baseline'") is None
        report.baseline = baseline and not include_existing
        for agent, path in files:
            report.files += 1
            try:
                self._scan_file(agent, path, report, list_them=not report.baseline, on_item=on_item)
            except (OSError, sqlite3.Error, CutlineError) as exc:
                report.problems.append(f"{path}: cannot scan it ({exc})")
        if baseline:
            with self._db.transaction() as conn:
                conn.execute("INSERT OR IGNORE INTO inbox_scan_meta (key, value) VALUES ('baseline', datetime('now'))")
        return report

    def scan_one(self, agent: str, path: Path, on_item: Callable[[InboxItem], None] | None = None) -> ScanReport:
        """One file an agent names (Codex's PostCompact hook): what is new in it is listed; the baseline is untouched."""
        report = ScanReport(files=1)
        self._scan_file(agent, path, report, list_them=True, on_item=on_item)
        return report

    def _scan_file(
        self,
        agent: str,
        path: Path,
        report: ScanReport,
        *,
        list_them: bool,
        on_item: Callable[[InboxItem], None] | None,
    ) -> None:
        key = str(path)
        signature = _signature(path, agent)
        if signature is None:
            return
        device, inode, size, mtime = signature
        row = self._db.one(
            "SELECT device, inode, size, mtime_ns, position, line, session_id FROM inbox_scanned WHERE path = ?", (key,)
        )
        if row is not None and (row["device"], row["inode"], row["size"], row["mtime_ns"]) == signature:
            return  # unchanged: not opened
        start, line, session_id = 0, 0, None
        same_file = row is not None and (row["device"], row["inode"]) == (device, inode)
        # a store's -wal shrinks at a checkpoint; its rowids go on: only a JSONL that shrank is read again
        if row is not None and same_file and (agent in _STORES or size >= row["size"]):
            start, line, session_id = int(row["position"]), int(row["line"]), row["session_id"]
        report.files_read += 1
        pairs: list[tuple[str, Found]]
        if agent == "openclaw":
            pairs, position, read = read_openclaw(path, start)
        elif agent == "opencode":
            pairs, position, read = read_opencode(path, start)
        else:
            found, position, line, session_id, read = read_jsonl(path, agent, start, line, session_id)
            pairs = [(key, f) for f in found]
        report.bytes_read += read
        written = self._written_by_cutline(key) if pairs else set()
        for ref, one in pairs:
            if one.key in written:
                continue
            known_as = ref if agent == "opencode" else key  # opencode: by store and session, then message id
            with self._db.transaction() as conn:
                taken = conn.execute(
                    "INSERT OR IGNORE INTO inbox_found (path, compaction, item_id) VALUES (?, ?, NULL)",
                    (known_as, one.key),
                ).rowcount
            if not taken:
                continue
            if not list_them:
                report.known += 1
                continue
            item = self._add(agent, ref, one)
            with self._db.transaction() as conn:
                conn.execute(
                    "UPDATE inbox_found SET item_id = ? WHERE path = ? AND compaction = ?", (item.id, known_as, one.key)
                )
            report.items.append(item)
            if on_item is not None:
                on_item(item)
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO inbox_scanned (path, device, inode, size, mtime_ns, position, line, session_id)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO UPDATE SET device = excluded.device,"
                " inode = excluded.inode, size = excluded.size, mtime_ns = excluded.mtime_ns,"
                " position = excluded.position, line = excluded.line, session_id = excluded.session_id",
                (key, device, inode, size, mtime, position, line, session_id),
            )

    def _add(self, agent: str, ref: str, one: Found) -> InboxItem:
        notes = [f"found after the fact: {agent} compacted on its own and went on; no agent waits"]
        if one.unreadable:
            notes.append(f"unreadable: {one.unreadable}; the messages around it can still be reviewed")
        item = self.inbox.add(
            NewItem(
                agent=agent,
                live=False,
                found=True,
                session_file=ref,
                agent_session_id=one.session_id,
                reason=AFTER_THE_FACT,
                tokens_before=one.tokens_before,
                request={
                    "agent": agent,
                    "sessionFile": ref,
                    "sessionId": one.session_id,
                    "found": {"compaction": one.key, "summary": one.summary, "unreadable": one.unreadable},
                },
            )
        )
        for note in notes:
            self.inbox.note(item.id, note)
        return self.inbox.get(item.id)


def scan(
    store: Store,
    *,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    include_existing: bool = False,
    on_item: Callable[[InboxItem], None] | None = None,
) -> ScanReport:
    """Scan every agent's session folders (as `env` and `home` place them) into `store`'s inbox."""
    return Scanner(store).scan(session_files(env, home), include_existing=include_existing, on_item=on_item)
