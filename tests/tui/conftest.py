"""The desk tests' shared fixture: `ledger`, the fixed session with a mid-session cut (a file may define its own)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.desk_accept import ledger_session


@pytest.fixture
def ledger(tmp_path: Path, cutline_home: Path) -> Path:
    """The fixed session and a config that keeps 5000 recent tokens, so the cut is mid-session."""
    return ledger_session(tmp_path, cutline_home)
