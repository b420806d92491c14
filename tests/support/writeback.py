"""Write-back test kit for every agent: a proposal from a session file, file checks, and the kill / concurrency loops.

An agent's write-back tests give `Case` a session file and a way to tell a complete
compaction from the agent's lines; the loops here kill a real `accept --write-back` at
random moments and race it against a process appending like a running agent, then
check the file and the store. Claude Code, Codex and OpenClaw reuse it as is.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import os
import random
import signal
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cutline.core import review, session_writes
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compact import compact
from cutline.core.engine.plan import plan
from cutline.core.engine.proposal import Proposal
from cutline.core.store import Store
from cutline.core.store.proposals import Decision
from cutline.core.summarizers.base import Summarizer, SummaryRequest
from tests.support.paths import TESTS

SUMMARY = "## Goal\ncutline's summary of the work so far"


class FixedSummarizer(Summarizer):
    """The same summary every time, so a written line never depends on a summarizer."""

    name = "fixed"

    def __init__(self, text: str = SUMMARY) -> None:
        self.text = text

    async def summarize(self, request: SummaryRequest) -> str:
        return "## Original Request\nthe turn so far" if request.kind == "turn_prefix" else self.text


def propose(
    store: Store, path: Path, keep_recent_tokens: int = 60, text: str = SUMMARY, rules: str | None = None
) -> Proposal:
    """Import `path`, plan and compact it with a fixed summary, store the proposal (tied to the file's bytes)."""
    session_id = store.import_file(path).session_id
    session = store.load_session(session_id)
    settings = CompactionSettings.model_validate({"keepRecentTokens": keep_recent_tokens, "rules": rules})
    the_plan = plan(session.active_path(), settings)
    proposal = asyncio.run(compact(the_plan, session, FixedSummarizer(text), settings, today=dt.date(2026, 1, 1)))
    review.save_proposal(store, proposal, source_sha256=session.source_sha256)
    return proposal


def jsonl_lines(data: bytes) -> list[dict[str, object]]:
    """Every line of a JSONL file parsed; raises when any line is not a complete JSON object or the end has no newline."""
    assert not data or data.endswith(b"\n"), f"the file ends without a newline: {data[-80:]!r}"
    records = []
    for raw in data.split(b"\n")[:-1]:
        value = json.loads(raw)
        assert isinstance(value, dict)
        records.append(value)
    return records


def integrity_ok(db: Path) -> bool:
    """SQLite's integrity_check on the store is `ok`."""
    conn = sqlite3.connect(str(db))
    try:
        return [row[0] for row in conn.execute("PRAGMA integrity_check")] == ["ok"]
    finally:
        conn.close()


@dataclass
class KillStats:
    """What the kill loop saw: runs, how each ended and the damaged ones (must be none)."""

    runs: int = 0
    original: int = 0
    compacted: int = 0
    repaired: int = 0
    damaged: list[str] = field(default_factory=list)
    unkilled: str = ""  # the verdict of the one accept left to finish: "compacted", or the checker is blind
    window: float = 0.0  # the kills' delays were drawn from [0, window] seconds


def _child_accept(db: Path, proposal_id: str, slow_write: bool) -> None:
    """In a forked child: accept with write-back; `slow_write` splits the append in two writes with a pause (a large write)."""
    if slow_write:
        import cutline.core.agents.safe_write as safe_write

        real_write = os.write

        def halting_write(fd: int, data: bytes | memoryview) -> int:
            if len(data) > 40 and os.fstat(fd).st_size > 0:
                first = real_write(fd, bytes(data[: len(data) // 2]))
                time.sleep(0.01)
                return first + real_write(fd, bytes(data[len(data) // 2 :]))
            return real_write(fd, data)

        safe_write.os.write = halting_write  # type: ignore[attr-defined]
    store = Store(db)
    try:
        review.accept(store, proposal_id, write_back=True, timestamp="2026-01-01T00:00:00.000Z")
    finally:
        store.close()


def kill_loop(
    make_case: Callable[[Path], Path],
    check_file: Callable[[bytes, bytes, str], str],
    workdir: Path,
    runs: int = 50,
    max_delay: float = 0.15,
    seed: int = 15,
) -> KillStats:
    """SIGKILL `accept --write-back` at random moments; after the next start's recovery the file must be whole.

    `make_case(dir)` makes a session file; `check_file(original, now, entry_id)` returns
    "original", "compacted" or a description of the damage.
    """
    from cutline.core.session_writes import recover_write_backs

    rng = random.Random(seed)
    stats = KillStats()

    def one_run(n: int, delay: float | None) -> tuple[str, float]:
        """One accept, killed after `delay` seconds (None: left to finish); its verdict and how long it ran."""
        run_dir = workdir / f"run{n:02d}"
        run_dir.mkdir(parents=True)
        path = make_case(run_dir)
        original = path.read_bytes()
        db = run_dir / "cutline.db"
        with Store(db) as store:
            proposal = propose(store, path)
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 0
            try:
                _child_accept(db, proposal.id, slow_write=n % 2 == 1)
            except BaseException:
                code = 1
            os._exit(code)
        if delay is not None:
            time.sleep(delay)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        elapsed = time.monotonic() - started
        with Store(db) as store:
            if any("repaired" in m or "cut out" in m or "removed" in m for m in recover_write_backs(store)):
                stats.repaired += 1
            status = store.proposals.status(proposal.id)
        verdict = check_file(original, path.read_bytes(), proposal.entryId)
        wanted = {"original": "open", "compacted": "accepted"}.get(verdict)
        if wanted is None:
            stats.damaged.append(f"run {n}: {verdict}")
        elif status != wanted:
            stats.damaged.append(f"run {n}: the file is {verdict} but the proposal is {status}")
        if not integrity_ok(db):
            stats.damaged.append(f"run {n}: the store's integrity_check failed")
        return verdict, elapsed

    # Why: on a loaded machine an accept takes many times longer and fixed delays all land before it
    # commits; the delays are drawn over the time an accept takes here and now, and the loop asserts
    # safety (no damage), not where the kills happened to land.
    stats.unkilled, took = one_run(runs, None)
    stats.window = max(max_delay, 1.5 * took)
    for n in range(runs):
        verdict, _ = one_run(n, rng.uniform(0, stats.window))
        stats.runs += 1
        if verdict == "original":
            stats.original += 1
        elif verdict == "compacted":
            stats.compacted += 1
    return stats


@dataclass
class RaceStats:
    """What the concurrent-append loop saw."""

    runs: int = 0
    written: int = 0
    refused: int = 0
    agent_lines: int = 0
    dead_branch_warned: int = 0
    damaged: list[str] = field(default_factory=list)


def race_loop(
    make_case: Callable[[Path], Path],
    agent_append: Callable[[Path, int], None],
    check_file: Callable[[bytes, str, bool], str | None],
    workdir: Path,
    runs: int = 40,
    seed: int = 16,
) -> RaceStats:
    """Accept with write-back while another process appends like a running agent; the file must stay whole.

    `agent_append(path, seed)` runs in a forked process and appends the agent's lines
    at random moments; `check_file(now, entry_id, written)` returns None when the file is
    right (whole lines, no orphaned agent line) or the damage.
    """
    from cutline.core.errors import CutlineError
    from cutline.core.session_writes import drift_warning

    rng = random.Random(seed)
    stats = RaceStats()
    for n in range(runs):
        run_dir = workdir / f"race{n:02d}"
        run_dir.mkdir(parents=True)
        path = make_case(run_dir)
        db = run_dir / "cutline.db"
        store = Store(db)
        try:
            proposal = propose(store, path)
            before = len(path.read_bytes().splitlines())
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child
                try:
                    agent_append(path, rng.randrange(1 << 30))
                finally:
                    os._exit(0)
            time.sleep(rng.uniform(0, 0.004))
            written = False
            try:
                review.accept(store, proposal.id, write_back=True)
                written = True
            except CutlineError:
                stats.refused += 1
            os.waitpid(pid, 0)
            stats.runs += 1
            stats.written += written
            now = path.read_bytes()
            stats.agent_lines += len(now.splitlines()) - before - (1 if written else 0)
            damage = check_file(now, proposal.entryId, written)
            if damage:
                stats.damaged.append(f"run {n}: {damage}")
            if written:
                store.import_file(path)
                if drift_warning(store, proposal.id):
                    stats.dead_branch_warned += 1
            if not integrity_ok(db):
                stats.damaged.append(f"run {n}: the store's integrity_check failed")
        finally:
            store.close()
    return stats


def thirdparty_case(tmp_path: Path, agent: str) -> Path:
    """The corpus's third-party Claude Code or Codex session without its last record(s), which a proposal can be
    written into."""
    corpus = TESTS / "fixtures" / "corpus"
    source, drop = (
        (corpus / "claude-code" / "thirdparty" / "session.jsonl", 2)
        if agent == "claude_code"
        else (corpus / "codex" / "thirdparty" / "rollout.jsonl", 1)
    )
    path = tmp_path / ("session.jsonl" if agent == "claude_code" else "rollout-x.jsonl")
    path.write_bytes(b"".join(source.read_bytes().splitlines(keepends=True)[:-drop]))
    return path


def write_accepted(store: Store, proposal_id: str, stamp: str) -> Decision:
    """`session_writes.write_back` of the proposal's latest summary, as `accept` calls it once the summary passed."""
    proposal = review.load_proposal(store, proposal_id)
    version = review.latest_version(store, proposal_id)
    decision = Decision(
        proposal_id=proposal_id,
        session_id=proposal.session_id,
        decision="accepted",
        decided_at=stamp,
        version=version.n,
    )
    session_writes.write_back(store, decision, entry_id=proposal.entryId, record_text=version.text, timestamp=stamp)
    return decision
