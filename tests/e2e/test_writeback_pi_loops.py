"""pi write-back safety, measured: SIGKILL at random moments, and a running agent appending meanwhile (issue 15, item 8)."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import pytest

from tests.support.paths import TESTS
from tests.support.writeback import jsonl_lines, kill_loop, race_loop

SOURCE = TESTS / "fixtures" / "corpus" / "pi-0.73" / "main" / "after-manual-compact.jsonl"

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the loops fork (POSIX only)")


def make_case(directory: Path) -> Path:
    """The corpus session right before pi's own manual compaction."""
    path = directory / "session.jsonl"
    path.write_bytes(b"".join(SOURCE.read_bytes().splitlines(keepends=True)[:-1]))
    return path


def check_killed(original: bytes, now: bytes, entry_id: str) -> str:
    """The original, or the original plus one complete compaction line; anything else is damage."""
    if now == original:
        return "original"
    if not now.startswith(original):
        return "the original bytes were changed"
    added = now[len(original) :]
    if not added.endswith(b"\n") or added.count(b"\n") != 1:
        return f"a partial or extra line was left: {added[:60]!r}…"
    record = json.loads(added)
    if record.get("type") != "compaction" or record.get("id") != entry_id:
        return f"an unexpected line was added: {added[:60]!r}"
    return "compacted"


def test_kill_loop_never_leaves_a_partial_line(tmp_path: Path) -> None:
    stats = kill_loop(make_case, check_killed, tmp_path, runs=50)
    print(
        f"\nkill loop: {stats.runs} SIGKILLs; {stats.original} left the original, {stats.compacted} the original "
        f"+ one compaction ({stats.repaired} half lines repaired on the next start; delays over {stats.window:.2f} s); "
        f"damaged: {len(stats.damaged)}"
    )
    assert stats.damaged == [], "\n".join(stats.damaged)
    assert stats.runs == 50
    assert stats.unkilled == "compacted"  # the checker tells a complete compaction from the original


def agent_append(path: Path, seed: int) -> None:
    """A running pi: appends a few entries to its in-memory leaf (it never re-reads the file), at random moments."""
    rng = random.Random(seed)
    leaf = str(jsonl_lines(path.read_bytes())[-1]["id"])
    time.sleep(rng.uniform(0, 0.05))  # somewhere in the ~30 ms an accept takes
    for n in range(rng.randint(1, 3)):
        time.sleep(rng.uniform(0, 0.002))
        entry_id = f"ag{seed % 100000:05d}{n}"
        record = {
            "type": "message",
            "id": entry_id,
            "parentId": leaf,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "agent"}], "timestamp": 1},
        }
        with path.open("ab") as handle:  # appendFileSync: one write in append mode
            handle.write(json.dumps(record, separators=(",", ":")).encode() + b"\n")
        leaf = entry_id


def check_raced(now: bytes, entry_id: str, written: bool) -> str | None:
    """Whole lines only; every agent line on pi's active path (the last entry's ancestry); ours at most once."""
    try:
        records = jsonl_lines(now)
    except (AssertionError, ValueError) as exc:
        return f"damaged file: {exc}"
    entries = [r for r in records if r.get("type") != "session"]
    by_id = {str(r["id"]): r for r in entries}
    active: set[str] = set()
    node: dict[str, object] | None = entries[-1]
    while node is not None:
        active.add(str(node["id"]))
        node = by_id.get(str(node.get("parentId")))
    orphans = [str(r["id"]) for r in entries if str(r["id"]).startswith("ag") and str(r["id"]) not in active]
    if orphans:
        return f"agent lines off pi's path (orphaned): {orphans}"
    ours = [r for r in entries if r.get("id") == entry_id]
    if len(ours) > 1 or (ours and not written):
        return "cutline's compaction is in the file although the write-back reported failure"
    return None


def test_concurrent_agent_appends_never_damage_or_orphan(tmp_path: Path) -> None:
    stats = race_loop(make_case, agent_append, check_raced, tmp_path, runs=40)
    print(
        f"\nconcurrent-append loop: {stats.runs} runs, {stats.agent_lines} agent lines; {stats.written} written, "
        f"{stats.refused} refused, {stats.dead_branch_warned} warned (agent continued on its old branch); "
        f"damaged or orphaned: {len(stats.damaged)}"
    )
    assert stats.damaged == [], "\n".join(stats.damaged)
    assert stats.written + stats.refused == stats.runs == 40
