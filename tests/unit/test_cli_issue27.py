"""Rough edges of the command line a newcomer hit (issue 27): each through `cutline.app.cli.main`, as typed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.golden_writeback.make_session import write_session
from tests.support.cli import run


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "c.db")


def test_import_of_a_folder_is_one_line_with_the_command_that_would_work(capsys, tmp_path: Path, db: str) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    code, out, err = run(capsys, "import", str(folder), "--db", db)
    assert code == 1 and out == ""
    assert (
        err
        == f"cutline: {folder}: is a directory; give session files (`cutline ls --all` lists the agents' sessions on this machine, with their files)\n"
    )
    write_session(folder / "a.jsonl")
    shutil.copy(folder / "a.jsonl", folder / "b.jsonl")
    code, out, err = run(capsys, "import", str(folder), "--db", db)
    assert code == 1
    assert (
        err == f"cutline: {folder}: is a directory; import its 2 .jsonl files with `cutline import {folder}/*.jsonl`\n"
    )


def test_export_to_a_folder_is_one_line_naming_a_file_in_it(capsys, tmp_path: Path, db: str) -> None:
    session = write_session(tmp_path / "work.jsonl")
    code, out, err = run(capsys, "export", str(session), "-o", str(tmp_path), "--db", db)
    assert code == 1 and out == ""
    assert err == f"cutline: {tmp_path}: is a directory; name the file to write, e.g. -o {tmp_path / 'work.jsonl'}\n"
