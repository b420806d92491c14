"""The session list: its rows (`SessionInfo`), the names people see and the shortest unique id prefixes.

Apart from `sessions` (which reads whole sessions and their entries), so `cutline ls` imports
neither the entry models, their readers nor pydantic.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cutline.core.store.db import Row, StoreDatabase

LIST_SESSIONS = """
    SELECT s.*,
        (SELECT count(*) FROM entries e WHERE e.session_id = s.id AND e.type = 'compaction') AS compactions,
        s.path_tokens AS tokens,
        (SELECT CASE WHEN w.state = 'undone' AND p.status = 'open' THEN 'undone' ELSE d.decision END
            FROM decisions d LEFT JOIN proposals p ON p.id = d.proposal_id
            LEFT JOIN write_backs w ON w.proposal_id = d.proposal_id WHERE d.session_id = s.id
            ORDER BY d.decided_at DESC, d.id DESC LIMIT 1) AS last_decision,
        (SELECT CASE WHEN w.state = 'undone' AND p.status = 'open' THEN w.updated_at ELSE d.decided_at END
            FROM decisions d LEFT JOIN proposals p ON p.id = d.proposal_id
            LEFT JOIN write_backs w ON w.proposal_id = d.proposal_id WHERE d.session_id = s.id
            ORDER BY d.decided_at DESC, d.id DESC LIMIT 1) AS last_decision_at,
        (SELECT count(*) FROM proposals p WHERE p.session_id = s.id AND p.status = 'open') AS open_proposals
    FROM sessions s
"""


@dataclass(kw_only=True)
class SessionInfo:
    """One row of the session list.

    A dataclass, not a pydantic model: `cutline ls` then imports no pydantic at all (~40 ms of
    its start-up, with the first schema build's plugin scan); pydantic still dumps it field by
    field where it is part of a model or a `TypeAdapter` (`ls --json`, `show --json`).
    """

    id: str
    name: str
    source_path: str | None = None
    format: str
    version: int | None = None
    entries: int = 0
    tokens: int | None = None  # chars4 tokens of the active path, when counted
    compactions: int = 0
    # accepted, rejected, or undone (an accepted write-back taken back: its proposal is open again)
    last_decision: str | None = None
    last_decision_at: str | None = None
    open_proposals: int = 0  # proposals neither accepted nor rejected yet
    imported_at: str
    updated_at: str


def display_name(name: str | None, source_path: str | None, session_id: str) -> str:
    """The name a person sees: the session's own name, else its file's stem, else the id's start."""
    if name:
        return name
    if source_path:
        return Path(source_path).stem
    return session_id[:8]


def unique_prefixes(ids: list[str], minimum: int = 8) -> dict[str, str]:
    """The shortest prefix of each id (at least `minimum` chars) that starts no other id.

    An id that is itself the start of another id (`X` and `X-1a2b3c4d`) gets its whole self:
    `resolve` takes an exact id before prefixes, so that still names it alone.
    """
    ordered = sorted(set(ids))
    shortest: dict[str, str] = {}
    for i, session_id in enumerate(ordered):
        shared = 0
        for neighbour in ordered[max(i - 1, 0) : i] + ordered[i + 1 : i + 2]:
            common = 0
            for a, b in zip(session_id, neighbour, strict=False):
                if a != b:
                    break
                common += 1
            shared = max(shared, common)
        width = max(minimum, shared + 1)
        if session_id[width - 1 : width] == "-" and width < len(session_id):
            width += 1  # "X-" reads as cut off: show one character of the part after the dash
        shortest[session_id] = session_id[:width]
    return shortest


def session_info(row: Row) -> SessionInfo:
    """The list row of a session from a `LIST_SESSIONS` row (its columns as the importer wrote them, typed by the schema)."""
    return SessionInfo(
        id=row["id"],
        name=display_name(row["name"], row["source_path"], row["id"]),
        source_path=row["source_path"],
        format=row["format"],
        version=row["version"],
        entries=row["entry_count"],
        tokens=row["tokens"],
        compactions=row["compactions"],
        last_decision=row["last_decision"],
        last_decision_at=row["last_decision_at"],
        open_proposals=row["open_proposals"],
        imported_at=row["imported_at"],
        updated_at=row["updated_at"],
    )


def list_sessions(database: StoreDatabase) -> list[SessionInfo]:
    """Every stored session, most recently updated first."""
    return [session_info(row) for row in database.rows(LIST_SESSIONS + " ORDER BY s.updated_at DESC, s.id")]


def short_ids(database: StoreDatabase) -> dict[str, str]:
    """Every stored session id mapped to its shortest unique prefix (at least 8 chars), for listing."""
    return unique_prefixes([row["id"] for row in database.rows("SELECT id FROM sessions")])
