"""`cutline plan` and `cutline tokens` through the real CLI entry point (no network, temp CUTLINE_HOME)."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import run
from tests.support.fresh_python import fresh_python
from tests.support.paths import TESTS

GOLDEN = TESTS / "golden"


def test_plan_json_matches_pi_and_imports_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    source = GOLDEN / "sessions" / "split-turns.jsonl"
    expected = json.loads((GOLDEN / "split-turns.golden.json").read_text())["plans"]["5000"]
    code, out, _ = run(capsys, "plan", str(source), "--keep-recent-tokens", "5000", "--json")
    assert code == 0
    data = json.loads(out)
    for key in (
        "firstKeptEntryId",
        "firstKeptPathIndex",
        "isSplitTurn",
        "tokensBefore",
        "messagesToSummarize",
        "turnPrefixMessages",
    ):
        assert data[key] == expected[key], key
    assert data["readFiles"] == expected["readFiles"]
    assert "entryTokens" not in data and data["explanation"] and data["shouldCompact"] is False
    # the file is now in the store: plan it again by session id, with the cached counts
    code, again, _ = run(capsys, "plan", data["sessionId"], "--keep-recent-tokens", "5000", "--json")
    assert code == 0 and json.loads(again)["firstKeptPathIndex"] == expected["firstKeptPathIndex"]


def test_plan_text_explains(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "plan",
        str(GOLDEN / "sessions" / "special-cut-points.jsonl"),
        "--keep-recent-tokens",
        "5000",
        "--rules",
        "pi-0.73",
    )
    assert code == 0
    assert "cut: keep from path index 76" in out and "split turn from 74" in out
    assert "moved back over 1 label entry" in out


def test_plan_bad_settings_and_missing_session_are_one_line_errors(capsys: pytest.CaptureFixture[str]) -> None:
    source = str(GOLDEN / "sessions" / "images.jsonl")
    code, _, err = run(capsys, "plan", source, "--keep-recent-tokens", "-5")
    assert code == 1 and err.strip() == "cutline: compaction.keepRecentTokens: must be >= 0"
    code, _, err = run(capsys, "plan", "no-such-session")
    assert code == 1 and err.startswith("cutline: ") and "Traceback" not in err


def test_plan_other_modes(capsys: pytest.CaptureFixture[str]) -> None:
    source = str(GOLDEN / "sessions" / "branched.jsonl")
    code, out, _ = run(capsys, "plan", source, "--mode", "first-and-tail", "--json")
    data = json.loads(out)
    assert code == 0 and data["mode"] == "first-and-tail" and data["protectedHeadPathIndex"] == 0
    code, out, _ = run(capsys, "plan", source, "--mode", "system-and-summary", "--json")
    assert code == 0 and json.loads(out)["lastUserPathIndex"] is not None


def test_tokens_json_reports_each_counter_against_usage(capsys: pytest.CaptureFixture[str]) -> None:
    source = GOLDEN / "sessions" / "split-turns.jsonl"
    code, out, _ = run(capsys, "tokens", str(source), "--json")
    assert code == 0
    report = json.loads(out)
    assert report["counters"] == ["chars4", "tiktoken", "calibrated"]
    per_entry = json.loads((GOLDEN / "split-turns.golden.json").read_text())["perEntry"]
    assert [row["chars4"] for row in report["entries"]] == [e["tokens"] for e in per_entry]
    assert report["turns"] and all({"real", "chars4", "tiktoken", "calibrated"} <= set(t) for t in report["turns"])
    errors = {e["counter"]: e for e in report["errors"]}
    assert errors["chars4"]["samples"] == len(report["turns"])
    assert errors["calibrated"]["medianError"] <= errors["chars4"]["medianError"]


def test_tokens_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tokens", str(GOLDEN / "sessions" / "images.jsonl"), "--counter", "chars4")
    assert code == 0 and "relative error against usage" in out and "chars4" in out


def test_plan_never_imports_the_ui() -> None:
    code = (
        "import sys\n"
        "from cutline.app.cli import main\n"
        "try:\n"
        f"    main(['plan', {str(GOLDEN / 'sessions' / 'images.jsonl')!r}, '--json'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'tiktoken', 'anthropic')))\n"
    )
    out = fresh_python(code, cwd=GOLDEN.parent.parent)
    assert out.strip().splitlines()[-1] == "[]"


def test_a_json_plan_of_a_pi_file_never_imports_the_audit() -> None:
    """The text names the rules the session was written by (the audit's `window_writer`); JSON says `rules` and needs no audit.

    Importing core.audit.report (its matching, verdicts and the OpenClaw release it reads) was ~0.03-0.05 s of every
    `plan --json`; the text plan still imports it.
    """
    import ast

    def imported(*extra: str) -> list[str]:
        code = (
            "import sys\n"
            "from cutline.app.cli import main\n"
            f"main(['plan', {str(GOLDEN / 'sessions' / 'split-turns.jsonl')!r}, *{list(extra)!r}])\n"
            "print(sorted(m for m in sys.modules if m.startswith('cutline.core.audit')))\n"
        )
        out = fresh_python(code, cwd=GOLDEN.parent.parent)
        return list(ast.literal_eval(out.strip().splitlines()[-1]))

    assert imported("--json") == []
    assert "cutline.core.audit.report" in imported()  # the check can see it
