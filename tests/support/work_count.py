"""Counting work, not time: the lines of cutline's own code a call executes.

A `sys.settrace` tracer counts every "line" event (a new line, or a loop going round
again, comprehensions included) in frames of the `cutline` package. The count is the
same on every run and on every machine, so a test can compare the work at n and 4n
inputs and fail on super-linear growth without timing anything.
"""

from __future__ import annotations

import os
import sys
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


def growth(work_n: int, work_4n: int) -> float:
    """The ratio of the work at 4n to the work at n (4.0 for linear work)."""
    return work_4n / max(work_n, 1)
