"""What a command's session argument names on disk: a session file, or one session of an OpenClaw store (`STORE#SESSION_ID`)."""

from __future__ import annotations

from pathlib import Path

from cutline.core.agents.store_refs import session_ref, split_ref


def session_file(ref: str | Path) -> Path | None:
    """The session file `ref` names (`STORE#SESSION_ID` kept whole), or None when it names no existing file."""
    file, session = split_ref(ref)
    if not file.is_file():
        return None
    return Path(session_ref(file, session)) if session is not None else file
