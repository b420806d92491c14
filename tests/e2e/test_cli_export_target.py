"""`cutline export -o` writes a regular file or refuses: never replaces a device, pipe or symlink, asks before overwriting."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from cutline.app.cli import cli
from cutline.app.commands.sessions import export_target_mode
from cutline.core.errors import CutlineError
from tests.support.paths import SAMPLES

SAMPLE = SAMPLES / "pi-branched.jsonl"


@pytest.fixture
def runner() -> CliRunner:
    runner = CliRunner()
    assert runner.invoke(cli, ["import", str(SAMPLE)]).exit_code == 0
    return runner


def _export(runner: CliRunner, target: Path, *extra: str) -> click.testing.Result:
    return runner.invoke(cli, ["export", str(SAMPLE), "-o", str(target), *extra])


def test_a_pipe_is_refused_and_stays_a_pipe(runner: CliRunner, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    result = _export(runner, fifo, "--force")
    assert result.exit_code != 0
    assert "is not a regular file" in str(result.exception)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_a_symlink_is_refused_and_left_alone(runner: CliRunner, tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    real.write_text("keep me")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    result = _export(runner, link, "--force")
    assert result.exit_code != 0
    assert "is a symbolic link" in str(result.exception)
    assert link.is_symlink() and real.read_text() == "keep me"


def test_an_existing_file_needs_force_when_nobody_can_be_asked(runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "old.jsonl"
    target.write_text("old")
    target.chmod(0o640)
    result = _export(runner, target)
    assert result.exit_code != 0
    assert "pass --force" in str(result.exception)
    assert target.read_text() == "old"
    result = _export(runner, target, "--force")
    assert result.exit_code == 0, result.output
    assert target.read_bytes() == SAMPLE.read_bytes()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the file's mode survives the overwrite


def test_a_new_file_gets_the_umask_mode(runner: CliRunner, tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        target = tmp_path / "new.jsonl"
        assert _export(runner, target).exit_code == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_at_a_terminal_the_person_is_asked(tmp_path: Path) -> None:
    target = tmp_path / "old.jsonl"
    target.write_text("old")
    target.chmod(0o600)
    runner = CliRunner()
    with runner.isolation(input="n\n"), pytest.raises(CutlineError, match="left as it was"):
        export_target_mode(target, force=False, interactive=True)
    with runner.isolation(input="y\n"):
        assert export_target_mode(target, force=False, interactive=True) == 0o600
    assert export_target_mode(tmp_path / "absent", force=False, interactive=False) is None
