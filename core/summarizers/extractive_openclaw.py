"""The offline summarizer in OpenClaw 2026.9's safeguard layout: its five required sections, filled extractively.

The items are the extractive summarizer's own (requests, rules, decisions, failures,
files, identifiers); only where they go differs, so OpenClaw's quality guard finds
every section it requires without a model.
"""

from __future__ import annotations

from dataclasses import replace

from cutline.core.summarizers.base import SummaryRequest
from cutline.core.summarizers.extractive import (
    _collect_history,
    _collect_summary,
    _Collector,
    _Item,
    _Section,
    focus_words,
    render_within,
)

# the request's prompt_name that asks for this layout
OPENCLAW_SAFEGUARD_PROMPT = "openclaw-safeguard"

OPENCLAW_LAYOUT: tuple[_Section, ...] = (
    _Section("oc_decisions", "## Decisions", "- "),
    _Section("oc_todos", "## Open TODOs", "- "),
    _Section("oc_rules", "## Constraints/Rules", "- "),
    _Section("oc_asks", "## Pending user asks", "- "),
    _Section("oc_identifiers", "## Exact identifiers", "- "),
)

# where each of pi's checkpoint sections goes in OpenClaw's layout
_TO_OPENCLAW = {
    "decisions": "oc_decisions",
    "done": "oc_decisions",
    "goal": "oc_todos",
    "next": "oc_todos",
    "blocked": "oc_todos",
    "constraints": "oc_rules",
    "in_progress": "oc_asks",
    "context": "oc_identifiers",
}


def summarize_openclaw_extractive(request: SummaryRequest) -> str:
    """The five sections from the request's messages (the re-distilled previous summary is one of them)."""
    # the custom instructions are OpenClaw's identifier and /compact texts, not a topic to favour
    out = _Collector(focus_words(""))
    if request.previous_summary:
        _collect_summary(request.previous_summary, out, finished=True)
    _collect_history(request.messages, out, turn_prefix=request.kind == "turn_prefix")
    items: list[_Item] = [replace(item, section=_TO_OPENCLAW.get(item.section, "oc_identifiers")) for item in out.items]
    return render_within(OPENCLAW_LAYOUT, items, max(request.max_tokens, 1) * 4)
