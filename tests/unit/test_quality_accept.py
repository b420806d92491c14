"""A strict quality guard makes a failing proposal unacceptable; `compact --json` carries the verdict."""

from __future__ import annotations

import asyncio
import datetime as dt
import json

import pytest
from click.testing import CliRunner

from cutline.app.cli import cli
from cutline.core import review
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compact import compact
from cutline.core.engine.plan import plan
from cutline.core.releases.openclaw_2026_9.guard import REQUIRED_SUMMARY_SECTIONS
from cutline.core.releases.openclaw_2026_9.safeguard import retain_protected_facts
from cutline.core.store import Store
from tests.golden_writeback.make_session import write_session
from tests.support.engine_builders import GOOD, Scripted


def _proposal(tmp_path, strict: bool, answer: str):
    path = write_session(tmp_path / "session.jsonl")
    store = Store(tmp_path / "cutline.db")
    session = store.load_session(store.import_file(path).session_id)
    settings = CompactionSettings(
        keepRecentTokens=300, rules="openclaw-2026.9", identifierPolicy="off", recentTurnsPreserve=0
    )
    settings.qualityGuard.strict = strict
    settings.qualityGuard.maxRetries = 0
    the_plan = plan(session.active_path(), settings)
    proposal = asyncio.run(compact(the_plan, session, Scripted(answer), settings, today=dt.date(2026, 1, 1)))
    review.save_proposal(store, proposal)
    return store, proposal


def test_strict_guard_refuses_a_failing_summary_in_one_line(tmp_path) -> None:
    store, proposal = _proposal(tmp_path, strict=True, answer="## Decisions\n- only this")
    assert proposal.quality is not None and not proposal.quality.ok and proposal.quality.strict
    with pytest.raises(review.InvalidProposal) as caught:
        review.accept(store, proposal.id, write_back=False)
    message = str(caught.value)
    assert "\n" not in message and "qualityGuard.strict is on" in message
    assert "missing_section:## Open TODOs" in message
    # an edit that adds the sections makes it acceptable
    fixed = retain_protected_facts(GOOD, proposal.details.latestUnresolvedUserRequest, [])
    edited = proposal.summary.replace("## Decisions\n- only this", fixed)
    review.add_version(store, proposal.id, edited)
    assert review.accept(store, proposal.id, write_back=False).proposal_id == proposal.id
    store.close()


def test_without_strict_a_failing_summary_may_be_accepted(tmp_path) -> None:
    store, proposal = _proposal(tmp_path, strict=False, answer="## Decisions\n- only this")
    assert proposal.quality is not None and not proposal.quality.ok
    assert review.accept(store, proposal.id, write_back=False).proposal_id == proposal.id
    store.close()


def test_compact_json_carries_the_verdict(tmp_path) -> None:
    path = write_session(tmp_path / "session.jsonl")
    result = CliRunner().invoke(
        cli, ["compact", str(path), "--json", "--keep-recent-tokens", "300", "--db", str(tmp_path / "c.db")]
    )
    assert result.exit_code == 0, result.output
    proposal = json.loads(result.output)
    assert proposal["quality"]["ok"] in (True, False)
    assert proposal["quality"]["inputs"]["requiredSections"] == []
    assert len(REQUIRED_SUMMARY_SECTIONS) == 5
