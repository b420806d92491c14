"""Claude Code and Codex write-back safety, measured: SIGKILL at random moments, and a running agent appending meanwhile.

Issue 15, item 8, with the shared loops of tests/support/writeback.py: after a kill the
file is the original or the original plus one complete compaction (never a partial
line) and the store's integrity_check is ok; while another process appends like the
running agent, the compaction is either refused (nothing of it left) or written right
after the bytes it was made from, never after an agent line it did not see.
"""

from __future__ import annotations

import json
import os
import random
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from cutline.core.agents.claude_code.compaction import derived_uuid
from tests.support.paths import TESTS
from tests.support.writeback import jsonl_lines, kill_loop, race_loop

CORPUS = TESTS / "fixtures" / "corpus"
SOURCES = {
    "claude_code": (CORPUS / "claude-code" / "thirdparty" / "session.jsonl", 2),
    "codex": (CORPUS / "codex" / "thirdparty" / "rollout.jsonl", 1),
}

KILL_WINDOW = {"claude_code": 0.5, "codex": 0.3}

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the loops fork (POSIX only)")


def _maker(agent: str):  # type: ignore[no-untyped-def]
    source, appended = SOURCES[agent]

    def make_case(directory: Path) -> Path:
        """The corpus session before its compaction (the kit writer's lines taken off)."""
        path = directory / ("session.jsonl" if agent == "claude_code" else "rollout-x.jsonl")
        path.write_bytes(b"".join(source.read_bytes().splitlines(keepends=True)[:-appended]))
        return path

    return make_case


def _ours(agent: str, records: list[dict[str, Any]], session_id: str, entry_id: str) -> bool:
    """Whether `records` are exactly one complete compaction as cutline writes it."""
    if agent == "codex":
        return (
            len(records) == 1 and records[0].get("type") == "compacted" and isinstance(records[0].get("ordinal"), int)
        )
    boundary = derived_uuid(session_id, entry_id, "boundary")
    return (
        len(records) == 2
        and records[0].get("subtype") == "compact_boundary"
        and records[0].get("uuid") == boundary
        and records[1].get("isCompactSummary") is True
        and records[1].get("parentUuid") == boundary
    )


def _session_id(agent: str, original: bytes) -> str:
    first = json.loads(original.splitlines()[0])
    if agent == "codex":
        return str(first["payload"]["id"])
    return next(str(json.loads(x)["sessionId"]) for x in original.splitlines() if b'"sessionId"' in x)


def _checker(agent: str):  # type: ignore[no-untyped-def]
    def check_killed(original: bytes, now: bytes, entry_id: str) -> str:
        if now == original:
            return "original"
        if not now.startswith(original):
            return "the original bytes were changed"
        added = now[len(original) :]
        try:
            records = jsonl_lines(added)
        except (AssertionError, ValueError):
            return f"a partial line was left: {added[-60:]!r}"
        if not _ours(agent, records, _session_id(agent, original), entry_id):
            return f"unexpected lines were added: {added[:80]!r}"
        return "compacted"

    return check_killed


@pytest.mark.parametrize("agent", sorted(SOURCES))
def test_kill_loop_never_leaves_a_partial_line(agent: str, tmp_path: Path) -> None:
    # an accept here (re-reading a 190 KB transcript) takes longer than pi's: kills spread over its whole run
    stats = kill_loop(_maker(agent), _checker(agent), tmp_path, runs=50, max_delay=KILL_WINDOW[agent])
    print(
        f"\n{agent} kill loop: {stats.runs} SIGKILLs; {stats.original} left the original, {stats.compacted} the "
        f"original + one compaction ({stats.repaired} half lines repaired on the next start; delays over {stats.window:.2f} s); "
        f"damaged: {len(stats.damaged)}"
    )
    assert stats.damaged == [], "\n".join(stats.damaged)
    assert stats.runs == 50
    assert stats.unkilled == "compacted"  # the checker tells a complete compaction from the original


def _agent_line(agent: str, last: dict[str, Any], n: int) -> dict[str, Any]:
    if agent == "codex":
        return {
            "timestamp": "2026-01-01T00:00:00.000Z",
            "ordinal": int(last["ordinal"]) + 1,
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"agent {n}"}]},
        }
    return {
        "parentUuid": last.get("uuid"),
        "isSidechain": False,
        "type": "user",
        "message": {"role": "user", "content": f"agent {n}"},
        "uuid": str(uuid.uuid4()),
        "timestamp": "2026-01-01T00:00:00.000Z",
        "sessionId": last.get("sessionId"),
    }


def _appender(agent: str, originals: dict[str, bytes]):  # type: ignore[no-untyped-def]
    def agent_append(path: Path, seed: int) -> None:
        """A running agent: appends a few records after the last one it knows (it never re-reads the file).

        What it knows is the session the proposal was made from, whenever this process gets to run.
        """
        rng = random.Random(seed)
        records = jsonl_lines(originals["data"])
        last = next(r for r in reversed(records) if agent == "codex" or r.get("uuid"))
        time.sleep(rng.uniform(0, 0.05))
        for n in range(rng.randint(1, 3)):
            time.sleep(rng.uniform(0, 0.002))
            record = _agent_line(agent, last, n)
            with path.open("ab") as handle:  # one write in append mode, as both agents append
                handle.write(json.dumps(record, separators=(",", ":")).encode() + b"\n")
            last = record

    return agent_append


def _race_checker(agent: str, originals: dict[str, bytes]):  # type: ignore[no-untyped-def]
    def check_raced(now: bytes, entry_id: str, written: bool) -> str | None:
        try:
            records = jsonl_lines(now)
        except (AssertionError, ValueError) as exc:
            return f"a partial line: {exc}"
        original = originals["data"]
        if not now.startswith(original):
            return "the original bytes were changed"
        added = records[len(original.splitlines()) :]
        ours = [
            i for i, r in enumerate(added) if r.get("type") == "compacted" or r.get("subtype") == "compact_boundary"
        ]
        if not written:
            return "the refused compaction left lines behind" if ours else None
        if ours != [0]:
            return f"the compaction is not right after the bytes it was made from (at {ours})"
        width = 1 if agent == "codex" else 2
        if not _ours(agent, added[:width], _session_id(agent, original), entry_id):
            return "the compaction is incomplete"
        return None

    return check_raced


@pytest.mark.parametrize("agent", sorted(SOURCES))
def test_race_with_a_running_agent_never_damages_the_file(agent: str, tmp_path: Path) -> None:
    make = _maker(agent)
    originals: dict[str, bytes] = {}

    def make_case(directory: Path) -> Path:
        path = make(directory)
        originals["data"] = path.read_bytes()
        return path

    stats = race_loop(make_case, _appender(agent, originals), _race_checker(agent, originals), tmp_path, runs=40)
    print(
        f"\n{agent} race loop: {stats.runs} accepts against an appending agent; {stats.written} written, "
        f"{stats.refused} refused, {stats.agent_lines} agent lines; dead branch warned {stats.dead_branch_warned}; "
        f"damaged: {len(stats.damaged)}"
    )
    assert stats.damaged == [], "\n".join(stats.damaged)
    assert stats.runs == 40 and stats.written + stats.refused == 40
    # a written compaction saw the file unchanged, so every agent line came after it, from an agent that never
    # resumed from it: each one is warned about (found by what the store recorded as written)
    assert stats.dead_branch_warned == stats.written
