"""Index facts written without the general JSON encoder: the same bytes `json.dumps` writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutline.core.agents import read_session
from cutline.core.agents.index_facts import _dump, entry_facts
from cutline.core.errors import FormatError
from tests.support.paths import ROOT, SAMPLES

FILES = sorted({*SAMPLES.glob("*.jsonl"), *(ROOT / "tests/fixtures/corpus").glob("**/*.jsonl")}, key=str)


def _json(facts: dict[str, Any]) -> str:
    return json.dumps(facts, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize(
    "facts",
    [
        {"f": 0},
        {"k": "abc", "f": 2},
        {"u": 123456, "p": 1, "f": 27},
        {"c": [["call_1", None], ["call_2", 'a "quoted"\\path\n\t\x01 ünï 🙂']], "o": [[0, "/w/ä.py"]], "f": 8},
        {"r": ["t1", "t2"], "c": [], "f": -1},
        {"u": 1.5, "f": 8},  # not an int: the general encoder writes it
        {"u": 1e16, "p": 1e-7, "f": 8},  # floats msgspec writes otherwise (1e16, 1e-7)
        {"u": float("nan"), "f": 8},
        {"k": "lone \ud800 surrogate", "f": 0},  # msgspec refuses it
        {"u": 2**70, "f": 8},
        {"u": True, "f": 8},
    ],
)
def test_facts_are_written_as_json_dumps_writes_them(facts: dict[str, Any]) -> None:
    assert _dump(facts) == _json(facts)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_stored_entrys_facts_read_back_to_the_same_bytes(path: Path) -> None:
    try:
        session = read_session(path)
    except FormatError:
        pytest.skip("not a readable session file")
    for entry in session.entries:
        facts = entry_facts(entry)
        assert _json(json.loads(facts)) == facts
