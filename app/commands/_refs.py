"""Turning a command's FILE_OR_SESSION argument into a stored session: one rule for every command.

A file is imported on the fly (again only if it changed); anything else names a stored
session (id, id prefix, name or file path). Only pathlib is imported at module level so
the CLI starts fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cutline.app.quick_exit import hold_until_exit


def resolve_stored(store: Any, ref: str) -> str:
    """A stored session's id (`workbench.resolve_stored`)."""
    from cutline.core.workbench.planning import resolve_stored as stored_id

    return stored_id(store, ref)


def session_file(ref: str) -> Path | None:
    """The session file `ref` names (an OpenClaw store's session `STORE#SESSION_ID` included), or None."""
    from cutline.core.agents.refs import session_file as named_file

    return named_file(ref)


def session_id_for(store: Any, ref: str) -> str:
    """The stored session id `ref` names; a session file is imported first (again only if it changed)."""
    from cutline.core.workbench.planning import session_id_for as stored_id

    return stored_id(store, ref)


def load_held(store: Any, session_id: str) -> Any:
    """`store.load_session`, the session held to the end of the process (see `cutline.app.quick_exit`)."""
    session = store.load_session(session_id)
    hold_until_exit(session)
    return session


def stored_unless_other_agent(store: Any, ref: str) -> str | None:
    """The stored session id `ref` names, unless it is a file whose stored path the columns cannot read (then None, and nothing is imported).

    A pi or OpenClaw session file (its first line a session header), an OpenClaw store,
    or a Claude Code or Codex file (its head holds one of their records) is imported first
    (again only if it changed), without keeping its entries; a stored session is named as
    usual. Why: such a session's path can be read from the store's columns
    (`Sessions.path_columns`), while another agent's file is best read once and used as
    read (`open_session`).
    """
    candidate = session_file(ref)
    if candidate is None:
        return resolve_stored(store, ref)
    if not _read_from_columns(candidate):
        return None
    return str(store.import_file(candidate).session_id)


def _read_from_columns(path: Path) -> bool:
    """Whether a file is an OpenClaw store, its first line a session header (pi's, OpenClaw's version 4 and up), or its head a Claude Code or Codex record."""
    from cutline.core.agents.formats import head_format
    from cutline.core.agents.peek import session_header
    from cutline.core.agents.store_refs import is_store_ref

    return is_store_ref(path) or session_header(path) is not None or head_format(path) in ("claude_code", "codex")


def open_session(store: Any, ref: str) -> Any:
    """The session `ref` names; a file is read once, imported (or refreshed) in the store, and used as read."""
    from cutline.core.workbench.planning import open_whole

    return open_whole(store, ref, hold=hold_until_exit)[0]
