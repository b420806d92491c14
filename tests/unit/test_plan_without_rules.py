"""A plan made by a mode that uses no planner rule set says none (it said pi-0.73, which had not decided anything)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cutline.core import choices
from tests.support.cli import run
from tests.support.paths import ROOT

SESSION = ROOT / "sample_sessions" / "pi-coding-session.jsonl"
# the modes that hand the cut to a rule set (pi's compact() and OpenClaw's safeguard on top of it)
WITH_RULES = ("pi", "safeguard")


@pytest.mark.parametrize("mode", choices.MODES)
def test_the_plan_names_the_rule_set_only_when_one_decided(
    mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / SESSION.name
    shutil.copyfile(SESSION, copy)
    db = str(tmp_path / "s.db")
    code, out, err = run(capsys, "plan", "--json", "--mode", mode, "--db", db, str(copy))
    assert code == 0, err
    rules = json.loads(out)["rules"]
    code, text, err = run(capsys, "plan", "--mode", mode, "--db", db, str(copy))
    assert code == 0, err
    if mode in WITH_RULES:
        assert rules in choices.RULE_SETS
        assert f"rules {rules} ·" in text or f"rules {rules} (" in text  # "(… written by …)" where it differs
    else:
        assert rules is None
        assert "rules none ·" in text


@pytest.mark.parametrize("mode", choices.MODES)
def test_the_proposal_names_the_rule_set_only_when_one_decided(
    mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`cutline compact` said `"rules": "pi-0.73"` and `rules None` for a mode that plans with no rule set."""
    copy = tmp_path / SESSION.name
    shutil.copyfile(SESSION, copy)
    db = str(tmp_path / "s.db")
    common = ("--mode", mode, "--summarizer", "extractive", "--db", db, str(copy))
    code, out, err = run(capsys, "compact", "--json", *common)
    assert code == 0, err
    rules = json.loads(out)["rules"]
    code, text, err = run(capsys, "compact", *common)
    assert code == 0, err
    if mode in WITH_RULES:
        assert rules in choices.RULE_SETS
        assert f"  rules {rules}  " in text
    else:
        assert rules is None
        assert "  rules none  " in text
