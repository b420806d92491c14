"""A command's deadline over all of its work: the process's own timer stops it where it is when the time is up.

Why: `compact --timeout` bounded only the summarizer's requests; the synchronous work
before them (reading, rebuilding and planning a 100,000-entry path) ran on unbounded, so
a 20 s deadline took 368 s on a loaded machine. An interval timer interrupts the main
thread between two bytecodes whatever it is doing; the store's transactions roll back.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from cutline.core.engine.deadline import DeadlineExceeded, deadline_message


class TimeUp(SystemExit):
    """Raised in the main thread when the timer fires: a SystemExit, so an event loop's callback does not swallow it.

    Its code is the deadline's message: where it fires as the block ends (the run's own deadline, of the same length,
    already unwinding it, or inside the context manager's exit before the timer is disarmed), it leaves the block
    unconverted, and `cli.main` says that message."""


@contextmanager
def whole_deadline(seconds: float) -> Iterator[None]:
    """Within the block, DeadlineExceeded once `seconds` have passed, wherever the main thread is.

    Nothing is armed off the main thread (a caller's thread, a test runner's worker) or
    where the platform has no interval timer: the run's own deadline still bounds its requests.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return
    outer, interval = signal.getitimer(signal.ITIMER_REAL)  # a timer someone else armed (a test runner's)
    if outer and outer <= seconds:
        yield  # theirs fires first: left to them, the run's own deadline still bounds its requests
        return

    def fire(signum: int, frame: FrameType | None) -> None:
        raise TimeUp(deadline_message(seconds))

    began = time.monotonic()
    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
    try:
        yield
    except TimeUp:
        raise DeadlineExceeded(deadline_message(seconds)) from None
    finally:
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
        finally:  # the timer firing just before it was disarmed leaves the previous handler and timer restored too
            signal.signal(signal.SIGALRM, previous)
            if outer:  # theirs armed again for what is left of it
                signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - began), 0.001), interval)
