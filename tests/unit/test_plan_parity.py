"""Parity with pi: every golden made by pi's own code (tests/golden/make_goldens.sh) is reproduced to the entry.

The goldens are data produced by the published pi-coding-agent package, not by
cutline, so these tests check our planner against an independent implementation.
No node needed: the JSON is committed.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from cutline.core.agents import read_session
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.context import build_context
from cutline.core.engine.plan import index_path, plan
from cutline.core.tokens import path_tokens
from tests.support.paths import ROOT, TESTS

GOLDENS = sorted((TESTS / "golden").glob("*.golden.json"))


def _load(golden: Path) -> tuple[dict, list]:
    data = json.loads(golden.read_text(encoding="utf-8"))
    source = ROOT / data["source"]
    if not source.exists():
        pytest.skip(f"{data['source']} not present")
    if hashlib.sha256(source.read_bytes()).hexdigest() != data["sourceSha256"]:
        pytest.fail(
            f"{data['source']} changed since its golden was made: run tests/golden/make_goldens.sh (needs node)"
        )
    session = read_session(source)
    return data, session.active_path()


def test_goldens_exist() -> None:
    assert len(GOLDENS) >= 11


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.name.removesuffix(".golden.json"))
def test_path_and_per_entry_estimates(golden: Path) -> None:
    data, path = _load(golden)
    assert len(path) == data["pathLength"]
    tokens = path_tokens(path, "chars4")
    for i, (entry, expected) in enumerate(zip(path, data["perEntry"])):
        assert entry.type == expected["type"], f"path index {i}"
        if data.get("version", 3) != 1 and not data["source"].endswith("v1-legacy.jsonl"):
            assert entry.id == expected["id"], f"path index {i}"
        if expected["type"] == "message":
            assert entry.role == expected["role"], f"path index {i}"
            # pi's oracle reports estimateTokens for message entries only (0 for the rest)
            assert tokens[i] == expected["tokens"], f"path index {i} ({entry.role})"
    message_total = sum(t for t, e in zip(tokens, path) if e.type == "message")
    assert message_total == data["totalEstimatedTokens"]
    assert len(build_context(path)) == data["contextMessages"]


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.name.removesuffix(".golden.json"))
def test_plans_match_pi(golden: Path) -> None:
    data, path = _load(golden)
    index = index_path(path)
    for keep, expected in data["plans"].items():
        result = plan(index, CompactionSettings(keepRecentTokens=int(keep), rules="pi-0.73"))
        where = f"keepRecentTokens={keep}"
        if expected is None:
            assert result.alreadyCompacted, where
            continue
        assert not result.alreadyCompacted, where
        assert result.firstKeptPathIndex == expected["firstKeptPathIndex"], where
        assert result.isSplitTurn == expected["isSplitTurn"], where
        assert result.tokensBefore == expected["tokensBefore"], where
        assert result.messagesToSummarize == expected["messagesToSummarize"], where
        assert result.turnPrefixMessages == expected["turnPrefixMessages"], where
        assert result.previousSummary == expected["previousSummary"], where
        assert result.readFiles == expected["readFiles"], where
        assert result.writtenFiles == expected["writtenFiles"], where
        assert result.editedFiles == expected["editedFiles"], where
        if not data["source"].endswith("v1-legacy.jsonl"):
            assert result.firstKeptEntryId == expected["firstKeptEntryId"], where


def test_plan_from_path_equals_plan_from_index() -> None:
    golden = TESTS / "golden" / "split-turns.golden.json"
    _data, path = _load(golden)
    settings = CompactionSettings(keepRecentTokens=5000)
    assert plan(path, settings).model_dump() == plan(index_path(path), settings).model_dump()
