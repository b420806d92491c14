"""Regression tests for bugs found by using the whole CLI as a user would (through `app.cli.main`, errors included)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from tests.fake_anthropic import fake_anthropic, server_error  # noqa: F401 - fixture
from tests.golden_writeback.make_session import write_session


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run `cutline ARGS` as the console script does; the exit code, stdout and stderr."""
    code = 0
    try:
        main(list(args))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return code, out, err


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return write_session(tmp_path / "session.jsonl")


def test_compact_with_a_failing_api_is_one_line_error_and_stores_nothing(
    capsys, session: Path, tmp_path: Path, fake_anthropic, monkeypatch  # noqa: F811 - fixture
):
    """Three 500s used to give exit 0 and a stored "Summary unavailable due to size limits." proposal."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-qa")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.base_url)
    fake_anthropic.script(server_error(30))
    db = str(tmp_path / "c.db")
    code, out, err = run(capsys, "compact", str(session), "--summarizer", "anthropic", "--keep-recent-tokens", "300", "--json", "--db", db)
    assert code == 1 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("cutline: the anthropic summarizer failed (history: full summarization failed: Anthropic API: 500")
    assert err.rstrip().endswith("; no proposal stored")
    code, out, _ = run(capsys, "proposals", str(session), "--json", "--db", db)
    assert code == 0 and json.loads(out) == []


def test_compact_with_the_api_answering_makes_a_proposal(
    capsys, session: Path, tmp_path: Path, fake_anthropic, monkeypatch  # noqa: F811 - fixture
):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-qa")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.base_url)
    code, out, _ = run(capsys, "compact", str(session), "--summarizer", "anthropic", "--keep-recent-tokens", "300", "--json", "--db", str(tmp_path / "c.db"))
    assert code == 0
    proposal = json.loads(out)
    assert proposal["summary"].startswith("## Goal\n- fake summary") and proposal["degraded"] == "none"
    sent = fake_anthropic.message_requests()[0].headers
    assert "sk-qa" in sent.get("x-api-key", "") + sent.get("authorization", ""), sent


@pytest.mark.parametrize(
    ("prompt", "message"),
    [
        ("nope", "cutline: unknown prompt 'nope' (known: "),
        ("merge", "cutline: prompt 'merge' cannot be used for a history summary"),
    ],
)
def test_compact_rejects_a_bad_prompt_even_with_nothing_to_summarize(capsys, session: Path, tmp_path: Path, prompt, message):
    """A huge keepRecentTokens leaves nothing to summarize; the bad --prompt used to be ignored silently."""
    code, out, err = run(
        capsys, "compact", str(session), "--keep-recent-tokens", "100000000", "--prompt", prompt, "--db", str(tmp_path / "c.db")
    )
    assert code == 1 and out == ""
    assert err.startswith(message)
