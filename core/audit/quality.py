"""OpenClaw 2026.9's quality guard over a past compaction: would its summary pass the checks?

Required sections are asked of OpenClaw sessions only (their format, or a version 4+ header);
the protected identifiers and the latest ask come from the summarized messages, and
the recorded `latestUnresolvedUserRequest` (when the compaction has one) must lead
`## Pending user asks`.
"""

from __future__ import annotations

from typing import Any

from cutline.core.engine.quality_guard import (
    QualityInputs,
    QualityVerdict,
    verdict_for,
)
from cutline.core.models import Session

FIRST_OPENCLAW_VERSION = 4


def _recorded_request(details: Any) -> str | None:
    value = details.get("latestUnresolvedUserRequest") if isinstance(details, dict) else None
    return value if isinstance(value, str) and value.strip() else None


def quality_of(
    session: Session, identifiers: list[str], latest_ask: str | None, summary: str, details: Any
) -> QualityVerdict:
    """The guard's verdict on a compaction's summary from what it takes of the summarized messages.

    That is their identifiers (`identifiers_of` the last ten) and the latest user ask (`latest_user_ask`).

    Why: the audit of a long span reads its messages a block at a time (`ConversationScan` keeps the last ten
    messages and the last ask), not as one list.
    """
    openclaw = session.format == "openclaw" or (
        session.format == "pi" and (session.version or 0) >= FIRST_OPENCLAW_VERSION
    )
    sections: list[str] = []
    if openclaw:  # the release's package is imported only here: its planner and summary flow are OpenClaw's alone
        from cutline.core.releases.openclaw_2026_9.guard import REQUIRED_SUMMARY_SECTIONS

        sections = list(REQUIRED_SUMMARY_SECTIONS)
    request = _recorded_request(details)
    inputs = QualityInputs(
        requiredSections=sections,
        identifiers=identifiers,
        latestUnresolvedRequest=request,
        latestUserAsk=None if request else latest_ask,
    )
    return verdict_for(summary, inputs)
