"""`token_report` asks the count source for each stored counter once and derives `calibrated` from its own fit."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from cutline.core.agents import read_session
from cutline.core.tokens import calibrated_counts, count_session, token_report

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"


@pytest.mark.parametrize(
    "name", ["pi-coding-session.jsonl", "pi-two-compactions.jsonl", "claude-code-compacted.jsonl", "pi-branched.jsonl"]
)
def test_calibrated_is_derived_not_asked_for(name: str) -> None:
    session = read_session(SAMPLES / name)
    asked: list[str] = []

    def count(counter: str) -> Mapping[str, int]:
        asked.append(counter)
        return count_session(session, counter)

    report = token_report(session, ["chars4", "tiktoken", "calibrated"], count)
    assert asked == ["chars4", "tiktoken"]
    calibrated = calibrated_counts(session, count_session(session, "chars4"))
    assert [row["calibrated"] for row in report.entries] == [calibrated[row["id"]] for row in report.entries]
    assert report.model_dump() == token_report(session, ["chars4", "tiktoken", "calibrated"]).model_dump()
