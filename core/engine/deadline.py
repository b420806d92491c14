"""A compaction's overall deadline: everything still running when it passes is cancelled.

Per-request timeouts and the SDK's retries bound one call; a compaction makes several
(parts, merge, fallbacks), so only a deadline over the whole run bounds what the user
waits. Retries happen inside it or not at all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from cutline.core.errors import CutlineError

T = TypeVar("T")


class DeadlineExceeded(CutlineError):
    """The compaction did not finish within its deadline and was stopped."""


def deadline_message(seconds: float) -> str:
    """The one line a person reads when a run is stopped at its deadline."""
    return (
        f"the compaction did not finish within its {seconds:g} s deadline and was stopped "
        "(compaction.timeoutSeconds or --timeout sets it)"
    )


async def within_deadline(work: Awaitable[T], seconds: float, whole: float | None = None) -> T:
    """`work`'s result, or DeadlineExceeded once `seconds` have passed (the work is cancelled first).

    `whole` is the deadline the message names when `seconds` is what is left of it."""
    scope = asyncio.timeout(seconds)
    try:
        async with scope:
            return await work
    except TimeoutError:
        if scope.expired():
            raise DeadlineExceeded(deadline_message(whole if whole is not None else seconds)) from None
        raise


def time_left(seconds: float, started: float | None) -> float:
    """What is left of a `seconds` deadline counted from `started` (`time.monotonic()`), raising once none is.

    Why: the deadline covers the whole run, the synchronous work before the first
    request too (reading and rebuilding a 100,000-entry path took minutes on a loaded
    machine, and a 20 s deadline then ran for 368 s).
    """
    if started is None:
        return seconds
    import time

    left = seconds - (time.monotonic() - started)
    if left <= 0:
        raise DeadlineExceeded(deadline_message(seconds))
    return left
