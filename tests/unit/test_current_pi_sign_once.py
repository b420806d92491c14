"""A plan from stored facts asks whether current pi wrote the path once, not once per question.

Why: `compaction_window` (the window's rule set) and `open_for_plan` (the plan's) each
scanned every fact of the path for current pi's sign (`PathWindow.current_pi_sign`): two
passes over 100,000 facts on an uncompacted pi 100k session, where one tells both.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import cutline.core.agents.path_window as path_window
from cutline.core.config.settings import CompactionSettings
from cutline.core.store import Store
from cutline.core.workbench.planning import open_for_plan
from tests.support.pi_compactions import write_pi_session


class _CountedSign(int):
    """PI_CURRENT_SIGN, counting each `flags & PI_CURRENT_SIGN` it takes part in."""

    tests = 0

    def __rand__(self, other: int) -> int:
        _CountedSign.tests += 1
        return int(other) & int(self)


@pytest.mark.parametrize("turns", [20, 80])
def test_the_facts_are_scanned_once_for_current_pis_sign(
    turns: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = write_pi_session(tmp_path / "uncompacted.jsonl", turns=turns, every=0, seed=6)
    with Store(tmp_path / "db") as store:
        session_id = store.import_file(file).session_id
        length = store.sessions.path_length(session_id)
        monkeypatch.setattr(path_window, "PI_CURRENT_SIGN", _CountedSign(path_window.PI_CURRENT_SIGN))
        _CountedSign.tests = 0
        target = open_for_plan(store, session_id, CompactionSettings(), "chars4", lazy=True)
    assert target.window is not None and target.rules is None  # no sign: every fact looked at
    assert _CountedSign.tests == length, (_CountedSign.tests, length)
