"""What a front end holds of an opened session, whatever shape its path is in.

`open_for_plan` (the CLI) answers a `PlanTarget`, `open_for_review` (the desk) an
`Opened`; both are an `OpenedSession`: the session (whole, or its header when the path is
a window or stored columns), its active path as a sequence (a list, a `PathWindow`, or
`StoredEntries`), and its plan. `propose` takes either and reads the path in the shape chosen.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan
from cutline.core.models import Entry, Session


class OpenedSession(Protocol):
    """An opened session: its header or whole session, its active path, and its plan under some settings."""

    @property
    def session(self) -> Session: ...

    @property
    def path(self) -> Sequence[Entry]: ...

    def plan(self, settings: CompactionSettings, *, rules_override: str | None = None) -> CompactionPlan: ...

    def run_path(self) -> Sequence[Entry] | None:
        """The path a run reads as held (a window, or every entry), or None: the run chooses (a window, else a rebuild)."""
        ...
