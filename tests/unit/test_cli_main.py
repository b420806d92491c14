"""The `cutline` entry point: exit codes survive, errors are one line, never a traceback."""

from __future__ import annotations

import click
import pytest

from cutline.app.cli import cli, main
from cutline.core.errors import CutlineError


@pytest.fixture
def scratch_command():
    added: list[str] = []

    def add(command: click.Command) -> None:
        cli.add_command(command)
        added.append(command.name)

    yield add
    for name in added:
        cli.commands.pop(name, None)


def test_a_command_exit_code_reaches_the_shell(scratch_command) -> None:
    @click.command("probe-exit")
    @click.pass_context
    def probe(ctx: click.Context) -> None:
        ctx.exit(3)

    scratch_command(probe)
    with pytest.raises(SystemExit) as raised:
        main(["probe-exit"])
    assert raised.value.code == 3


def test_cutline_errors_are_one_line(scratch_command, capsys) -> None:
    @click.command("probe-error")
    def probe() -> None:
        raise CutlineError("session.jsonl:7: not valid JSON")

    scratch_command(probe)
    with pytest.raises(SystemExit) as raised:
        main(["probe-error"])
    assert raised.value.code == 1
    err = capsys.readouterr().err
    assert err == "cutline: session.jsonl:7: not valid JSON\n"


def test_unexpected_errors_show_no_traceback(scratch_command, capsys, monkeypatch) -> None:
    monkeypatch.delenv("CUTLINE_DEBUG", raising=False)

    @click.command("probe-bug")
    def probe() -> None:
        raise KeyError("leaf")

    scratch_command(probe)
    with pytest.raises(SystemExit) as raised:
        main(["probe-bug"])
    assert raised.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("\n") == 1 and "internal error: KeyError" in err


def test_a_mistyped_command_is_one_line_not_the_desk(capsys) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["frobnicate"])
    assert raised.value.code == 1
    err = capsys.readouterr().err
    assert "no stored session matches 'frobnicate'" in err and "cutline --help" in err
    assert err.count("\n") == 1


def test_opening_a_directory_is_refused(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as raised:
        main([str(tmp_path)])
    assert raised.value.code == 1
    assert "is a directory" in capsys.readouterr().err
