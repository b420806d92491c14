"""Keeping the cyclic garbage collector out of the way while big sessions are built, imported or read back."""

from __future__ import annotations

import ctypes
import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

FREEZE_AT = 20_000
# a file this large leaves the C heap holding its freed lines after an import
TRIM_AT_BYTES = 8_000_000


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


def give_back_freed_memory() -> None:
    """Hand the C heap's free pages back to the system (glibc's `malloc_trim`; elsewhere nothing).

    Why: an import of a 100 MB file frees its lines (~150 MB of strings, too large for
    Python's own allocator) into glibc's heap, which keeps them: a cold plan then planned
    on top of them and peaked at ~330 MB where the plan itself needs ~230. Trimming takes
    a few milliseconds.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        return  # another C library: it keeps its own policy
