"""opencode 1.18 (1.18.33): all but a tail of recent turns within its token budget is summarized.

Its planner (`planner`) decides and explains in one pass (not yet split into decide and explain);
the summary follows the engine's own flow; no quality-guard section is required.
"""

from __future__ import annotations

from cutline.core.engine.modes.pi import engine_summary
from cutline.core.releases.opencode_1_18.planner import NAME, OPENCODE_1_18

PLANNER = OPENCODE_1_18
SUMMARY = engine_summary
GUARD_SECTIONS: tuple[str, ...] = ()

__all__ = ["GUARD_SECTIONS", "NAME", "PLANNER", "SUMMARY"]
