"""Parity of the planner rule sets with the agents' own code: current pi (0.87.1) and OpenClaw 2026.9.

Goldens are what pi's and OpenClaw's published packages decide on the same sessions
(tests/golden/make_goldens_pi087.sh, make_goldens_rules.sh; fuzz sessions from
fuzz_rules.py), committed as JSON: no node needed. Compared per keepRecentTokens: the
first kept position, split turn, tokensBefore, message counts, previous summary, file
sets, OpenClaw's latest unresolved request and refusal, and "no plan".
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from cutline.core.agents import read_session
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.plan import index_path, plan
from cutline.core.engine.rules import pi_current
from cutline.core.engine.rules.choice import choose, evidence
from cutline.core.engine.rules.estimates import openclaw_chars, openclaw_tokens, pi_current_tokens
from cutline.core.models import Entry, Message

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
PI = sorted((GOLDEN / "pi-0.87").glob("*.golden.json"))
OPENCLAW = sorted((GOLDEN / "openclaw-2026.9").glob("*.golden.json"))
FUZZ = sorted((GOLDEN / "fuzz-rules").glob("*.golden.json"))
_LONE = re.compile("[\ud800-\udfff]")


def _scrubbed(value: Any) -> Any:
    """Lone surrogates as the session reader stores them (U+FFFD)."""
    return _LONE.sub("\ufffd", value) if isinstance(value, str) else value


def _load(golden: Path) -> tuple[dict[str, Any], list[Entry]]:
    data = json.loads(golden.read_text(encoding="utf-8"))
    source = ROOT / data["source"]
    if not source.exists():
        pytest.skip(f"{data['source']} not present")
    assert hashlib.sha256(source.read_bytes()).hexdigest() == data["sourceSha256"], (
        f"{data['source']} changed since its golden was made: rerun its make script (needs node)"
    )
    return data, read_session(source).active_path()


def _check_plans(data: dict[str, Any], path: list[Entry], rules: str) -> None:
    index = index_path(path)
    assert len(path) == data["pathLength"]
    for keep, expected in data["plans"].items():
        result = plan(index, CompactionSettings(keepRecentTokens=int(keep)), rules=rules)
        where = f"{data['source']} keepRecentTokens={keep}"
        assert result.rules == rules, where
        if expected is None:
            assert (result.alreadyCompacted or result.nothingToCompact) and result.refusal is None, where
            continue
        if "error" in expected:
            assert result.refusal == expected["error"] and result.nothingToCompact, where
            continue
        assert not (result.alreadyCompacted or result.nothingToCompact or result.refusal), where
        got = {
            "firstKeptPathIndex": result.firstKeptPathIndex,
            "isSplitTurn": result.isSplitTurn,
            "tokensBefore": result.tokensBefore,
            "messagesToSummarize": result.messagesToSummarize,
            "turnPrefixMessages": result.turnPrefixMessages,
            "previousSummary": result.previousSummary,
            "readFiles": result.readFiles,
            "writtenFiles": result.writtenFiles,
            "editedFiles": result.editedFiles,
        }
        want = {key: _scrubbed(expected[key]) for key in got}
        if "latestUnresolvedUserRequest" in expected:
            got["latestUnresolvedUserRequest"] = result.latestUnresolvedUserRequest
            want["latestUnresolvedUserRequest"] = _scrubbed(expected["latestUnresolvedUserRequest"])
        assert got == want, where
        if data.get("version") != 1 and "v1-legacy" not in data["source"]:
            assert result.firstKeptEntryId == expected["firstKeptEntryId"], where


def test_goldens_exist() -> None:
    assert len(PI) >= 27 and len(OPENCLAW) >= 26 and len(FUZZ) >= 48


@pytest.mark.parametrize(
    "golden", PI + [f for f in FUZZ if ".pi." in f.name], ids=lambda p: p.name.removesuffix(".golden.json")
)
def test_current_pi_plans_as_pi_0_87_does(golden: Path) -> None:
    data, path = _load(golden)
    for i, (entry, expected) in enumerate(zip(path, data["perEntry"], strict=True)):
        assert entry.type == ("other" if expected["type"] == "reset" else expected["type"])
        if expected["type"] == "message":
            assert entry.message is not None
            assert pi_current_tokens(entry.message) == expected["tokens"], f"path index {i}"
    assert len(pi_current.context_messages(index_path(path))) == data["contextMessages"]
    _check_plans(data, path, "pi")


@pytest.mark.parametrize(
    "golden", OPENCLAW + [f for f in FUZZ if ".openclaw." in f.name], ids=lambda p: p.name.removesuffix(".golden.json")
)
def test_openclaw_plans_as_openclaw_2026_9_does(golden: Path) -> None:
    data, path = _load(golden)
    for i, (entry, expected) in enumerate(zip(path, data["perEntry"], strict=True)):
        if expected["type"] == "message":
            assert entry.message is not None
            assert openclaw_tokens(entry.message) == expected["tokens"], f"path index {i}"
    _check_plans(data, path, "openclaw-2026.9")


def test_openclaw_counts_cjk_characters_and_images_as_openclaw_does() -> None:
    assert openclaw_chars("abc") == 3
    assert openclaw_chars("中文") == 8  # common CJK: 4 each
    assert openclaw_chars("𠜎") == 16  # a supplementary ideograph: 2 UTF-16 units + 14
    assert openclaw_chars("ｶ") == 8 and openclaw_chars("\u3400") == 12
    image = {"type": "image", "data": "x", "mimeType": "image/png"}
    user = Message.model_validate({"role": "user", "content": [{"type": "text", "text": "hi"}, image]})
    # 2 + 8000 + the omission note (39) + 17
    assert openclaw_tokens(user) == -(-(2 + 8000 + 39 + 17) // 4)
    assert pi_current_tokens(user) == -(-(2 + 4800) // 4)


def test_the_session_chooses_the_rules_unless_overridden() -> None:
    features = read_session(GOLDEN / "sessions-rules" / "pi-current-features.jsonl").active_path()
    reset = read_session(GOLDEN / "sessions-rules" / "openclaw-reset.jsonl").active_path()
    plain = read_session(GOLDEN / "sessions" / "split-turns.jsonl").active_path()
    assert evidence(features) == "pi" and evidence(reset) == "openclaw-2026.9" and evidence(plain) is None
    assert evidence(plain, version=4) == "openclaw-2026.9"
    assert choose(features, "pi-0.73") == "pi"
    assert choose(plain, "pi-0.73") == "pi-0.73" and choose(plain) == "pi"
    assert choose(features, "pi", override="pi-0.73") == "pi-0.73"
    # a pinned pi-0.73 setting still yields to what the file shows
    assert plan(features, CompactionSettings(rules="pi-0.73")).rules == "pi"
    assert plan(plain, CompactionSettings(rules="pi-0.73")).rules == "pi-0.73"
    assert plan(plain, CompactionSettings()).rules == "pi"


def test_plan_json_names_the_rules_and_openclaw_refuses_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.unit.test_plan_cli import run

    source = GOLDEN / "sessions-rules" / "openclaw-features.jsonl"
    code, out, _ = run(
        capsys, "plan", str(source), "--rules", "openclaw-2026.9", "--keep-recent-tokens", "2000", "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["rules"] == "openclaw-2026.9"
    assert data["latestUnresolvedUserRequest"].startswith("The latest ask: make the writer stream.")
    assert data["explanation"][0]["text"] == "planned by the rules of openclaw-2026.9"
    last = GOLDEN / "sessions-rules" / "openclaw-compaction-last.jsonl"
    code, out, _ = run(capsys, "plan", str(last))  # a version-4 header: OpenClaw's rules without asking
    assert code == 0 and "rules openclaw-2026.9" in out and "refused: No complete recent message fits" in out
