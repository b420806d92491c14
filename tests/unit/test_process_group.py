"""What the live tests' drivers start dies with them: on success, on timeout, on any error (tests/support/process_group)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests.support.process_group import run_grouped


def _gone(pid: int) -> bool:
    """Whether a process has ended (a zombie waiting for its reaper counts as ended)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def _server_pid(pidfile: Path) -> int:
    for _ in range(100):
        if pidfile.exists() and pidfile.read_text().strip():
            return int(pidfile.read_text())
        time.sleep(0.02)
    raise AssertionError("the driver never started its server")


def test_a_server_the_driver_left_behind_is_killed_when_it_returns(tmp_path: Path) -> None:
    pidfile = tmp_path / "server.pid"
    done = run_grouped(["sh", "-c", f"sleep 300 >/dev/null 2>&1 & echo $! > {pidfile}; echo started"], timeout=30)
    assert done.returncode == 0 and done.stdout == b"started\n"
    assert _gone(_server_pid(pidfile))


def test_a_driver_past_its_timeout_takes_its_server_with_it(tmp_path: Path) -> None:
    pidfile = tmp_path / "server.pid"
    with pytest.raises(subprocess.TimeoutExpired):
        run_grouped(["sh", "-c", f"sleep 300 >/dev/null 2>&1 & echo $! > {pidfile}; sleep 300"], timeout=1)
    assert _gone(_server_pid(pidfile))
