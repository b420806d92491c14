"""What the desk's glyphs and colours mean: the list's marks and the gauge's bar, for the F1 help.

Why: the marks (┊ ┃ ╭◆ ╰↳ ❯ ✻ ✂ …) were explained nowhere; the legend is built from
the same constants the widgets draw with, so it cannot drift from them.
"""

from __future__ import annotations

from cutline.app.widgets.message_list import ZONE_BAR
from cutline.app.widgets.rows import ROLE_GLYPHS

_ZONES = {
    "summarized": "left bar: summarized by the planned compaction (row greyed)",
    "prefix": "left bar: a split turn's prefix, summarized on its own",
    "kept": "left bar: kept verbatim after the cut",
    "context": "left bar: in context, no compaction planned",
}
_ROLES = {
    "user": "a user message",
    "assistant": "an assistant message",
    "toolResult": "a tool result (the label is the tool's name)",
    "bashExecution": "a shell command run by the user (! in pi)",
    "custom": "an extension's message",
    "branchSummary": "a branch summary",
    "compactionSummary": "a compaction's summary as the agent sees it",
    "system": "a system message",
}

LIST_LEGEND: list[tuple[str, str]] = [
    *((ZONE_BAR[zone], text) for zone, text in _ZONES.items()),
    ("╭◆ ╰↳", "a tool call and its result: same colour, p jumps between them"),
    *((ROLE_GLYPHS[role], text) for role, text in _ROLES.items()),
    ("≡", "a compaction already in the session (a divider row)"),
    ("·", "a note: model change, label, session info …"),
    ("✂ cut", "the planned cut: everything above it is summarized (. jumps to it)"),
    ("✻", "the message holds thinking"),
    ("▣", "the message holds an image"),
    ("✗", "an error (failed tool, error stop, non-zero exit)"),
    ("██▌ 1,234", "the entry's tokens under the current counter, bar scaled to the largest"),
]

GAUGE_LEGEND: list[tuple[str, str]] = [
    ("█ grey", "gauge: context the compaction would summarize"),
    ("█ green", "gauge: context the compaction would keep"),
    ("█ red", "gauge: context over the threshold"),
    ("░", "gauge: free room in the window (past the threshold: the reserve)"),
    ("┃ amber", "gauge: the threshold (window − reserve) where the agent compacts"),
    ("[chars4]", "gauge: the token counter in use (c switches)"),
    ("after kept", "gauge: what the context would be after compacting (kept + summary)"),
]


def legend_rows() -> list[tuple[str, str]]:
    """Every glyph and colour the review screen draws, with what it means."""
    return [*LIST_LEGEND, *GAUGE_LEGEND]
