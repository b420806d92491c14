"""Where the repository's test data lives, for tests at any depth under tests/."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
SAMPLES = ROOT / "sample_sessions"
