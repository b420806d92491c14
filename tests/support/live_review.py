"""What the live review tests share: a run's places, a private socket, `cutline` as a person runs it, `inbox --watch`.

Each live review test (pi, OpenClaw, Claude Code, Codex) drives a real agent while a person
answers from the command line. The socket lives in a short directory under /tmp (a Unix socket
path has at most 107 bytes; mkdtemp makes it 0700); everything started here is ended by
`close()`, whatever happened.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.live_clients import REPO


class ReviewPlace:
    """One run's places: the agent's home and work dir, cutline's home and socket, and the processes to end."""

    def __init__(self, root: Path, socket_dir: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.work = root / "work"
        self.logdir = root / "log"
        self.cutline_home = root / "cutline"
        self.socket_dir = socket_dir
        self.socket = socket_dir / "inbox.sock"
        for path in (self.home, self.work, self.logdir):
            path.mkdir(parents=True, exist_ok=True)
        self.env = {
            **os.environ,
            "HOME": str(self.home),
            "CUTLINE_HOME": str(self.cutline_home),
            "CUTLINE_SOCKET": str(self.socket),
        }
        self.procs: list[subprocess.Popen[bytes]] = []

    def cutline(self, *args: str, stdin: str | None = None) -> str:
        """`cutline ARGS` as a person runs it in this run's environment; its stdout (it must succeed)."""
        done = subprocess.run(
            [sys.executable, "-m", "cutline.app.cli", *args],
            env=self.env,
            cwd=REPO,
            input=stdin.encode() if stdin is not None else None,
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, f"cutline {' '.join(args)}: {done.stderr.decode()}"
        return done.stdout.decode()

    def watch(self) -> subprocess.Popen[bytes]:
        """`cutline inbox --watch --json`, once it listens on the socket."""
        proc = subprocess.Popen(
            [sys.executable, "-m", "cutline.app.cli", "inbox", "--watch", "--json"],
            env=self.env,
            cwd=REPO,
            stdout=(self.root / "watch.out").open("wb"),
            stderr=(self.root / "watch.err").open("wb"),
        )
        self.procs.append(proc)
        deadline = time.monotonic() + 30
        while not self.socket.exists():
            assert proc.poll() is None, (self.root / "watch.err").read_text()
            assert time.monotonic() < deadline, "inbox --watch did not listen"
            time.sleep(0.05)
        return proc

    def end(self, proc: subprocess.Popen[bytes]) -> None:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def close(self) -> None:
        for proc in reversed(self.procs):
            self.end(proc)


@contextmanager
def review_place(root: Path, kind: type[ReviewPlace] = ReviewPlace) -> Iterator[ReviewPlace]:
    """A run's places under `root` with a private socket directory; its processes and socket go at the end."""
    socket_dir = Path(tempfile.mkdtemp(prefix="cl-", dir="/tmp"))  # made 0700
    place = kind(root, socket_dir)
    try:
        yield place
    finally:
        place.close()
        shutil.rmtree(socket_dir, ignore_errors=True)
