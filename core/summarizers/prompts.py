"""Summarization prompt texts by name, and the user prompt built around a conversation.

The texts are the ones the design asks to reproduce: pi's checkpoint, update and
turn-prefix prompts and its system prompt, OpenClaw's merge instructions, the Go
design's seven-section prompt and the single-pass design's narrative prompt.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from cutline.core.errors import CutlineError
from cutline.core.summarizers.agent_prompts import (
    CLAUDE_CODE_COMPACT_PROMPT,
    CLAUDE_CODE_INSTRUCTIONS_LABEL,
    CLAUDE_CODE_REMINDER,
    CODEX_COMPACT_PROMPT,
    OPENCLAW_SYSTEM_PROMPT,
    PI_CURRENT_SYSTEM_PROMPT,
    PI_CURRENT_TURN_PREFIX_PROMPT,
)
from cutline.core.summarizers.qwen_prompt import QWEN_CODE_COMPRESSION_PROMPT

PromptKind = Literal["history", "update", "turn_prefix", "merge"]


class UnknownPromptError(CutlineError):
    """A prompt name that cutline does not know."""


class Prompt(BaseModel):
    """A named prompt text; `placement` says whether it goes after or before the conversation."""

    name: str
    description: str
    text: str
    placement: Literal["after", "before", "system"] = "after"


SUMMARIZATION_SYSTEM_PROMPT = """You are a context summarization assistant. Your task is to read a conversation between a user and an AI coding assistant, then produce a structured summary following the exact format specified.

Do NOT continue the conversation. Do NOT respond to any questions in the conversation. ONLY output the structured summary."""

SUMMARIZATION_PROMPT = """The messages above are a conversation to summarize. Create a structured context checkpoint summary that another LLM will use to continue the work.

Use this EXACT format:

## Goal
[What is the user trying to accomplish? Can be multiple items if the session covers different tasks.]

## Constraints & Preferences
- [Any constraints, preferences, or requirements mentioned by user]
- [Or "(none)" if none were mentioned]

## Progress
### Done
- [x] [Completed tasks/changes]

### In Progress
- [ ] [Current work]

### Blocked
- [Issues preventing progress, if any]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [Ordered list of what should happen next]

## Critical Context
- [Any data, examples, or references needed to continue]
- [Or "(none)" if not applicable]

Keep each section concise. Preserve exact file paths, function names, and error messages."""

UPDATE_SUMMARIZATION_PROMPT = """The messages above are NEW conversation messages to incorporate into the existing summary provided in <previous-summary> tags.

Update the existing structured summary with new information. RULES:
- PRESERVE all existing information from the previous summary
- ADD new progress, decisions, and context from the new messages
- UPDATE the Progress section: move items from "In Progress" to "Done" when completed
- UPDATE "Next Steps" based on what was accomplished
- PRESERVE exact file paths, function names, and error messages
- If something is no longer relevant, you may remove it

Use this EXACT format:

## Goal
[Preserve existing goals, add new ones if the task expanded]

## Constraints & Preferences
- [Preserve existing, add new ones discovered]

## Progress
### Done
- [x] [Include previously done items AND newly completed items]

### In Progress
- [ ] [Current work - update based on progress]

### Blocked
- [Current blockers - remove if resolved]

## Key Decisions
- **[Decision]**: [Brief rationale] (preserve all previous, add new)

## Next Steps
1. [Update based on current state]

## Critical Context
- [Preserve important context, add new if needed]

Keep each section concise. Preserve exact file paths, function names, and error messages."""

TURN_PREFIX_SUMMARIZATION_PROMPT = """This is the PREFIX of a turn that was too large to keep. The SUFFIX (recent work) is retained.

Summarize the prefix to provide context for the retained suffix:

## Original Request
[What did the user ask for in this turn?]

## Early Progress
- [Key decisions and work done in the prefix]

## Context for Suffix
- [Information needed to understand the retained recent work]

Be concise. Focus on what's needed to understand the kept suffix."""

# OpenClaw's current MERGE_SUMMARIES_INSTRUCTIONS (src/agents/compaction.ts).
MERGE_SUMMARIES_INSTRUCTIONS = """Merge these partial summaries into a single cohesive summary.

MUST PRESERVE:
- Active tasks and their current status (in-progress, blocked, pending)
- Batch operation progress (e.g., '5/17 items completed')
- The last thing the user requested and what was being done about it
- Decisions made and their rationale
- TODOs, open questions, and constraints
- Any commitments or follow-ups promised

PRIORITIZE recent context over older history. The agent needs to know
what it was doing, not just what was discussed."""

# The shorter wording quoted in the OpenClaw seed (older OpenClaw releases).
MERGE_SUMMARIES_INSTRUCTIONS_LEGACY = (
    "Merge these partial summaries into a single cohesive summary. Preserve decisions,"
    " TODOs, open questions, and any constraints."
)

# OpenClaw adds this to the custom instructions unless its identifier policy is "off".
IDENTIFIER_PRESERVATION_INSTRUCTIONS = (
    "Preserve all opaque identifiers exactly as written (no shortening or reconstruction), "
    "including UUIDs, hashes, IDs, hostnames, IPs, ports, URLs, and file names."
)

GO_SEVEN_SECTION_PROMPT = """Provide a detailed but concise summary of our conversation. Structure it as follows:

1. User's Primary Goals and Intent
   - Capture all explicit requests and objectives
   - Preserve exact priorities and constraints

2. Conversation Timeline and Progress
   - Chronological key phases
   - Initial requests and how addressed
   - Major decisions and rationale
   - Problems and solutions
   - Current state

3. Technical Context and Decisions
   - Technologies, frameworks, tools
   - Architectural patterns and design decisions
   - Key technical constraints
   - Important code patterns established

4. Files and Code Changes
   - Full file paths
   - Purpose and importance
   - Specific changes with key code snippets
   - Current state

5. Active Work and Last Actions (CRITICAL)
   - Specific task being addressed
   - Last completed action
   - Any partial work or mid-implementation state
   - Include relevant code snippets

6. Unresolved Issues and Pending Tasks
   - Errors still requiring attention
   - Tasks explicitly requested but not started
   - Decisions waiting for user input

7. Immediate Next Step
   - SPECIFIC next action based on:
     - User's most recent request
     - Current implementation state
     - Any ongoing interrupted work

Be precise with technical details, file names, and code.
The next agent reading this should be able to continue exactly
where we left off without asking clarifying questions."""

NARRATIVE_PROMPT = """Summarize the following conversation history between a user and an AI assistant.
Preserve these details precisely:
- The original user request and any specific criteria or instructions
- All decisions made and their reasoning
- Key data points, URLs, file paths, and identifiers that may be needed later
- Any scores, rankings, or evaluations produced
- Current task status and next steps

Do NOT include raw tool output data (job descriptions, email bodies, etc.) —
just note what was retrieved and key findings.

Format as a concise narrative summary."""

PROMPTS: dict[str, Prompt] = {
    p.name: p
    for p in [
        Prompt(name="pi-checkpoint", description="pi's structured checkpoint summary", text=SUMMARIZATION_PROMPT),
        Prompt(name="pi-update", description="pi's update of a previous summary", text=UPDATE_SUMMARIZATION_PROMPT),
        Prompt(
            name="pi-turn-prefix",
            description="pi's summary of the prefix of a split turn",
            text=TURN_PREFIX_SUMMARIZATION_PROMPT,
        ),
        Prompt(name="merge", description="OpenClaw's merge of partial summaries", text=MERGE_SUMMARIES_INSTRUCTIONS),
        Prompt(
            name="merge-legacy",
            description="OpenClaw's older, shorter merge instructions",
            text=MERGE_SUMMARIES_INSTRUCTIONS_LEGACY,
        ),
        Prompt(
            name="openclaw-identifiers",
            description="OpenClaw's identifier-preservation instructions",
            text=IDENTIFIER_PRESERVATION_INSTRUCTIONS,
        ),
        Prompt(name="go-7-section", description="the Go design's seven-section summary", text=GO_SEVEN_SECTION_PROMPT),
        Prompt(
            name="narrative",
            description="the single-pass design's narrative summary",
            text=NARRATIVE_PROMPT,
            placement="before",
        ),
        Prompt(
            name="pi-system",
            description="pi's system prompt for every summarization call",
            text=SUMMARIZATION_SYSTEM_PROMPT,
            placement="system",
        ),
        Prompt(
            name="claude-code",
            description="Claude Code's compact prompt (summarize as Claude Code would)",
            text=CLAUDE_CODE_COMPACT_PROMPT + CLAUDE_CODE_REMINDER,
        ),
        Prompt(
            name="codex",
            description="Codex's handoff prompt (summarize as Codex would)",
            text=CODEX_COMPACT_PROMPT,
        ),
        Prompt(
            name="qwen-code",
            description="Qwen Code's compression prompt (summarize as Qwen Code would)",
            text=QWEN_CODE_COMPRESSION_PROMPT,
        ),
        Prompt(
            name="pi-current-turn-prefix",
            description="current pi's checkpoint of a split turn's prefix",
            text=PI_CURRENT_TURN_PREFIX_PROMPT,
        ),
        Prompt(
            name="pi-current-system",
            description="current pi's system prompt for every summarization call",
            text=PI_CURRENT_SYSTEM_PROMPT,
            placement="system",
        ),
        Prompt(
            name="openclaw-system",
            description="OpenClaw 2026.9's system prompt for every summarization call",
            text=OPENCLAW_SYSTEM_PROMPT,
            placement="system",
        ),
    ]
}

# Prompts a person can choose for the history summary (the others are used by the engine).
HISTORY_PROMPTS = ("pi-checkpoint", "go-7-section", "narrative", "claude-code", "codex", "qwen-code")
# The summary shape each agent writes, by session format: a session is summarized in its own agent's shape unless
# a prompt is chosen (pi gets pi's checkpoint; OpenClaw's safeguard writes its own sections through its rule set).
AGENT_PROMPTS = {"claude_code": "claude-code", "codex": "codex", "qwen_code": "qwen-code"}
DEFAULT_PROMPT = "pi-checkpoint"


def prompt_for_agent(session_format: str | None) -> str:
    """The history prompt in the shape the agent of `session_format` writes its own summaries."""
    return AGENT_PROMPTS.get(session_format or "", DEFAULT_PROMPT)


# Prompts the engine uses for one purpose only.
_ENGINE_ONLY = ("pi-turn-prefix", "pi-current-turn-prefix", "merge", "merge-legacy", "openclaw-identifiers")


def get_prompt(name: str) -> str:
    """The text of the prompt called `name`; raises UnknownPromptError naming the known ones."""
    prompt = PROMPTS.get(name)
    if prompt is None:
        raise UnknownPromptError(f"unknown prompt {name!r} (known: {', '.join(PROMPTS)})")
    return prompt.text


def _wrap(conversation_text: str) -> str:
    return f"<conversation>\n{conversation_text}\n</conversation>"


def _with_focus(base: str, custom_instructions: str | None) -> str:
    return f"{base}\n\nAdditional focus: {custom_instructions}" if custom_instructions else base


def build_prompt_text(
    kind: PromptKind,
    conversation_text: str,
    previous_summary: str | None = None,
    custom_instructions: str | None = None,
    prompt_name: str = "pi-checkpoint",
) -> str:
    """The user message of a summarization call, built as pi's generateSummary builds it.

    history / update: `<conversation>…</conversation>`, then `<previous-summary>…` when
    there is one, then the prompt; with pi's checkpoint prompt a previous summary switches
    to pi's update prompt (as pi does), and custom instructions follow as
    "Additional focus: …". turn_prefix: pi's turn-prefix prompt, which takes neither a
    previous summary nor custom instructions. merge: the partial summaries (already
    serialized, see `merge_conversation_text`) summarized with OpenClaw's merge
    instructions as the focus, custom instructions after them. A prompt placed "before"
    (narrative) is written ahead of the conversation.
    """
    if kind == "turn_prefix":
        return f"{_wrap(conversation_text)}\n\n{TURN_PREFIX_SUMMARIZATION_PROMPT}"
    if kind == "merge":
        merge_focus = MERGE_SUMMARIES_INSTRUCTIONS
        if custom_instructions and custom_instructions.strip():
            merge_focus = f"{merge_focus}\n\n{custom_instructions.strip()}"
        custom_instructions = merge_focus
    get_prompt(prompt_name)
    prompt = PROMPTS[prompt_name]
    if prompt.placement == "system" or prompt_name in _ENGINE_ONLY:
        raise UnknownPromptError(f"prompt {prompt_name!r} cannot be used for a {kind} summary")
    if prompt_name in ("pi-checkpoint", "pi-update"):
        base = _with_focus(
            UPDATE_SUMMARIZATION_PROMPT if previous_summary else SUMMARIZATION_PROMPT, custom_instructions
        )
    elif prompt_name == "claude-code":
        # Claude Code puts /compact instructions before its closing reminder
        extra = f"{CLAUDE_CODE_INSTRUCTIONS_LABEL}{custom_instructions.strip()}" if custom_instructions else ""
        base = f"{CLAUDE_CODE_COMPACT_PROMPT}{extra}{CLAUDE_CODE_REMINDER}"
    elif prompt_name == "codex":
        base = _with_focus(prompt.text.rstrip("\n"), custom_instructions) if custom_instructions else prompt.text
    else:
        base = _with_focus(prompt.text, custom_instructions)
    previous = f"<previous-summary>\n{previous_summary}\n</previous-summary>\n\n" if previous_summary else ""
    if prompt.placement == "before":
        return f"{base}\n\n{_wrap(conversation_text)}\n\n{previous}".rstrip("\n")
    return f"{_wrap(conversation_text)}\n\n{previous}{base}"


def merge_labels(count: int) -> list[str]:
    """OpenClaw's labels for partial summaries, oldest first."""
    labels = []
    for index in range(count):
        if index == 0:
            labels.append("[Chunk 1 — oldest messages]")
        elif index == count - 1:
            labels.append(f"[Chunk {count} — most recent messages]")
        else:
            labels.append(f"[Chunk {index + 1}/{count}]")
    return labels


def merge_conversation_text(partial_summaries: list[str]) -> str:
    """The partial summaries as the conversation OpenClaw feeds its merge call.

    Each becomes a user message "label\\nsummary", serialized as `[User]: …`.
    """
    return "\n\n".join(
        f"[User]: {label}\n{summary}" for label, summary in zip(merge_labels(len(partial_summaries)), partial_summaries)
    )
