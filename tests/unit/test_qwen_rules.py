"""Qwen Code 0.24's compression rule as a rule set: when it fires, and that it summarizes everything.

The figures are Qwen Code 0.24.4's (its chat compression service: DEFAULT_PCT 0.85,
COMPACT_MAX_OUTPUT_TOKENS 20,000, AUTOCOMPACT_BUFFER 13,000); the sessions are the ones it wrote.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cutline.core.agents import read_session
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.plan import plan
from cutline.core.engine.rules.choice import evidence, written_by
from cutline.core.releases.qwen_code_0_24.planner import auto_threshold
from tests.support.paths import TESTS

CORPUS = TESTS / "fixtures" / "corpus" / "qwen-code"


@pytest.mark.parametrize(
    ("window", "threshold"),
    [(200_000, 167_000), (1_000_000, 850_000), (131_072, 98_072), (32_768, 0.85 * 32_768)],
)
def test_the_auto_threshold(window: int, threshold: float) -> None:
    assert auto_threshold(window) == pytest.approx(threshold)


def test_a_qwen_chat_is_planned_by_its_own_rules_and_everything_is_summarized() -> None:
    session = read_session(CORPUS / "main" / "before-compact.jsonl")
    path = session.active_path()
    assert evidence(path, "qwen_code") == "qwen-code-0.24"
    assert written_by(path, "qwen_code").rules == "qwen-code-0.24"
    planned = plan(path, CompactionSettings(keepRecentTokens=50), rules=evidence(path, "qwen_code"))
    messages = [i for i, e in enumerate(path) if e.type == "message"]
    assert planned.firstKeptEntryId is None and planned.kept_indices() == []
    assert [i for i in planned.summarize_indices() if i in messages] == messages
    assert not planned.shouldCompact  # ~19k tokens, under 167,000


def test_after_a_compression_its_summary_and_what_followed_are_summarized() -> None:
    path = read_session(CORPUS / "main" / "session.jsonl").active_path()
    planned = plan(path, rules="qwen-code-0.24")
    compaction = max(i for i, e in enumerate(path) if e.type == "compaction")
    assert planned.previousCompactionIndex == compaction and planned.previousSummary
    assert planned.summarize_indices()[0] == compaction + 1 and planned.firstKeptEntryId is None


def test_a_trailing_calling_turn_is_kept(tmp_path: Path) -> None:
    lines = (CORPUS / "main" / "before-compact.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    calling = max(
        i for i, line in enumerate(lines) if json.loads(line).get("type") == "assistant" and '"functionCall"' in line
    )
    file = tmp_path / "chat.jsonl"
    file.write_text("".join(lines[: calling + 1]), encoding="utf-8")
    path = read_session(file).active_path()
    planned = plan(path, rules="qwen-code-0.24")
    assert planned.firstKeptEntryId == path[-1].id and planned.kept_indices() == [len(path) - 1]


def test_a_single_turn_is_never_compressed(tmp_path: Path) -> None:
    first = (CORPUS / "main" / "before-compact.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)[0]
    file = tmp_path / "chat.jsonl"
    file.write_text(first, encoding="utf-8")
    planned = plan(read_session(file).active_path(), rules="qwen-code-0.24")
    assert planned.nothingToCompact
