"""A command that built a session ends without the interpreter's teardown, its output complete."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from cutline.app.cli import cli

SAMPLE = Path(__file__).resolve().parents[2] / "sample_sessions" / "pi-coding-session.jsonl"

_RUN = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('teardown ran', file=sys.stderr))\n"
    "from cutline.app.cli import main\n"
    "sys.argv = ['cutline', *sys.argv[1:]]\n"
    "main()\n"
)


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CUTLINE_HOME": str(home), "HOME": str(home)}
    return subprocess.run([sys.executable, "-c", _RUN, *args], capture_output=True, text=True, env=env)


def test_tokens_output_whole_and_no_teardown(tmp_path: Path) -> None:
    done = _run(tmp_path, "tokens", "--json", str(SAMPLE))
    assert done.returncode == 0, done.stderr
    assert "teardown ran" not in done.stderr
    runner = CliRunner(env={"CUTLINE_HOME": str(tmp_path), "HOME": str(tmp_path)})
    expected = runner.invoke(cli, ["tokens", "--json", str(SAMPLE)])
    assert expected.exit_code == 0, expected.output
    assert json.loads(done.stdout) == json.loads(expected.output)
    assert done.stdout == expected.output


def test_output_through_a_pipe_is_flushed(tmp_path: Path) -> None:
    done = _run(tmp_path, "timeline", "--json", str(SAMPLE))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["timeline"]["points"]


def test_commands_that_hold_nothing_end_as_usual(tmp_path: Path) -> None:
    done = _run(tmp_path, "ls")
    assert done.returncode == 0, done.stderr
    assert "teardown ran" in done.stderr
    failed = _run(tmp_path, "tokens", "--json", str(tmp_path / "missing.jsonl"))
    assert failed.returncode != 0
    assert "teardown ran" in failed.stderr
