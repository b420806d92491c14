"""A model's compression reply under Qwen Code's prompt loses its <analysis> block, as Qwen Code 0.24.4 drops it."""

from __future__ import annotations

import asyncio

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.summary_run import SummaryRun, SummaryStyle
from cutline.core.summarizers.base import Summarizer, SummaryRequest

SNAPSHOT = "<state_snapshot>\n    <primary_request_and_intent>\n        Add --bbox.\n    </primary_request_and_intent>\n</state_snapshot>"


class Replying(Summarizer):
    def __init__(self, reply: str) -> None:
        self.reply = reply

    async def summarize(self, request: SummaryRequest) -> str:
        return self.reply


def _kept(reply: str, prompt: str) -> str:
    run = SummaryRun(
        Replying(reply), CompactionSettings(), None, 100_000, SummaryStyle(prompt_name=prompt, serialize="pi")
    )
    return asyncio.run(run.call("history", SummaryRequest(prompt_name=prompt)))


def test_the_analysis_block_before_the_snapshot_is_dropped_and_the_rest_trimmed() -> None:
    reply = "<analysis>\n1. The user asked for --bbox.\n2. Files: tiler.py\n</analysis>\n\n" + SNAPSHOT + "\n"
    assert _kept(reply, "qwen-code") == SNAPSHOT


def test_every_closed_block_and_an_unclosed_one_at_the_end_are_dropped() -> None:
    reply = "<analysis>a</analysis> <analysis>b</analysis>\n" + SNAPSHOT + "\n<analysis>cut off mid-draft"
    assert _kept(reply, "qwen-code") == SNAPSHOT


def test_other_prompts_keep_the_reply_as_it_came() -> None:
    reply = "<analysis>a</analysis>\n## Goal\nAdd --bbox.\n"
    assert _kept(reply, "pi-checkpoint") == reply
