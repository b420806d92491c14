"""Keeping the cyclic garbage collector out of the way while big sessions are built, imported or read back."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

FREEZE_AT = 20_000


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building or walking many long-lived objects.

    Why: a 100k-entry session creates millions of objects that all stay alive, and the
    collector would rescan them over and over (4-5x the cost of the work itself).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def freeze_if_big(entries: int) -> None:
    """Move a big session's objects out of the collector's view once they are built.

    Why: they live as long as the session, and the next full collection would rescan
    millions of them (a second-long pause). Small sessions are left alone: freezing is
    process-wide.
    """
    if entries >= FREEZE_AT:
        gc.freeze()
