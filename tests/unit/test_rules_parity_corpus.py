"""Parity of the pi rule sets with pi's own code on the corpus: sessions the real pi programs wrote.

Goldens (tests/golden/make_goldens_corpus.py, needs node) hold what pi 0.73.1 and pi 0.87.1
decide on every state of each corpus file (each line prefix, the full file last), for
keepRecentTokens from 0 to 50,000: `pi-0.73` is compared with pi 0.73.1 on the files
pi 0.73.1 wrote, `pi` (current) with pi 0.87.1 on every pi file (current pi resumes
older files too). Same fields as test_rules_parity.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from cutline.core.agents import read_session
from cutline.core.engine.context import build_context
from cutline.core.engine.plan import index_path
from cutline.core.engine.rules.estimates import openclaw_tokens, pi_current_tokens
from cutline.core.models import Entry
from cutline.core.releases.pi_0_87 import planner as pi_current
from cutline.core.tokens import path_tokens
from tests.support.parity import check_plans, load_golden
from tests.support.paths import ROOT, TESTS

GOLDENS = sorted((TESTS / "golden" / "corpus-rules").glob("*.pi-*.golden.json"))
OPENCLAW = sorted((TESTS / "golden" / "corpus-rules").glob("*.openclaw.golden.json"))
RULES = {"pi-0.73": "pi-0.73", "pi-0.87": "pi"}


def _states(golden: Path, tmp_path: Path) -> tuple[dict[str, Any], list[tuple[dict[str, Any], list[Entry]]]]:
    """The golden and, per recorded state, the active path of the file's first lines."""
    data = json.loads(golden.read_text(encoding="utf-8"))
    source = ROOT / data["source"]
    raw = source.read_bytes()
    assert hashlib.sha256(raw).hexdigest() == data["sourceSha256"], (
        f"{data['source']} changed since its golden was made: rerun tests/golden/make_goldens_corpus.py (needs node)"
    )
    lines = raw.splitlines(keepends=True)
    out: list[tuple[dict[str, Any], list[Entry]]] = []
    for count, state in data["states"].items():
        prefix = tmp_path / f"{count}-{source.name}"
        prefix.write_bytes(b"".join(lines[: int(count)]))
        out.append(({**state, "source": f"{data['source']}[:{count} lines]"}, read_session(prefix).active_path()))
    return data, out


def test_corpus_goldens_cover_every_pi_file() -> None:
    manifest = json.loads((TESTS / "fixtures" / "corpus" / "manifest.json").read_text(encoding="utf-8"))
    files = {e["session_file"] for e in manifest["entries"] if e["agent"].startswith("pi-")}
    covered = {
        json.loads(g.read_text(encoding="utf-8"))["source"].removeprefix("tests/fixtures/corpus/") for g in GOLDENS
    }
    assert files and files == covered
    assert len(GOLDENS) == len(files) + sum(1 for f in files if f.startswith("pi-0.73/"))


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.name.removesuffix(".golden.json"))
def test_each_pi_rule_set_plans_the_corpus_as_its_pi_does(golden: Path, tmp_path: Path) -> None:
    oracle = "pi-" + golden.name.removesuffix(".golden.json").rsplit(".pi-", 1)[1]
    rules = RULES[oracle]
    data, states = _states(golden, tmp_path)
    full = states[-1][1]
    assert len(full) == data["pathLength"]
    tokens = path_tokens(full, "chars4")
    for i, (entry, expected) in enumerate(zip(full, data["perEntry"], strict=True)):
        assert entry.id == expected["id"], f"path index {i}"
        if expected["type"] == "message":
            assert entry.message is not None
            got = pi_current_tokens(entry.message) if rules == "pi" else tokens[i]
            assert got == expected["tokens"], f"path index {i}"
    for state, path in states:
        context = pi_current.context_messages(index_path(path)) if rules == "pi" else build_context(path)
        assert len(context) == state["contextMessages"], state["source"]
        check_plans(state, path, rules)


def test_openclaw_goldens_cover_every_openclaw_store() -> None:
    manifest = json.loads((TESTS / "fixtures" / "corpus" / "manifest.json").read_text(encoding="utf-8"))
    stores = {e["session_file"] for e in manifest["entries"] if e["agent"] == "openclaw"}
    covered = {
        json.loads(g.read_text(encoding="utf-8"))["source"].removeprefix("tests/fixtures/corpus/") for g in OPENCLAW
    }
    assert stores and stores == covered


@pytest.mark.parametrize("golden", OPENCLAW, ids=lambda p: p.name.removesuffix(".golden.json"))
def test_openclaw_plans_its_own_stores_as_openclaw_does(golden: Path) -> None:
    """OpenClaw 2026.9's planner (the oracle reads the store's active path) against `openclaw-2026.9`."""
    data, path = load_golden(golden)
    for i, (entry, expected) in enumerate(zip(path, data["perEntry"], strict=True)):
        assert entry.id == expected["id"], f"path index {i}"
        if expected["type"] == "message":
            assert entry.message is not None
            assert openclaw_tokens(entry.message) == expected["tokens"], f"path index {i}"
    check_plans(data, path, "openclaw-2026.9")
