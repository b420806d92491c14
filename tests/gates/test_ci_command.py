"""CI runs exactly the README's test command, and that command runs the suite in parallel."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import ROOT, TESTS
from tests.support.serial_groups import serial_group

PROMPT = "Install and run the tests:"


def readme_test_command() -> str:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    after = lines[lines.index(PROMPT) + 1 :]
    return next(line.strip() for line in after if line.strip())


def test_ci_runs_the_readmes_test_command_last() -> None:
    commands = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    commands = [line for line in commands if line and not line.startswith("#")]
    assert commands[-1] == readme_test_command()


def test_the_test_command_runs_in_parallel_with_groups() -> None:
    command = readme_test_command().split()
    assert command[command.index("-n") + 1] == "auto" and "--dist" in command
    assert command[command.index("--dist") + 1] == "loadgroup"


@pytest.mark.parametrize(
    ("name", "group"),
    [
        ("test_live_resume_openclaw.py", "live"),
        ("test_live_review_pi.py", "live"),
        ("test_e2e_tmux_cut.py", "tmux"),
        ("test_web_access.py", "browser"),
        ("test_cli_sessions.py", None),
    ],
)
def test_tests_that_must_not_run_side_by_side_share_a_group(name: str, group: str | None) -> None:
    assert (TESTS / "e2e" / name).exists()
    assert serial_group(TESTS / "e2e" / name) == group
    assert serial_group(TESTS / "unit" / name) is None


def test_every_live_tmux_and_browser_file_is_in_its_group() -> None:
    kinds = {"Pane(": "tmux", "webdriver": "browser", "live_clients": "live", "live_pi": "live"}
    missing = [
        f"{path.name}: {group}"
        for path in sorted((TESTS / "e2e").glob("test_*.py"))
        for needle, group in kinds.items()
        if needle in path.read_text(encoding="utf-8") and serial_group(Path(path)) != group
    ]
    assert missing == []
