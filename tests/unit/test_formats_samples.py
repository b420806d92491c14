"""Every sample session reads cleanly; pi samples export byte-identically."""

from __future__ import annotations

from pathlib import Path

import pytest

from cutline.core.agents import export_pi, read_session, sniff
from tests.support.paths import SAMPLES

NAMES = {
    "pi-coding-session.jsonl": "pi",
    "pi-job-search.jsonl": "pi",
    "pi-displaced-last-exchange.jsonl": "pi",
    "pi-one-compaction.jsonl": "pi",
    "pi-two-compactions.jsonl": "pi",
    "pi-branched.jsonl": "pi",
    "pi-v1-legacy.jsonl": "pi",
    "pi-v2-hookmessage.jsonl": "pi",
    "claude-code-compacted.jsonl": "claude_code",
    "codex-rollout-compacted.jsonl": "codex",
}


def sample(name: str) -> Path:
    path = SAMPLES / name
    if not path.exists():
        pytest.skip(f"{name} has not been generated yet")
    return path


@pytest.mark.parametrize("name", sorted(NAMES))
def test_reads_without_errors(name: str) -> None:
    path = sample(name)
    assert sniff(path) == NAMES[name]
    session = read_session(path)
    assert [str(p) for p in session.problems if p.severity == "error"] == []
    assert session.entries and session.active_path()
    assert session.leaf_id in session.by_id()


@pytest.mark.parametrize("name", sorted(n for n, f in NAMES.items() if f == "pi"))
def test_pi_samples_export_byte_identical(name: str) -> None:
    path = sample(name)
    assert export_pi(read_session(path)).encode("utf-8") == path.read_bytes()


def test_v1_legacy_sample_migrates() -> None:
    session = read_session(sample("pi-v1-legacy.jsonl"))
    assert session.version == 1
    ids = [e.id for e in session.entries]
    assert len(set(ids)) == len(ids) and all(len(i) == 8 for i in ids)
    for entry in session.entries[1:]:
        assert entry.parentId == session.entries[session.entries.index(entry) - 1].id
    # recorded by hand from pi 0.73.1 (migrateSessionEntries on this file): the one
    # compaction is entry 22 and its firstKeptEntryIndex resolves to entry 17
    positions = {e.id: i for i, e in enumerate(session.entries)}
    assert [(positions[c.id], positions[c.compaction.firstKeptEntryId]) for c in session.compactions()] == [(22, 17)]


def test_v2_hookmessage_sample() -> None:
    session = read_session(sample("pi-v2-hookmessage.jsonl"))
    assert session.version == 2
    assert any(
        e.raw_line.find('"hookMessage"') >= 0 and e.message.role == "custom" for e in session.entries if e.message
    )


def test_branched_sample_has_branches() -> None:
    session = read_session(sample("pi-branched.jsonl"))
    positions = {e.id: i for i, e in enumerate(session.entries)}
    # parent positions recorded by hand from pi 0.73.1's reader on this file
    expected = [None, *range(10), 8, *range(11, 23), 8, *range(24, 38)]
    assert [positions.get(e.parentId) if e.parentId else None for e in session.entries] == expected
    assert len(session.active_path()) < len(session.entries)


def test_compacted_samples_have_their_summaries() -> None:
    cc = read_session(sample("claude-code-compacted.jsonl"))
    assert cc.compactions() and all(c.compaction.summary for c in cc.compactions())
    assert any(e.isCompactSummary for e in cc.entries)
    codex = read_session(sample("codex-rollout-compacted.jsonl"))
    assert codex.compactions()
    assert all(isinstance(c.compaction.details.get("replacement_history"), list) for c in codex.compactions())
