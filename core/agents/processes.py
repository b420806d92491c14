"""Running programs seen through /proc: which agent processes may be writing to a session right now.

Why: an agent that keeps running after a write-back appends its next lines to its old
leaf (it never re-reads the file), which leaves the accepted compaction on a dead
branch; cutline looks for one before writing. Where /proc is missing nothing is found.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict


class RunningProcess(BaseModel):
    """One process: its id, command line and working directory (None when not readable)."""

    model_config = ConfigDict(defer_build=True)

    pid: int
    argv: list[str]
    cwd: str | None = None

    def describe(self) -> str:
        shown = " ".join(self.argv)
        return f"pid {self.pid} ({shown[:80]}{'…' if len(shown) > 80 else ''})"


def _argv(pid: str) -> list[str]:
    try:
        raw = Path("/proc", pid, "cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode("utf-8", "replace") for part in raw.split(b"\0") if part]


def _cwd(pid: str) -> str | None:
    try:
        return os.readlink(Path("/proc", pid, "cwd"))
    except OSError:
        return None


def holds_open(pid: int, target: Path) -> bool:
    """Whether the process has `target` open right now."""
    try:
        wanted = os.path.realpath(target)
        fds = os.listdir(Path("/proc", str(pid), "fd"))
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(Path("/proc", str(pid), "fd", fd)) == wanted:
                return True
        except OSError:
            continue
    return False


def processes(match: Callable[[list[str]], bool]) -> list[RunningProcess]:
    """Other processes whose command line `match` accepts (this process and its parent excluded)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    mine = {os.getpid(), os.getppid()}
    found: list[RunningProcess] = []
    try:
        pids = [name for name in os.listdir(proc) if name.isdigit()]
    except OSError:
        return []
    for pid in pids:
        if int(pid) in mine:
            continue
        argv = _argv(pid)
        if argv and match(argv):
            found.append(RunningProcess(pid=int(pid), argv=argv, cwd=_cwd(pid)))
    return found
