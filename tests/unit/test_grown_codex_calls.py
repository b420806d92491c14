"""A grown Codex rollout keeps every call paired with its output, as the rollout Codex wrote does.

Why: the grower renamed every quoted `call_…` string, the `"call_id"` key included, so each
repeated function call and output lost its `call_id` (`call_id_r3`): the reader fell back to
the call's item id (`fc_fake_…`), the outputs had no id, and `accept` refused every proposal
made on a grown rollout ("tool call fc_fake_… has no result"). Real Codex sessions pair them
by `call_id` (tests/fixtures/corpus/codex); the grown data was malformed, not cutline's check.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from cutline.core.store import Store
from tests.support.grown_sessions import SOURCES, grow
from tests.support.writeback import propose


def _keys(value: Any, found: set[str]) -> set[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            found.add(key)
            _keys(inner, found)
    elif isinstance(value, list):
        for inner in value:
            _keys(inner, found)
    return found


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_grown_rollout_has_the_real_rollouts_keys_and_pairs_every_call(tmp_path: Path) -> None:
    grown = _records(grow("codex", 1_000, tmp_path / "rollout-grown.jsonl"))
    real = _records(SOURCES["codex"])
    assert _keys(grown, set()) <= _keys(real, set())
    calls = Counter(r["payload"]["call_id"] for r in grown if r["payload"].get("type") == "function_call")
    outputs = Counter(r["payload"]["call_id"] for r in grown if r["payload"].get("type") == "function_call_output")
    assert len(calls) > 50 and set(calls.values()) == {1}
    assert outputs == calls


def test_a_proposal_on_a_grown_rollout_passes_validation(tmp_path: Path) -> None:
    """What `accept` checks first: the rebuilt context pairs each kept call with its result."""
    file = grow("codex", 1_000, tmp_path / "rollout-grown.jsonl")
    with Store(tmp_path / "db") as store:
        proposal = propose(store, file, keep_recent_tokens=2_000)
    assert proposal.validation.ok, proposal.validation.problems[:3]
