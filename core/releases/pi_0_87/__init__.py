"""Current pi (`@earendil-works/pi-coding-agent` 0.87.1, the same planner as 1.5.2).

The planner (`planner`) decides over pi's projection of the path and explains through
the shared assembly (`core.engine.rules.assemble`); the summary flow (`summary`) is
current pi's two calls in sequence with its own prompts; its summaries need no section
of the quality guard's. See docs/rules/pi-current.md.
"""

from __future__ import annotations

from cutline.core.engine.rules.assemble import assemble
from cutline.core.releases.pi_0_87.planner import NAME, PI_CURRENT, decide
from cutline.core.releases.pi_0_87.summary import summarize

PLANNER = PI_CURRENT
DECIDE = decide
EXPLAIN = assemble
SUMMARY = summarize
GUARD_SECTIONS: tuple[str, ...] = ()

__all__ = ["DECIDE", "EXPLAIN", "GUARD_SECTIONS", "NAME", "PLANNER", "SUMMARY"]
