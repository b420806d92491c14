"""Noticing that an agent wrote more to a session: a cheap signature of its source that changes when it grows.

Why: the desk follows a session the agent is still writing by polling this (no file
watching library); the store's importer then adds only what was appended.
"""

from __future__ import annotations

import os

from cutline.core.agents.store_refs import split_ref

Signature = tuple[tuple[int, int], ...]


def source_signature(ref: str) -> Signature | None:
    """Size and modification time of a session's file (an OpenClaw store with its -wal), or None when it is gone."""
    file, session = split_ref(ref)
    paths = [str(file), f"{file}-wal"] if session is not None else [str(file)]
    parts: list[tuple[int, int]] = []
    for path in paths:
        try:
            stat = os.stat(path)
        except OSError:
            if path == str(file):
                return None
            parts.append((-1, -1))
            continue
        parts.append((stat.st_size, stat.st_mtime_ns))
    return tuple(parts)
