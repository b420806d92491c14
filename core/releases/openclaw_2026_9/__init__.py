"""OpenClaw 2026.9 (2026.9.6): its planner, its safeguard summary, its quality guard's five sections.

`planner` decides as OpenClaw does and explains through the shared assembly
(`core.engine.rules.assemble`); `summary` is the flow a compaction follows, built on
`safeguard` (the prompts, the verbatim turns, the guard's retries) and `serialize`
(OpenClaw's transcript of the summarized messages); `guard` holds the sections its
summaries must have. See docs/rules/openclaw-2026.9.md.
"""

from __future__ import annotations

from cutline.core.engine.rules.assemble import assemble
from cutline.core.releases.openclaw_2026_9.guard import REQUIRED_SUMMARY_SECTIONS
from cutline.core.releases.openclaw_2026_9.planner import NAME, OPENCLAW_2026_9, decide
from cutline.core.releases.openclaw_2026_9.summary import summarize

PLANNER = OPENCLAW_2026_9
DECIDE = decide
EXPLAIN = assemble
SUMMARY = summarize
GUARD_SECTIONS: tuple[str, ...] = REQUIRED_SUMMARY_SECTIONS

__all__ = ["DECIDE", "EXPLAIN", "GUARD_SECTIONS", "NAME", "PLANNER", "SUMMARY"]
