"""Qwen Code 0.24 (0.24.4): everything summarized, nothing kept but a trailing calling turn.

Its planner (`planner`) decides and explains in one pass (not yet split into decide and explain);
the summary follows the engine's own flow; no quality-guard section is required.
"""

from __future__ import annotations

from cutline.core.engine.modes.pi import engine_summary
from cutline.core.releases.qwen_code_0_24.planner import NAME, QWEN_CODE_0_24

PLANNER = QWEN_CODE_0_24
SUMMARY = engine_summary
GUARD_SECTIONS: tuple[str, ...] = ()

__all__ = ["GUARD_SECTIONS", "NAME", "PLANNER", "SUMMARY"]
