"""End to end in a real terminal: `cutline SAMPLE` inside tmux, keys sent, the screen read back."""

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
def test_cutline_sample_in_a_real_terminal(tmp_path: Path, cutline_home: Path) -> None:
    sample = tmp_path / "pi-coding-session.jsonl"
    shutil.copyfile(SAMPLES / "pi-coding-session.jsonl", sample)
    command = " ".join(shlex.quote(part) for part in [*cutline_command(), str(sample)])
    env = f"-u COLUMNS -u LINES CUTLINE_HOME={shlex.quote(str(cutline_home))} TERM=xterm-256color COLORTERM=truecolor"
    shell = f"cd {shlex.quote(str(tmp_path))} && env {env} {command}; echo CUTLINE-EXITED:$?"
    pane = Pane(f"cutline-test-{uuid.uuid4().hex[:8]}", "desk")
    # start a plain shell, fix the size, then run cutline in it: the app sees the final size from its first frame
    pane.tmux("new-session", "-d", "-s", "desk", "-x", "160", "-y", "45", "sh")
    pane.tmux("resize-window", "-t", "desk", "-x", "160", "-y", "45")
    socket_file = pane.tmux("display-message", "-p", "#{socket_path}").strip()
    pane.keys(shell, "Enter")
    try:
        pane.wait_for("keep from")
        pane.wait_for("entries on the active path")
        # the header takes the loaded session's name in a frame of its own (it watches the screen's sub_title):
        # a capture may fall between the status line's frame and the header's
        screen = pane.wait_for("pi-coding-session · pi")
        assert "keepRecentTokens 20,000" in screen
        assert "✂ cut · keep from" in screen
        assert "r Run" in screen and "a Accept" in screen  # the footer

        pane.keys("]")
        screen = pane.wait_for("keepRecentTokens 21,000")

        pane.keys("F1")
        screen = pane.wait_for("review.run")
        pane.keys("Escape")
        pane.wait_for("keepRecentTokens 21,000")

        pane.keys("C-q")
        # the echoed command line holds "CUTLINE-EXITED:$?" as soon as the desk leaves the alternate
        # screen; only the shell's own output carries digits, so wait for those
        screen = pane.wait_for_match(r"CUTLINE-EXITED:\d+")
        assert re.search(r"CUTLINE-EXITED:0\b", screen), screen
        assert "Traceback" not in screen
    finally:
        subprocess.run([TMUX, "-L", pane.socket, "kill-server"], capture_output=True)
        if socket_file:
            Path(socket_file).unlink(missing_ok=True)
