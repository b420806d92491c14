"""`run_to_result`: a command's coroutine run to its value without the value being formatted at exit."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator

import pytest

from cutline.app.run_async import run_to_result


class _Counted:
    """A result that counts how often it is formatted with repr (a large proposal's repr is what the exit paid)."""

    def __init__(self) -> None:
        self.reprs = 0

    def __repr__(self) -> str:
        self.reprs += 1
        return "<counted>"


@pytest.fixture(autouse=True)
def _default_sigint() -> Iterator[None]:
    """asyncio.run installs (and at exit restores) its SIGINT handler only over the default one; a job started
    in the background (as CI runs the suite) inherits SIGINT ignored, so each test starts from the default."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


async def _give(value: _Counted) -> _Counted:
    await asyncio.sleep(0)
    return value


def test_the_value_comes_back_and_is_never_formatted() -> None:
    value = _Counted()
    assert run_to_result(_give(value)) is value
    assert value.reprs == 0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # SIGINT restored as asyncio.run does


def test_asyncio_run_formats_its_result_at_exit() -> None:
    """What the helper avoids: asyncio.run's SIGINT check formats the finished task, so its result."""
    value = _Counted()
    assert asyncio.run(_give(value)) is value
    assert value.reprs > 0


def test_an_error_inside_comes_out_as_itself() -> None:
    async def fail() -> int:
        raise ValueError("inside")

    with pytest.raises(ValueError, match="inside"):
        run_to_result(fail())
