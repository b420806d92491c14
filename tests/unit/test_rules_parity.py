"""Parity of the planner rule sets with the agents' own code: current pi (0.87.1) and OpenClaw 2026.9.

Goldens are what pi's and OpenClaw's published packages decide on the same sessions
(tests/golden/make_goldens_pi087.sh, make_goldens_rules.sh; fuzz sessions from
fuzz_rules.py), committed as JSON: no node needed. Compared per keepRecentTokens: the
first kept position, split turn, tokensBefore, message counts, previous summary, file
sets, OpenClaw's latest unresolved request and refusal, and "no plan".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cutline.core.agents import read_session
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.plan import index_path, plan
from cutline.core.engine.rules.choice import choose, evidence
from cutline.core.engine.rules.estimates import openclaw_chars, openclaw_tokens, pi_current_tokens
from cutline.core.models import Message
from cutline.core.releases.pi_0_87 import planner as pi_current
from tests.support.parity import check_plans, load_golden

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
PI = sorted((GOLDEN / "pi-0.87").glob("*.golden.json"))
OPENCLAW = sorted((GOLDEN / "openclaw-2026.9").glob("*.golden.json"))
FUZZ = sorted((GOLDEN / "fuzz-rules").glob("*.golden.json"))


def test_goldens_exist() -> None:
    assert len(PI) >= 27 and len(OPENCLAW) >= 26 and len(FUZZ) >= 48


@pytest.mark.parametrize(
    "golden", PI + [f for f in FUZZ if ".pi." in f.name], ids=lambda p: p.name.removesuffix(".golden.json")
)
def test_current_pi_plans_as_pi_0_87_does(golden: Path) -> None:
    data, path = load_golden(golden)
    for i, (entry, expected) in enumerate(zip(path, data["perEntry"], strict=True)):
        assert entry.type == ("other" if expected["type"] == "reset" else expected["type"])
        if expected["type"] == "message":
            assert entry.message is not None
            assert pi_current_tokens(entry.message) == expected["tokens"], f"path index {i}"
    assert len(pi_current.context_messages(index_path(path))) == data["contextMessages"]
    check_plans(data, path, "pi")


@pytest.mark.parametrize(
    "golden", OPENCLAW + [f for f in FUZZ if ".openclaw." in f.name], ids=lambda p: p.name.removesuffix(".golden.json")
)
def test_openclaw_plans_as_openclaw_2026_9_does(golden: Path) -> None:
    data, path = load_golden(golden)
    for i, (entry, expected) in enumerate(zip(path, data["perEntry"], strict=True)):
        if expected["type"] == "message":
            assert entry.message is not None
            assert openclaw_tokens(entry.message) == expected["tokens"], f"path index {i}"
    check_plans(data, path, "openclaw-2026.9")


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
    from tests.support.cli import run

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
