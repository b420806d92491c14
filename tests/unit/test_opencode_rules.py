"""opencode 1.18's compaction as a rule set: when it fires, and the tail it keeps — the one opencode kept.

The figures are opencode 1.18.33's (OUTPUT_TOKEN_MAX 32,000; preserve_recent_tokens default
min(15,000, max(2,000, ⌊usable × 0.25⌋)); Token.estimate = round(length / 4)). The corpus session
was compacted by opencode itself with `compaction.preserve_recent_tokens` 200 (drive_opencode.sh):
planned from the path before that compaction with the same budget, the rule set must keep the
tail opencode kept (its compaction part's `tail_start_id`).
"""

from __future__ import annotations

import pytest

from cutline.core.agents import read_session
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.plan import plan
from cutline.core.engine.rules.choice import evidence, written_by
from cutline.core.releases.opencode_1_18.planner import preserve_budget, usable
from tests.support.paths import TESTS

CORPUS = TESTS / "fixtures" / "corpus" / "opencode" / "main"
DRIVER_BUDGET = 200  # the corpus' compaction.preserve_recent_tokens


@pytest.mark.parametrize(
    ("window", "output", "threshold"),
    [(64_000, 4_000, 60_000), (200_000, 64_000, 168_000), (128_000, 32_000, 96_000), (0, 4_000, 0)],
)
def test_the_usable_context(window: int, output: int, threshold: int) -> None:
    assert usable(window, output) == threshold


@pytest.mark.parametrize(("usable_tokens", "keep"), [(60_000, 15_000), (20_000, 5_000), (4_000, 2_000)])
def test_the_default_tail_budget(usable_tokens: int, keep: int) -> None:
    assert preserve_budget(usable_tokens) == keep


def test_an_opencode_session_is_planned_by_its_own_rules() -> None:
    path = read_session(CORPUS / "before-compact.sqlite").active_path()
    assert evidence(path, "opencode") == "opencode-1.18"
    assert written_by(path, "opencode").rules == "opencode-1.18"


def test_the_tail_is_the_one_opencode_kept() -> None:
    path = read_session(CORPUS / "after-auto-compact.sqlite").active_path()
    compaction = next(i for i, e in enumerate(path) if e.type == "compaction")
    record = path[compaction].compaction
    assert record is not None and record.firstKeptEntryId is not None
    before = path[:compaction]
    planned = plan(before, CompactionSettings(keepRecentTokens=DRIVER_BUDGET), rules="opencode-1.18")
    assert planned.firstKeptEntryId == record.firstKeptEntryId
    kept = planned.kept_indices()
    assert kept and before[kept[0]].id == record.firstKeptEntryId
    assert planned.summarize_indices() == [i for i in range(kept[0]) if before[i].type == "message"]
    # with opencode's own default budget (15,000 for a 64,000 window) the whole session fits: nothing kept
    whole = plan(before, CompactionSettings(contextWindow=64_000, reserveTokens=4_000), rules="opencode-1.18")
    assert whole.keepRecentTokens == 15_000 and whole.firstKeptEntryId is None and whole.kept_indices() == []
    assert whole.threshold == 60_000


def test_after_a_compaction_the_summary_goes_with_the_rest() -> None:
    path = read_session(CORPUS / "session.sqlite").active_path()
    planned = plan(path, CompactionSettings(keepRecentTokens=10), rules="opencode-1.18")
    compaction = max(i for i, e in enumerate(path) if e.type == "compaction")
    assert planned.previousCompactionIndex == compaction and planned.previousSummary
    assert compaction not in planned.summarize_indices()
