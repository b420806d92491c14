"""Driving `cutline` in a real terminal: a tmux session on a private socket."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

TMUX = shutil.which("tmux")


def cutline_command() -> list[str]:
    """The installed console script, else the module."""
    script = Path(sys.executable).with_name("cutline")
    return [str(script)] if script.exists() else [sys.executable, "-m", "cutline.app.cli"]


class Pane:
    """One tmux session on a private socket, so nothing touches the user's tmux server."""

    def __init__(self, socket: str, name: str) -> None:
        self.socket = socket
        self.name = name

    def tmux(self, *args: str) -> str:
        # the test process may carry COLUMNS/LINES from an earlier terminal query; the pane must size itself
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        return subprocess.run(
            [TMUX, "-L", self.socket, *args], check=True, capture_output=True, text=True, env=env
        ).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name)

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def wait_for(self, text: str, timeout: float = 90.0) -> str:
        """Poll the pane until `text` shows (a real terminal has no event to wait on)."""
        return self.wait_for_match(re.escape(text), timeout)

    def wait_for_match(self, pattern: str, timeout: float = 90.0) -> str:
        """Poll the pane until the regular expression `pattern` matches somewhere on it."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if re.search(pattern, screen):
                return screen
            time.sleep(0.25)
        raise AssertionError(f"{pattern!r} never matched; the screen was:\n{screen}")
