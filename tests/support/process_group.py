"""Running a helper program so that nothing it starts outlives the test, whatever happens.

`subprocess.run(timeout=...)` kills only the program it started: a driver's fake model
server and the agent it runs survived a timeout (pytest's own included) and served for
half an hour. Here the program leads a process group of its own, and the whole group is
killed when the call returns, by success, timeout, error or interrupt.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path


def run_grouped(
    command: Sequence[str], *, timeout: float, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run `command` to its end (or `timeout`), output captured; then kill whatever of its group is left."""
    proc = subprocess.Popen(
        list(command),
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        kill_group(proc.pid)
        proc.kill()  # a no-op when it has exited
        proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def kill_group(group: int, wait: float = 10.0) -> None:
    """SIGKILL every process left in a process group (none left is fine), and wait until none is left.

    Why wait: SIGKILL is delivered, not done; an agent killed a moment ago is still listed
    with its command line, and the next test's write-back found it running in the
    session's folder and refused (a live Codex test, CI run 2 of 2026-12-02).
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)
    deadline = time.monotonic() + wait
    while _group_alive(group) and time.monotonic() < deadline:
        time.sleep(0.02)


def _group_alive(group: int) -> bool:
    """Whether a process of this group is still alive (not a zombie), as /proc tells."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...: the comm may hold spaces and parentheses, so split after its last ")"
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and fields[0] != b"Z" and int(fields[2]) == group:
            return True
    return False
