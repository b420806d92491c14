"""Running a command's coroutine to its result without Python paying to print that result at exit.

Why: `asyncio.run` (3.11) puts a `functools.partial(_on_sigint, main_task=task)` on SIGINT
and, when the run ends, asks `signal.getsignal` whether it is still there; getsignal's
lookup of the handler among the `Handlers` enum fails, and the failure's message formats
`%r` of the partial, so of the finished task, so of its result: a `compact` returning a
large proposal paid ~15 % of its run for that repr. Here the task's result is None and
the value comes back beside it.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_to_result(coro: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(coro)`'s value (Ctrl-C cancels it as asyncio.run does), its task ending with None."""
    import asyncio  # here, not at the top: every command module loads when the CLI starts

    box: list[T] = []

    async def main() -> None:
        box.append(await coro)

    asyncio.run(main())
    return box[0]
