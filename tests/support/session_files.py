"""The session files the differential tests run both ways: every fixture and sample session, and the generated pi sessions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.paths import ROOT

# every session file under tests/fixtures and sample_sessions (all four agents), not the recorded requests
SESSION_FILES = sorted(
    p
    for p in [*(ROOT / "tests" / "fixtures").rglob("*.jsonl"), *(ROOT / "sample_sessions").glob("*.jsonl")]
    if "requests" not in p.parts
)
# generated pi sessions, most with compactions (tests.support.pi_compactions.write_pi_session's arguments)
GENERATED_PI: dict[str, dict[str, Any]] = {
    "plain": {},
    "current-pi": {"current_pi": True, "seed": 2},
    "branch": {"branch": True, "seed": 3},
    "missing-first-kept": {"missing_first_kept": True, "seed": 4},
    "context-edit": {"context_edit": True, "seed": 5},
    # no compaction: the path is its own window, planned from the facts of its plain entries
    "uncompacted": {"every": 0, "seed": 6},
    "uncompacted-images": {"every": 0, "images": True, "current_pi": True, "branch": True, "seed": 8},
}


def files_of(*formats: str) -> list[Path]:
    """The files of SESSION_FILES whose first records these agents' adapters recognise (e.g. "claude_code", "codex")."""
    from cutline.core.agents.formats import head_format

    return [p for p in SESSION_FILES if head_format(p) in formats]
