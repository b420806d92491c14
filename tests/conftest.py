"""Shared fixtures: every test gets its own CUTLINE_HOME and no API key, so nothing touches the user's home or the network."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_sessions"


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("cutline-home")
    monkeypatch.setenv("CUTLINE_HOME", str(home))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    return home


@pytest.fixture
def cutline_home(_isolated_home: Path) -> Path:
    return _isolated_home


@pytest.fixture
def samples_dir() -> Path:
    return SAMPLES
