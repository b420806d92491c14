"""Whether a running OpenClaw holds an agent store: a process with the database open, or a live gateway lock.

Why both: `openclaw agent --local` and the gateway keep the store open (its file, `-wal`
and `-shm`) while they run, which /proc shows; a gateway also leaves a lock file naming
its pid in `STATE/tmp/openclaw-<uid>/gateway.*.lock` (OpenClaw's gateway-lock), which
tells even where another user's /proc/PID/fd cannot be read. A write-back while OpenClaw
runs would be refused by nothing: it would hold its own idea of the transcript's leaf.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from cutline.core.agents.processes import RunningProcess, holds_open, processes

# what sits beside a SQLite database while connections have it open in WAL or rollback mode
_SIDE_FILES = ("", "-wal", "-shm", "-journal")


def state_dir(store: Path) -> Path | None:
    """OpenClaw's state directory for `STATE/agents/<id>/agent/openclaw-agent.sqlite`, None for a store elsewhere."""
    parts = store.parts
    if len(parts) >= 4 and parts[-4] == "agents" and parts[-2] == "agent":
        return store.parents[3]
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def gateway_locks(state: Path) -> list[str]:
    """Live gateways named by lock files in the state directory (`gateway 1234 (lock …)`), stale ones left out."""
    found: list[str] = []
    for lock in sorted((state / "tmp").glob("openclaw-*/gateway.*.lock")):
        try:
            payload = json.loads(lock.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        pid = payload.get("pid") if isinstance(payload, dict) else None
        if isinstance(pid, int) and not isinstance(pid, bool) and pid > 0 and pid != os.getpid() and _alive(pid):
            found.append(f"gateway pid {pid} (lock {lock.name})")
    return found


def holders(store: Path) -> list[RunningProcess]:
    """Other processes that have the store (or its -wal/-shm/-journal) open now."""
    targets = [Path(f"{store}{suffix}") for suffix in _SIDE_FILES]
    targets = [t for t in targets if t.exists()]
    if not targets:
        return []
    return [p for p in processes(lambda _argv: True) if any(holds_open(p.pid, t) for t in targets)]


def running_openclaw(store: Path) -> str | None:
    """A running OpenClaw (or any process) holding this store, described in a few words, or None."""
    held = holders(store)
    if held:
        return held[0].describe()
    state = state_dir(store)
    if state is not None:
        locks = gateway_locks(state)
        if locks:
            return locks[0]
    return None
