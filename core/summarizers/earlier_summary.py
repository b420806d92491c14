"""An earlier summary read back as whole items by section, so an update keeps or updates its facts.

Whatever agent wrote it — pi's checkpoint, Claude Code's nine numbered sections, Codex's
handoff, OpenClaw's five sections, this summarizer — its headings map onto the
sections the summarizer fills, and each bullet stays one item with its continuation
lines: a summary is never split line by line. The frames the agents put around a
summary (Claude Code's opening and transcript note, Codex's prefix) are left out.
"""

from __future__ import annotations

import re

from cutline.core.summarizers.user_text import SUMMARY_OPENINGS, strip_injected

# heading words → section key (first match wins); None drops the section (the engine adds it anew)
HEADING_KEYS: tuple[tuple[str, str | None], ...] = (
    ("last exchange", None),
    ("all user messages", None),
    ("recent turns preserved", None),
    ("tool failures", "context"),
    ("pending user ask", "in_progress"),
    ("pending task", "next"),
    ("latest", "in_progress"),
    ("original request", "goal"),
    ("primary request", "goal"),
    ("goal", "goal"),
    ("task", "goal"),
    ("constraint", "constraints"),
    ("preference", "constraints"),
    ("rule", "constraints"),
    ("early progress", "done"),
    ("progress so far", "done"),
    ("in progress", "in_progress"),
    ("current work", "in_progress"),
    ("done", "done"),
    ("problem solving", "done"),
    ("blocked", "blocked"),
    ("error", "blocked"),
    ("decision", "decisions"),
    ("technical concept", "decisions"),
    ("next step", "next"),
    ("pending task", "next"),
    ("todo", "next"),
    ("remain", "next"),
    ("file", "files"),
    ("progress", "done"),
    ("context", "context"),
    ("identifier", "context"),
)
PLACEHOLDER = "(none)"

_MD_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
_BOLD_HEADING = re.compile(r"^\*\*(.+?):?\*\*:?\s*$")
_NUMBERED_HEADING = re.compile(r"^\d+\.\s+([A-Z][\w /&,'()-]{2,60}):\s*$")
# Qwen Code's <state_snapshot> sections: `<primary_request_and_intent>` … `</primary_request_and_intent>`
_XML_HEADING = re.compile(r"^<([a-z][a-z_]{2,60})>$")
_XML_CLOSING = re.compile(r"^</[a-z][a-z_]{2,60}>$")
_BULLET = re.compile(r"^(?:[-*+]\s+|\d+[.)]\s+)(?:\[[ xX]\]\s*)?")
_FRAME_LINES = re.compile(
    r"^(?:Summary:|---|\*\*Turn Context \(split turn\):\*\*|If you need specific details from before compaction.*|"
    r"The messages after this summary are the most recent messages.*|(?:Please )?[Cc]ontinue the conversation from where.*|"
    r"This session is being continued from a previous conversation.*)$"
)


def section_for(title: str) -> str | None:
    lowered = title.lower()
    for needle, key in HEADING_KEYS:
        if needle in lowered:
            return key
    return "context"


def _heading(line: str) -> str | None:
    for pattern in (_MD_HEADING, _BOLD_HEADING, _NUMBERED_HEADING):
        match = pattern.match(line)
        if match:
            return match.group(1)
    match = _XML_HEADING.match(line)
    return match.group(1).replace("_", " ") if match else None


def unframe(summary: str) -> str:
    """The summary without the opening, reminders and notes an agent framed it with."""
    text = summary.strip()
    for opening in SUMMARY_OPENINGS:
        if text.startswith(opening):
            first_break = text.find("\n")
            text = text[first_break + 1 :] if first_break >= 0 else ""
            break
    return strip_injected(text)


def parse_items(summary: str) -> list[tuple[str, str]]:
    """(section key, item) pairs of a summary in order; an item keeps its continuation lines.

    `<read-files>` / `<modified-files>` blocks, fenced code, placeholders and the
    sections the engine recomputes are left out.
    """
    items: list[tuple[str, str]] = []
    section: str | None = "context"
    current: list[str] = []
    in_file_block = False
    in_fence = False

    def flush() -> None:
        if current and section is not None:
            body = "\n".join(current).strip()
            if body and body.lower() != PLACEHOLDER:
                items.append((section, body))
        current.clear()

    for raw in unframe(summary).splitlines():
        line = raw.strip()
        if re.fullmatch(r"</?(read-files|modified-files)>", line):
            flush()
            in_file_block = not line.startswith("</")
            continue
        if line.startswith("```"):
            in_fence = not in_fence
            continue
        if in_file_block or in_fence:
            continue
        if not line:
            flush()
            continue
        if _FRAME_LINES.match(line) or _XML_CLOSING.match(line):
            flush()
            continue
        title = _heading(line)
        if title is not None:
            flush()
            section = section_for(title)
            continue
        indented = raw[:1].isspace()
        if _BULLET.match(line) and not (indented and current):
            flush()
            current.append(_BULLET.sub("", line, count=1))
        else:
            current.append(line if not indented else "  " + _BULLET.sub("- ", line, count=1))
    flush()
    return items
