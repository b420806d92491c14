"""Turning a command's FILE_OR_SESSION argument into a stored session: one rule for every command.

A file is imported on the fly (again only if it changed); anything else names a stored
session (id, id prefix, name or file path). Only pathlib is imported at module level so
the CLI starts fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cutline.app.quick_exit import hold_until_exit
from cutline.core.errors import CutlineError, NotFoundError


def resolve_stored(store: Any, ref: str) -> str:
    """A stored session's id; a directory that names no stored session is said to be one."""
    try:
        return str(store.resolve_session(ref))
    except NotFoundError as exc:
        from cutline.core.store import AmbiguousSessionError

        if not isinstance(exc, AmbiguousSessionError) and Path(ref).expanduser().is_dir():
            raise CutlineError(f"{ref}: is a directory (give a session file or a stored session)") from None
        raise


def session_file(ref: str) -> Path | None:
    """The session file `ref` names (an OpenClaw store's session `STORE#SESSION_ID` included), or None."""
    from cutline.core.agents.refs import session_file as named_file

    return named_file(ref)


def session_id_for(store: Any, ref: str) -> str:
    """The stored session id `ref` names; a session file is imported first (again only if it changed)."""
    candidate = session_file(ref)
    if candidate is not None:
        return str(store.import_file(candidate).session_id)
    return resolve_stored(store, ref)


def open_counted(store: Any, ref: str, counter: str | None) -> tuple[Any, dict[str, int] | None]:
    """The session `ref` names, and, for a file and a stored counter, its per-entry counts made while reading it.

    Why: counting each entry in the same pass that reads and imports it, and caching the
    counts in the import's transaction, spares a second walk over a big session.
    """
    candidate = session_file(ref)
    if candidate is not None:
        count = None
        if counter is not None and counter != "calibrated":
            from cutline.core.tokens import entry_tokens, get_counter

            instance = get_counter(counter)

            def count(entry: Any) -> int:
                return entry_tokens(entry, instance)

        opened = store.import_and_read(candidate, count, counter or "chars4")
        hold_until_exit(opened.session)
        return opened.session, opened.counts
    return load_held(store, resolve_stored(store, ref)), None


def load_held(store: Any, session_id: str) -> Any:
    """`store.load_session`, the session held to the end of the process (see `cutline.app.quick_exit`)."""
    session = store.load_session(session_id)
    hold_until_exit(session)
    return session


def stored_unless_other_agent(store: Any, ref: str) -> str | None:
    """The stored session id `ref` names, unless it is a file pi's reader does not read (then None, and nothing is imported).

    A file whose first line is a pi or OpenClaw session header, or an OpenClaw store, is
    imported first (again only if it changed), without keeping its entries; a stored
    session is named as usual. Why: such a session's path can be read from the store's
    columns (`Sessions.path_columns`), while another agent's file is best read once and
    used as read (`open_session`).
    """
    candidate = session_file(ref)
    if candidate is None:
        return resolve_stored(store, ref)
    if not _read_by_pi(candidate):
        return None
    return str(store.import_file(candidate).session_id)


def _read_by_pi(path: Path) -> bool:
    """Whether a file is an OpenClaw store or its first line a session header (pi's, or OpenClaw's version 4 and up)."""
    from cutline.core.agents.openclaw.store import is_store_ref
    from cutline.core.agents.peek import session_header

    return is_store_ref(path) or session_header(path) is not None


def open_session(store: Any, ref: str) -> Any:
    """The session `ref` names; a file is read once, imported (or refreshed) in the store, and used as read."""
    return open_counted(store, ref, None)[0]
