"""Which tests must not run side by side under pytest-xdist: a group per kind, by file name; tests/conftest.py marks them."""

from __future__ import annotations

from pathlib import Path

# file name pattern (in tests/e2e) -> the group its tests run in, on one worker, one at a time
SERIAL_GROUPS = {
    # the real programs (node, a fake model server each): side by side they starve each other's timeouts
    "test_live_*.py": "live",
    # a real terminal: its keys and redraws are timed
    "test_e2e_tmux*.py": "tmux",
    # headless chromium and `cutline serve` on a free port each
    "test_web*.py": "browser",
}


def serial_group(path: Path) -> str | None:
    """The group a test file's tests run in one at a time, or None when they may run beside any other."""
    if path.parent.name != "e2e":
        return None
    return next((group for pattern, group in SERIAL_GROUPS.items() if path.match(pattern)), None)
