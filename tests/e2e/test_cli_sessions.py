"""`cutline import`, `ls`, `show` and `export` through the real command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cutline.app.cli import cli
from cutline.core.agents import read_session
from tests.support.paths import ROOT
from tests.support.sessions import generate

PI_SAMPLES = sorted(p for p in (ROOT / "sample_sessions").glob("pi-*.jsonl"))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """The `cutline` program as a user runs it (errors become one line, never a traceback)."""
    return subprocess.run(
        [sys.executable, "-c", "from cutline.app.cli import main; main()", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ},
        timeout=300,
    )


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    return generate(tmp_path / "work-session.jsonl", 120)


def test_import_reports_each_file_then_ls_lists_it(runner: CliRunner, session_file: Path, tmp_path: Path) -> None:
    other = generate(tmp_path / "other.jsonl", 30, seed=8)
    result = runner.invoke(cli, ["import", str(session_file), str(other)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    session_id = read_session(session_file).id
    assert lines[0].split() == ["imported", "work-session", session_id[:8], "120", "entries"]
    assert lines[1].startswith("imported") and "30 entries" in lines[1]

    again = runner.invoke(cli, ["import", str(session_file)])
    assert again.stdout.split()[0] == "unchanged"

    listed = runner.invoke(cli, ["ls", "--json"])
    rows = json.loads(listed.stdout)
    assert {row["name"]: row["entries"] for row in rows} == {"work-session": 120, "other": 30}
    table = runner.invoke(cli, ["ls"]).stdout.splitlines()
    assert table[0].split()[:3] == ["ID", "NAME", "FORMAT"]
    assert any(
        line.startswith(session_id[:8] + " ") and "work-session" in line and " 120 " in line for line in table[1:]
    )


def test_import_of_a_grown_file_says_so(runner: CliRunner, tmp_path: Path) -> None:
    full = generate(tmp_path / "full.jsonl", 80)
    lines = full.read_text().splitlines(keepends=True)
    path = tmp_path / "live.jsonl"
    path.write_text("".join(lines[:51]))
    assert runner.invoke(cli, ["import", str(path)]).exit_code == 0
    path.write_text("".join(lines))
    result = runner.invoke(cli, ["import", str(path)])
    assert result.stdout.split()[0] == "grown" and "+30 entries (80 in all)" in result.stdout


def test_problems_are_printed_as_file_line_message_and_good_files_still_count(
    session_file: Path, tmp_path: Path
) -> None:
    lines = session_file.read_text().splitlines()
    lines.insert(4, '{"type":"message", this is not json')
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("\n".join(lines) + "\n")
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"\x00\x01 not a session at all\n")
    missing = tmp_path / "missing.jsonl"

    result = run("import", str(damaged), str(garbage), str(missing))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("imported") and "120 entries" in result.stdout
    err = result.stderr.splitlines()
    assert any(line.startswith(f"{damaged}:5: ") for line in err), err
    assert any(line.startswith("cutline: ") and str(garbage) in line for line in err), err
    assert any(line.startswith("cutline: ") and str(missing) in line and "no such file" in line for line in err), err
    assert "Traceback" not in result.stdout + result.stderr


def test_import_fails_only_when_nothing_could_be_imported(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("hello\nworld\n")
    result = run("import", str(garbage), str(tmp_path / "missing.jsonl"))
    assert result.returncode != 0
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 2
    assert all(line.startswith("cutline: ") for line in result.stderr.splitlines())
    assert "Traceback" not in result.stderr


def test_show_prints_header_counts_compactions_and_the_active_path(runner: CliRunner, tmp_path: Path) -> None:
    path = generate(tmp_path / "long.jsonl", 9000, seed=5)
    session = read_session(path)
    assert runner.invoke(cli, ["import", str(path)]).exit_code == 0
    result = runner.invoke(cli, ["show", "long", "--json"])
    assert result.exit_code == 0, result.output
    overview = json.loads(result.stdout)
    active = session.active_path()
    assert [line["id"] for line in overview["path"]] == [e.id for e in active]
    assert overview["counts_by_role"]["user"] == sum(1 for e in session.entries if e.role == "user")
    assert overview["counts_by_type"]["compaction"] == len(session.compactions()) == len(overview["compactions"])
    assert all(line["tokens"] is not None for line in overview["path"])
    assert overview["path_tokens"] == sum(line["tokens"] for line in overview["path"]) > 0
    # chars4 of a user message is ceil(chars / 4): check one by hand
    user = next(e for e in active if e.role == "user")
    line = next(line for line in overview["path"] if line["id"] == user.id)
    assert line["tokens"] == -(-len(user.message.content[0].text) // 4)
    assert line["preview"] == " ".join(user.message.content[0].text.split())[:71] + "…"

    text = runner.invoke(cli, ["show", session.id[:8], "--tail", "3"]).stdout
    assert f"({session.id})" in text.splitlines()[0]
    assert f"compactions: {len(session.compactions())}" in text
    assert "active path (last 3 of" in text
    last = text.splitlines()[-1].split()
    assert last[0] == str(len(active) - 1) and last[1] == active[-1].id


def test_show_of_an_unknown_session_is_one_line(tmp_path: Path) -> None:
    result = run("show", "nothing-like-this")
    assert result.returncode == 1
    assert result.stderr.strip() == "cutline: no stored session matches 'nothing-like-this' (try `cutline ls`)"


@pytest.mark.parametrize("sample", PI_SAMPLES, ids=[p.name for p in PI_SAMPLES])
def test_export_of_every_pi_sample_is_byte_identical(runner: CliRunner, sample: Path, tmp_path: Path) -> None:
    assert runner.invoke(cli, ["import", str(sample)]).exit_code == 0
    out = tmp_path / "exported.jsonl"
    result = runner.invoke(cli, ["export", str(sample), "--format", "pi", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == sample.read_bytes()


def test_export_of_a_generated_session_is_byte_identical_and_atomic(
    runner: CliRunner, session_file: Path, tmp_path: Path
) -> None:
    assert runner.invoke(cli, ["import", str(session_file)]).exit_code == 0
    out = tmp_path / "out" / "copy.jsonl"
    out.parent.mkdir()
    out.write_text("old contents")
    result = runner.invoke(cli, ["export", "work-session", "-o", str(out), "--force"])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == session_file.read_bytes()
    assert sorted(p.name for p in out.parent.iterdir()) == ["copy.jsonl"]  # no temp file left


def test_export_refuses_to_overwrite_the_source_file(session_file: Path) -> None:
    before = session_file.read_bytes()
    assert run("import", str(session_file)).returncode == 0
    result = run("export", "work-session", "-o", str(session_file))
    assert result.returncode == 1
    assert "refusing to overwrite the session's own source file" in result.stderr
    assert "Traceback" not in result.stderr
    assert session_file.read_bytes() == before
