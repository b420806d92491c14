"""Counting the work a call does (function calls, Python's and C's), to test for super-linear growth without timing.

A linear path at n and 4n entries does ~4x the calls (plus a constant); a quadratic
one ~16x. Time is not counted: a busy machine changes it, the count it does not.
What it does not see: the work inside one C call (a `list.index` in a loop counts one
call per search), so a test aims at paths whose per-entry work is Python code.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

# at n and 4n entries: linear work grows ~4x; above this the test fails (a quadratic path gives ~16x)
LIMIT = 5.0


def calls(fn: Callable[[], Any]) -> int:
    """The function calls (Python and C, in every thread) made while `fn` runs."""
    count = 0

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        if event == "call" or event == "c_call":
            count += 1

    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    return count


def growth(small: Callable[[], Any], large: Callable[[], Any]) -> float:
    """The ratio of the calls `large` (4n) makes to those `small` (n) makes (`small` first)."""
    at_n = calls(small)
    return calls(large) / max(1, at_n)


def assert_linear(small: Callable[[], Any], large: Callable[[], Any], what: str) -> float:
    """Fail when the work at 4n is more than LIMIT times the work at n."""
    ratio = growth(small, large)
    assert ratio <= LIMIT, f"{what}: {ratio:.1f}x the work for 4x the entries (super-linear)"
    return ratio
