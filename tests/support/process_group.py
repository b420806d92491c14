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


def kill_group(group: int) -> None:
    """SIGKILL every process left in a process group (none left is fine)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)
