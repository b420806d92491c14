"""A compaction never cuts inside one API message, for agents whose records split one (Claude Code, Codex).

Claude Code writes one record per content block (same `message.id`) and one per parallel
tool result; Codex writes each parallel `function_call` as an item of its own. On sessions
the real programs wrote with parallel calls (tests/fixtures/corpus/*/parallel*), every
keepRecentTokens from 1 to past the whole session, under every rule set, gives a plan
whose proposal the API would accept: no kept tool result answers a summarized call.
"""

from __future__ import annotations

import asyncio
import json
from itertools import count
from pathlib import Path

import pytest

from cutline.core.agents import read_session
from cutline.core.agents.boundaries import continues_message
from cutline.core.agents.index_facts import entry_facts
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compact import compact
from cutline.core.engine.path_index import PathIndex
from cutline.core.engine.plan import index_path, plan
from cutline.core.engine.rules import RULES
from cutline.core.engine.rules.choice import OPENCODE, QWEN_CODE
from cutline.core.models import Session
from cutline.core.summarizers.extractive import ExtractiveSummarizer
from tests.support.paths import TESTS

CORPUS = TESTS / "fixtures" / "corpus"
SESSIONS = [
    "claude-code/parallel/session.jsonl",
    "claude-code/parallel-2.1.332/session.jsonl",
    "codex/parallel/rollout.jsonl",
    "codex/parallel-0.171.0/rollout.jsonl",
]


def _distinct_plans(session: Session, rules: str) -> dict[tuple[str | None, tuple[int, ...]], int]:
    """Each distinct cut (first kept entry, split-turn prefix) for keepRecentTokens = 1, 2, 3, … up to the whole session.

    Keyed by the cut, with the first value that gives it. The sweep ends where the cut is
    the one a keepRecentTokens past any session's size gives (the earliest it can be).
    """
    index = index_path(session.active_path())
    settings = CompactionSettings(keepRecentTokens=10**9)

    def cut() -> tuple[str | None, tuple[int, ...]]:
        planned = plan(index, settings, rules=rules)
        return planned.firstKeptEntryId, tuple(planned.turn_prefix_indices())

    whole = cut()
    seen: dict[tuple[str | None, tuple[int, ...]], int] = {}
    if rules == OPENCODE:
        # opencode keeps nothing both when nothing fits and when everything does: sweep past the whole session
        limit = 4 * sum(index.tokens) + 10
        for keep in range(1, limit, max(1, limit // 500)):
            settings.keepRecentTokens = keep
            seen.setdefault(cut(), keep)
        return seen
    for keep in count(1):
        settings.keepRecentTokens = keep
        found = cut()
        seen.setdefault(found, keep)
        if found == whole:
            return seen
    raise AssertionError("unreachable")


@pytest.mark.parametrize("rules", sorted(RULES))
@pytest.mark.parametrize("name", SESSIONS)
def test_no_keep_recent_tokens_cuts_inside_a_message(name: str, rules: str) -> None:
    session = read_session(CORPUS / name)
    path = session.active_path()
    assert sum(1 for e in path if e.message is not None and len(e.message.tool_calls()) == 1) >= 5  # the parallel calls
    invalid = []
    cuts = _distinct_plans(session, rules)
    # Qwen Code's rule keeps nothing (or a whole trailing turn) whatever keepRecentTokens says
    assert len(cuts) >= (1 if rules == QWEN_CODE else 3)
    for keep in cuts.values():
        for mode in ("pi", "safeguard"):
            settings = CompactionSettings(keepRecentTokens=keep, mode=mode)
            planned = plan(path, settings, rules=rules)
            proposal = asyncio.run(compact(planned, session, ExtractiveSummarizer(), settings))
            if not proposal.validation.ok:
                invalid.append(f"keepRecentTokens={keep} {mode}: {proposal.validation.summary()}")
    assert invalid == []


def test_the_sweep_covers_each_release() -> None:
    versions = {(CORPUS / Path(name).parent / "version").read_text().strip() for name in SESSIONS}
    assert versions == {"2.1.331", "2.1.332", "0.169.0", "0.171.0"}


@pytest.mark.parametrize("name", SESSIONS)
def test_the_stored_facts_give_the_same_cut_points(name: str) -> None:
    """The desk plans a stored session from each entry's facts (core.agents.index_facts): the same boundaries."""
    path = read_session(CORPUS / name).active_path()
    direct = index_path(path)
    facts = [json.loads(entry_facts(e)) for e in path]
    stored = PathIndex.from_facts(
        path, direct.tokens, direct.counter, [e.id for e in path], [e.type for e in path], facts
    )
    assert stored.cut_points == direct.cut_points
    continuing = [i for i, e in enumerate(path) if e.message is not None and continues_message(e.message)]
    assert continuing and not set(continuing) & set(stored.cut_points)
