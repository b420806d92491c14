"""In a real terminal (tmux): the character `.` typed on the list puts the cursor on the cut row."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.support.paths import SAMPLES
from tests.support.tmux import TMUX, Pane, cutline_command

pytestmark = pytest.mark.e2e


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed (CI installs it; install tmux to run this test)")
def test_full_stop_puts_the_cursor_on_the_cut_row(tmp_path: Path, cutline_home: Path) -> None:
    sample = tmp_path / "pi-coding-session.jsonl"
    shutil.copyfile(SAMPLES / "pi-coding-session.jsonl", sample)
    (cutline_home / "config.toml").write_text("[compaction]\nkeepRecentTokens = 5000\n", encoding="utf-8")
    command = " ".join(shlex.quote(part) for part in [*cutline_command(), str(sample)])
    env = f"-u COLUMNS -u LINES CUTLINE_HOME={shlex.quote(str(cutline_home))} TERM=xterm-256color COLORTERM=truecolor"
    shell = f"cd {shlex.quote(str(tmp_path))} && env {env} {command}; echo CUTLINE-EXITED:$?"
    pane = Pane(f"cutline-test-{uuid.uuid4().hex[:8]}", "desk")
    pane.tmux("new-session", "-d", "-s", "desk", "-x", "160", "-y", "45", "sh")
    pane.tmux("resize-window", "-t", "desk", "-x", "160", "-y", "45")
    socket_file = pane.tmux("display-message", "-p", "#{socket_path}").strip()
    pane.keys(shell, "Enter")
    try:
        screen = pane.wait_for_match(r"keep from (\S+)")
        pane.wait_for("entries on the active path")
        kept = re.search(r"keep from (\S+)", pane.screen())
        assert kept is not None
        first_kept = kept.group(1)
        pane.keys("g")  # the first entry: the cursor is away from the cut
        pane.wait_for_match(r"\[(summarized|context|outside)\]")
        pane.keys("-l", ".")  # the character itself, as a person types it
        # the entry pane follows the cursor: its header names the cut's first kept entry
        screen = pane.wait_for_match(rf"{re.escape(first_kept)}\s+\d{{4}}-\d\d-\d\dT")
        assert "[kept]" in screen
        assert "Traceback" not in screen
        pane.keys("C-q")
        pane.wait_for_match(r"CUTLINE-EXITED:\d+")
    finally:
        subprocess.run([TMUX, "-L", pane.socket, "kill-server"], capture_output=True)
        if socket_file:
            Path(socket_file).unlink(missing_ok=True)
