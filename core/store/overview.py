"""What `cutline show` prints of a stored session: header facts, counts by type and role, compactions, the active path."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from cutline.core.agents import deep_json
from cutline.core.models import Entry, Problem
from cutline.core.store.listing import SessionInfo
from cutline.core.store.token_counts import count_entries

if TYPE_CHECKING:
    from cutline.core.store import Store


class PathLine(BaseModel):
    """One entry of the active path as `cutline show` lists it."""

    index: int
    id: str
    type: str
    role: str | None = None
    timestamp: str | None = None
    preview: str = ""
    tokens: int | None = Field(default=None, description="chars4 tokens, when counted")


class CompactionInfo(BaseModel):
    """A compaction entry of a stored session."""

    id: str
    seq: int
    path_index: int | None = None
    timestamp: str | None = None
    tokens_before: int = 0
    first_kept_entry_id: str | None = None
    summary_chars: int = 0


class SessionOverview(BaseModel):
    """What `cutline show` prints: the session's header facts, counts, compactions and active path."""

    info: SessionInfo
    cwd: str | None = None
    header: dict[str, Any] = Field(default_factory=dict)
    problems: list[Problem] = Field(default_factory=list)
    counts_by_type: dict[str, int] = Field(default_factory=dict)
    counts_by_role: dict[str, int] = Field(default_factory=dict)
    compactions: list[CompactionInfo] = Field(default_factory=list)
    path_tokens: int | None = Field(default=None, description="chars4 tokens of the whole active path, when counted")
    path: list[PathLine] = Field(default_factory=list)


def overview(store: Store, ref: str) -> SessionOverview:
    """Header facts, counts, compactions and the active path (with chars4 tokens, counted once and cached)."""
    session = store.sessions.load(ref)
    info = store.sessions.info(session.id)
    path = session.active_path()
    tokens = count_entries(store, session, "chars4")
    info.tokens = sum(tokens.get(entry.id, 0) for entry in path)
    by_type: dict[str, int] = {}
    by_role: dict[str, int] = {}
    for entry in session.entries:
        by_type[entry.type] = by_type.get(entry.type, 0) + 1
        if entry.role is not None:
            by_role[entry.role] = by_role.get(entry.role, 0) + 1
    on_path = {id(entry): i for i, entry in enumerate(path)}
    compactions = [
        CompactionInfo(
            id=entry.id,
            seq=seq,
            path_index=on_path.get(id(entry)),
            timestamp=entry.timestamp,
            tokens_before=entry.compaction.tokensBefore if entry.compaction else 0,
            first_kept_entry_id=entry.compaction.firstKeptEntryId if entry.compaction else None,
            summary_chars=len(entry.compaction.summary) if entry.compaction else 0,
        )
        for seq, entry in enumerate(session.entries)
        if entry.type == "compaction"
    ]
    return SessionOverview(
        info=info,
        cwd=session.cwd,
        header=session.header,
        problems=session.problems,
        counts_by_type=by_type,
        counts_by_role=by_role,
        compactions=compactions,
        path_tokens=info.tokens,
        path=[
            PathLine(
                index=i,
                id=entry.id,
                type=entry.type,
                role=entry.role,
                timestamp=entry.timestamp,
                preview=entry_preview(entry),
                tokens=tokens.get(entry.id),
            )
            for i, entry in enumerate(path)
        ],
    )


def entry_preview(entry: Entry, width: int = 72) -> str:
    """One line that tells a person what an entry is: its text, its tool calls, or its payload."""
    text = ""
    if entry.message is not None:
        message = entry.message
        text = message.text()
        calls = message.tool_calls()
        if calls:
            names = ", ".join(f"{call.name}({_compact_json(call.arguments)})" for call in calls)
            text = f"{text} -> {names}" if text else f"-> {names}"
        if not text and any(getattr(block, "type", None) == "thinking" for block in message.content):
            text = "[thinking] " + " ".join(getattr(b, "thinking", "") for b in message.content)
        if message.role == "toolResult" and message.isError:
            text = f"[error] {text}"
        if not text and message.has_image():
            text = "[image]"
    elif entry.compaction is not None:
        text = entry.compaction.summary
    elif entry.data:
        text = _compact_json(entry.data)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _compact_json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except RecursionError:  # nested past json's recursion: every value read from a line is JSON's own kind
        return deep_json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
