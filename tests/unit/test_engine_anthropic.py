"""The engine with the Anthropic summarizer over real HTTP against the local fake Messages API."""

from __future__ import annotations

import asyncio

import pytest

from cutline.core.agents import read_session
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compact import compact
from cutline.core.engine.plan import plan
from cutline.core.summarizers.anthropic import AnthropicSummarizer
from cutline.core.summarizers.prompts import SUMMARIZATION_SYSTEM_PROMPT, TURN_PREFIX_SUMMARIZATION_PROMPT
from tests.golden_writeback.make_session import write_session
from tests.support.fake_anthropic import FakeAnthropic, Step, error_body


@pytest.fixture
def session(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    return read_session(write_session(tmp_path / "s.jsonl"))


def summarizer(server: FakeAnthropic) -> AnthropicSummarizer:
    return AnthropicSummarizer(model="claude-test", base_url=server.base_url, timeout=5)


def test_split_turn_sends_two_requests_and_merges_replies(fake_anthropic, session):
    fake_anthropic.latency = 0.2
    settings = CompactionSettings(keepRecentTokens=300, lastTurnInjection=False, rules="pi-0.73")
    the_plan = plan(session.active_path(), settings)
    proposal = asyncio.run(compact(the_plan, session, summarizer(fake_anthropic), settings))
    requests = fake_anthropic.message_requests()
    assert len(requests) == 2
    assert fake_anthropic.max_in_flight == 2  # history and turn prefix were sent concurrently
    bodies = sorted((r.body for r in requests), key=lambda b: b["max_tokens"])
    assert [b["max_tokens"] for b in bodies] == [8192, 13107]
    assert all(b["system"] == SUMMARIZATION_SYSTEM_PROMPT and b["model"] == "claude-test" for b in bodies)
    assert bodies[0]["messages"][0]["content"].endswith(TURN_PREFIX_SUMMARIZATION_PROMPT)
    assert proposal.summary.startswith(
        "## Goal\n- fake summary\n\n---\n\n**Turn Context (split turn):**\n\n## Goal\n- fake summary\n\n## Tool Failures\n- bash: "
    )
    assert proposal.summarizer == "anthropic" and proposal.model == "claude-test"
    assert proposal.validation.ok and proposal.degraded == "none"


def test_api_failure_degrades_to_annotation_with_a_note(fake_anthropic, session):
    failure = Step(status=400, body=error_body(400, "invalid_request_error", "prompt is too long"))
    fake_anthropic.script([failure] * 10)
    settings = CompactionSettings(mode="system-and-summary")
    the_plan = plan(session.active_path(), settings)
    proposal = asyncio.run(compact(the_plan, session, summarizer(fake_anthropic), settings))
    assert proposal.degraded == "annotation"
    assert proposal.summary == "Context contained 14 messages (0 oversized). Summary unavailable due to size limits."
    assert any("full summarization failed" in note and "prompt is too long" in note for note in proposal.notes)
