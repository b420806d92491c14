"""pi 0.73.1 (the last `@mariozechner/pi-coding-agent`): its planner decides (`decide`), then explains (`explain`).

Its summary flow is the engine's own (two concurrent calls, `core.engine.modes.pi`);
its summaries need no section of the quality guard's.
"""

from __future__ import annotations

from cutline.core.engine.modes.pi import engine_summary
from cutline.core.releases.pi_0_73.decide import decide
from cutline.core.releases.pi_0_73.explain import describe
from cutline.core.releases.pi_0_73.planner import NAME, PI_0_73

PLANNER = PI_0_73
DECIDE = decide
EXPLAIN = describe
SUMMARY = engine_summary
GUARD_SECTIONS: tuple[str, ...] = ()

__all__ = ["DECIDE", "EXPLAIN", "GUARD_SECTIONS", "NAME", "PLANNER", "SUMMARY"]
