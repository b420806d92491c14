"""The summary in the shape the user's agent writes, within a length budget.

pi's checkpoint (and its turn-prefix checkpoints, 0.73 and current), Claude Code's nine
numbered sections, Codex's handoff and OpenClaw 2026.9's five required sections. Items
carry a priority; when the text would pass the budget whole items go, lowest priority
first (oldest first among equals), so nothing is cut inside an identifier. Every
section holds a bounded number of items, so rendering costs the same whatever the
session's length.
"""

from __future__ import annotations

from dataclasses import dataclass

from cutline.core.summarizers.earlier_summary import PLACEHOLDER


@dataclass(frozen=True)
class Section:
    keys: tuple[str, ...]  # the item sections it shows, in this order
    heading: str
    bullet: str  # "- ", "- [x] ", "- [ ] ", "1." for a numbered list, "" for plain lines
    always: bool = False  # shown with a placeholder when empty
    indent: str = ""  # Claude Code's sections indent their bullets
    parent: str = ""  # a heading shown once before the first shown section that names it
    closing: str = ""  # a line after its items (Qwen Code's closing tags)


@dataclass(frozen=True)
class Layout:
    name: str
    sections: tuple[Section, ...]
    separator: str = "\n\n"
    required_headings: bool = False  # every heading always shown (OpenClaw's guard checks them)
    opening: str = (
        ""  # a line before the sections and one after them (Qwen Code's <state_snapshot> … </state_snapshot>)
    )
    closing: str = ""


@dataclass
class Item:
    section: str
    text: str
    priority: int
    seq: int


PI_CHECKPOINT = Layout(
    "pi-checkpoint",
    (
        Section(("goal",), "## Goal", "- ", always=True),
        Section(("constraints",), "## Constraints & Preferences", "- "),
        Section(("done",), "### Done", "- [x] ", parent="## Progress"),
        Section(("latest", "in_progress"), "### In Progress", "- [ ] ", always=True, parent="## Progress"),
        Section(("blocked",), "### Blocked", "- ", parent="## Progress"),
        Section(("decisions",), "## Key Decisions", "- "),
        Section(("next", "todo"), "## Next Steps", "1.", always=True),
        Section(("files", "names", "context"), "## Critical Context", "- "),
    ),
)

PI_TURN_PREFIX = Layout(
    "pi-turn-prefix",
    (
        Section(("latest",), "## Original Request", "", always=True),
        Section(("decisions", "done", "in_progress"), "## Early Progress", "- ", always=True),
        Section(
            ("constraints", "blocked", "files", "names", "next", "context"), "## Context for Suffix", "- ", always=True
        ),
    ),
)

PI_CURRENT_TURN_PREFIX = Layout(
    "pi-current-turn-prefix",
    (
        Section(("latest",), "## Original Request", "", always=True),
        Section(("decisions", "done", "in_progress"), "## Progress So Far", "- ", always=True),
        Section(
            ("constraints", "blocked", "files", "names", "next", "context"),
            "## Context Needed to Continue",
            "- ",
            always=True,
        ),
    ),
)

CLAUDE_CODE = Layout(
    "claude-code",
    (
        Section(("goal", "constraints"), "1. Primary Request and Intent:", "- ", always=True, indent="   "),
        Section(("decisions",), "2. Key Technical Concepts:", "- ", indent="   "),
        Section(("files", "names"), "3. Files and Code Sections:", "- ", indent="   "),
        Section(("blocked", "fixed"), "4. Errors and fixes:", "- ", indent="   "),
        Section(("done", "context"), "5. Problem Solving:", "- ", indent="   "),
        Section(("asks",), "6. All user messages:", "- ", indent="   "),
        Section(("todo",), "7. Pending Tasks:", "- ", indent="   "),
        Section(("latest", "in_progress"), "8. Current Work:", "- ", always=True, indent="   "),
        Section(("next",), "9. Optional Next Step:", "- ", always=True, indent="   "),
    ),
)

CODEX_HANDOFF = Layout(
    "codex",
    (
        Section(("goal",), "## Task", "- ", always=True),
        Section(("latest",), "## Latest request (verbatim)", "", always=True),
        Section(("constraints",), "## Constraints & preferences", "- "),
        Section(("done",), "## Progress", "- "),
        Section(("in_progress",), "## In progress", "- "),
        Section(("blocked",), "## Blocked / unresolved errors", "- "),
        Section(("decisions",), "## Key decisions", "- "),
        Section(("files", "names"), "## Files", "- "),
        Section(("next", "todo"), "## Next steps", "1.", always=True),
        Section(("context",), "## References", "- "),
    ),
)


def _qwen_section(tag: str, keys: tuple[str, ...], *, always: bool = False) -> Section:
    return Section(keys, f"    <{tag}>", "- ", always=always, indent="        ", closing=f"    </{tag}>")


# Qwen Code 0.24's <state_snapshot>, its sections in the order its compression prompt gives them
QWEN_CODE = Layout(
    "qwen-code",
    (
        _qwen_section("primary_request_and_intent", ("goal", "constraints"), always=True),
        _qwen_section("key_technical_concepts", ("decisions",)),
        _qwen_section("files_and_code_sections", ("files", "names")),
        _qwen_section("errors_and_fixes", ("blocked", "fixed")),
        _qwen_section("problem_solving", ("done", "context")),
        _qwen_section("all_user_messages", ("asks",)),
        _qwen_section("pending_tasks", ("todo",)),
        _qwen_section("current_work", ("latest", "in_progress"), always=True),
        _qwen_section("next_step", ("next",), always=True),
    ),
    opening="<state_snapshot>",
    closing="</state_snapshot>",
)

OPENCLAW = Layout(
    "openclaw-safeguard",
    (
        Section(("decisions", "done"), "## Decisions", "- ", always=True),
        Section(("todo", "next", "blocked"), "## Open TODOs", "- ", always=True),
        Section(("constraints",), "## Constraints/Rules", "- ", always=True),
        Section(("latest", "in_progress"), "## Pending user asks", "- ", always=True),
        Section(("identifiers", "names", "files", "goal", "context"), "## Exact identifiers", "- ", always=True),
    ),
    required_headings=True,
)

# the layout each request's prompt name asks for; the others (the Go and narrative prompts) get pi's checkpoint
LAYOUTS: dict[str, Layout] = {
    "pi-checkpoint": PI_CHECKPOINT,
    "pi-update": PI_CHECKPOINT,
    "pi-turn-prefix": PI_TURN_PREFIX,
    "pi-current-turn-prefix": PI_CURRENT_TURN_PREFIX,
    "claude-code": CLAUDE_CODE,
    "codex": CODEX_HANDOFF,
    "openclaw-safeguard": OPENCLAW,
    "qwen-code": QWEN_CODE,
}


def layout_for(prompt_name: str, kind: str) -> Layout:
    """The layout for a request: its prompt's shape; a turn prefix always in pi's turn-prefix shape."""
    if kind == "turn_prefix" and prompt_name not in ("pi-current-turn-prefix", "openclaw-safeguard"):
        return PI_TURN_PREFIX
    return LAYOUTS.get(prompt_name, PI_CHECKPOINT)


def _lines(section: Section, texts: list[str]) -> list[str]:
    if not texts:
        return [f"{section.indent}- {PLACEHOLDER}" if section.bullet else PLACEHOLDER]
    out: list[str] = []
    for number, text in enumerate(texts, 1):
        marker = f"{number}. " if section.bullet == "1." else section.bullet
        first, *rest = text.split("\n")
        out.append(f"{section.indent}{marker}{first}")
        # an item's continuation lines stay with it, indented under it
        out.extend(f"{section.indent}  {line.strip()}" if line.strip() else "" for line in rest)
    return out


def render(layout: Layout, items: list[Item], *, compact: bool = False) -> str:
    """The sections in order; empty ones left out unless `always` (and not `compact`, for a tight budget)."""
    by_key: dict[str, list[str]] = {}
    for item in items:
        by_key.setdefault(item.section, []).append(item.text)
    blocks: list[str] = []
    parents: set[str] = set()
    for section in layout.sections:
        texts = [text for key in section.keys for text in by_key.get(key, [])]
        if not texts and not layout.required_headings and (compact or not section.always):
            continue
        heading = section.heading
        if section.parent and section.parent not in parents:
            parents.add(section.parent)
            heading = f"{section.parent}\n{heading}"
        closing = [section.closing] if section.closing else []
        blocks.append("\n".join([heading, *_lines(section, texts), *closing]))
    body = layout.separator.join(blocks)
    return f"{layout.opening}\n{body}\n{layout.closing}" if layout.opening else body


def render_within(layout: Layout, items: list[Item], max_chars: int) -> str:
    """The layout with as many items as fit in `max_chars`, dropping lowest priority (then oldest) first."""
    shown = {key for section in layout.sections for key in section.keys}
    in_layout = [item for item in items if item.section in shown]
    drop_order = sorted(in_layout, key=lambda i: (i.priority, i.seq))

    whole = render(layout, in_layout)
    if len(whole) <= max_chars:
        return whole

    def text_without(count: int) -> str:
        dropped = {id(i) for i in drop_order[:count]}
        return render(layout, [i for i in in_layout if id(i) not in dropped], compact=True)

    # the most important item always stays, however tight the budget
    low, high = 0, max(len(drop_order) - 1, 0)
    while low < high:
        mid = (low + high) // 2
        if len(text_without(mid)) <= max_chars:
            high = mid
        else:
            low = mid + 1
    return text_without(low)
