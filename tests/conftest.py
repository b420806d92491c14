"""Shared fixtures: every test gets its own CUTLINE_HOME and HOME and no API key, so nothing touches the user's home or the network.

The suite runs in parallel (`pytest -n auto --dist loadgroup`, the README's test command): every
test has its own temp dirs, CUTLINE_HOME, free ports and tmux socket, so any two can run side by
side, except the groups in tests/support/serial_groups.py (live tests with real programs, tmux,
browser), each kept on one worker, one test at a time: an `xdist_group` mark set here by file name,
so a new file of that kind joins its group by its name.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fake_anthropic import FakeAnthropic
from tests.support.paths import SAMPLES
from tests.support.serial_groups import serial_group


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        group = serial_group(item.path)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    # a test that declares more time than the default runs first (its group with it): started last, it alone
    # would keep one worker busy after the other has run out of tests
    default = float(config.getini("timeout") or 0)
    items.sort(key=lambda item: not declares_more_time(item, default))


def declares_more_time(item: pytest.Item, default: float) -> bool:
    mark = item.get_closest_marker("timeout")
    return mark is not None and bool(mark.args) and float(mark.args[0]) > default


# where the agents keep their sessions and settings when set: the user's own folders, never a test's
AGENT_FOLDERS = (
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "PI_CODING_AGENT_DIR",
    "OPENCLAW_STATE_DIR",
    "OPENCLAW_CONFIG_PATH",
    "QWEN_HOME",
    "CUTLINE_SOCKET",
)
XDG_FOLDERS = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """CUTLINE_HOME and HOME in temp dirs of this test; the XDG folders unset, so they fall under that HOME (a test
    that moves HOME moves them with it); no agent folder, API key or base URL from the user's environment."""
    home = tmp_path_factory.mktemp("cutline-home")
    monkeypatch.setenv("CUTLINE_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    for name in (
        *XDG_FOLDERS,
        *AGENT_FOLDERS,
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def cutline_home(_isolated_home: Path) -> Path:
    return _isolated_home


@pytest.fixture
def samples_dir() -> Path:
    return SAMPLES


@pytest.fixture
def fake_anthropic() -> Iterator[FakeAnthropic]:
    """A running fake Anthropic Messages API on localhost, stopped after the test."""
    server = FakeAnthropic().start()
    try:
        yield server
    finally:
        server.stop()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A run that collects nothing fails as a failure (1), never as pytest's "no tests" (5): an empty suite is a broken layout."""
    if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
