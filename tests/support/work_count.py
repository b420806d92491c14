"""Counting work, not time, to test for super-linear growth at n and 4n inputs.

Two counters: `count_lines` counts the lines of cutline's own code a call executes (a
`sys.settrace` tracer on frames of the `cutline` package, comprehensions included);
`calls` counts function calls, Python's and C's, in every thread. A linear path at n and
4n entries does ~4x the work (plus a constant); a quadratic one ~16x. Neither changes
with the machine's load. What `calls` does not see: the work inside one C call (a
`list.index` in a loop counts one call per search).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

import cutline

_PACKAGE = os.path.dirname(cutline.__file__)
# the package's files under both spellings: through its symlinked subpackages and resolved
_ROOTS = tuple(
    {
        os.path.join(_PACKAGE, ""),
        *(os.path.join(os.path.realpath(os.path.join(_PACKAGE, p)), "") for p in ("core", "app")),
    }
)


def _ours(filename: str) -> bool:
    return filename.startswith(_ROOTS)


def count_lines(call: Callable[[], Any]) -> int:
    """How many lines of cutline's code running `call()` executes (its result is discarded)."""
    count = 0
    cache: dict[str, bool] = {}

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        filename = frame.f_code.co_filename
        ours = cache.get(filename)
        if ours is None:
            ours = cache[filename] = _ours(filename)
        return local if ours else None

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(previous)
    return count


def line_growth(work_n: int, work_4n: int) -> float:
    """The ratio of the work at 4n to the work at n (4.0 for linear work)."""
    return work_4n / max(work_n, 1)


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
