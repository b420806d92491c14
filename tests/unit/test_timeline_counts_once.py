"""`timeline` reads each counter's cached counts once, and derives calibrated from chars4 instead of reading it again.

Both ways: from the store's columns (the sample is a pi session) and, for the replay, from the whole session.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import cutline.core.store.token_counts as token_counts
from cutline.app.cli import cli

SAMPLE = Path(__file__).resolve().parents[2] / "sample_sessions" / "pi-two-compactions.jsonl"


@pytest.mark.parametrize("replay", [False, True])
def test_each_counter_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: bool) -> None:
    runner = CliRunner(env={"CUTLINE_HOME": str(tmp_path), "HOME": str(tmp_path)})
    args = ["timeline", "--json", *(["--replay", "--counter", "calibrated"] if replay else []), str(SAMPLE)]
    before = runner.invoke(cli, args)
    assert before.exit_code == 0, before.output
    asked: list[str] = []
    count_entries = token_counts.count_entries
    stored_path_counts = token_counts.stored_path_counts

    def counted(store: Any, session: Any, counter: Any = "chars4") -> dict[str, int]:
        asked.append(counter if isinstance(counter, str) else counter.name)
        return count_entries(store, session, counter)

    def counted_path(store: Any, session_id: str, ids: list[str], counter: str) -> list[int]:
        asked.append(counter)
        return stored_path_counts(store, session_id, ids, counter)

    monkeypatch.setattr(token_counts, "count_entries", counted)
    monkeypatch.setattr(token_counts, "stored_path_counts", counted_path)
    again = runner.invoke(cli, args)
    assert again.exit_code == 0, again.output
    assert again.output == before.output
    assert sorted(asked) == (["chars4"] if replay else ["chars4", "tiktoken"])
