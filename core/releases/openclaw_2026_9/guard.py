"""OpenClaw 2026.9's quality-guard specifics: the sections its summaries must have (docs/rules/openclaw-2026.9.md §9).

The guard itself (identifiers, the latest ask, the verdict) is cutline's for every
proposal: `core.engine.quality_guard`.
"""

from __future__ import annotations

REQUIRED_SUMMARY_SECTIONS: tuple[str, ...] = (
    "## Decisions",
    "## Open TODOs",
    "## Constraints/Rules",
    "## Pending user asks",
    "## Exact identifiers",
)
