"""Every agent's sessions on this machine, found where each agent keeps them, newest first, without reading them.

Each adapter knows its agent's folders (`AgentAdapter.session_files`, honouring the
agent's own environment variables) and how to peek at a file's head (`AgentAdapter.peek`).
A file that cannot be looked at becomes a one-line problem, never an error.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field

from cutline.core.agents.registry import ADAPTERS
from cutline.core.errors import CutlineError


class FoundSession(BaseModel):
    """One session an agent keeps on this machine, as a listing shows it."""

    agent: str  # the agent's name as people write it
    format: str  # `Session.format` of its reader
    ref: str  # what to open: the file, or STORE#SESSION_ID
    session_id: str | None = None
    version: str | None = None  # the program's version where the file says it, else the file format's
    cwd: str | None = None
    size: int = 0
    modified: str = ""  # ISO 8601, UTC
    stored: bool = False  # already in cutline's store (filled by the caller, which has the store)


class Discovery(BaseModel):
    """The sessions found and what could not be looked at."""

    sessions: list[FoundSession] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(seconds * 1000) % 1000:03d}Z"


def discover(env: Mapping[str, str] | None = None, home: Path | None = None) -> Discovery:
    """Every session each agent keeps under `home` (default: the user's) as `env` (default: os.environ) places them."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home()) if home is None else home
    found = Discovery()
    for adapter in ADAPTERS:
        try:
            files = adapter.session_files(env, home)
        except OSError as exc:
            found.problems.append(f"{adapter.label}: cannot list its sessions ({exc.strerror or exc})")
            continue
        for path in files:
            try:
                peeks = adapter.peek(path.resolve())
            except (OSError, CutlineError) as exc:
                found.problems.append(str(exc) if isinstance(exc, CutlineError) else f"{path}: {exc.strerror or exc}")
                continue
            for peek in peeks:
                found.sessions.append(
                    FoundSession(
                        agent=adapter.label,
                        format=adapter.format,
                        ref=peek.ref,
                        session_id=peek.session_id,
                        version=peek.version,
                        cwd=peek.cwd,
                        size=peek.size,
                        modified=_iso(peek.modified),
                    )
                )
    found.sessions.sort(key=lambda s: (s.modified, s.ref), reverse=True)
    return found
