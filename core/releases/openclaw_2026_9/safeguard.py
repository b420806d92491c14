"""OpenClaw 2026.9's safeguard summary: five required sections, recent turns verbatim, the quality guard, 16,000 characters.

The flow (docs/rules/openclaw-2026.9.md §9): the last `recentTurnsPreserve` user
turns leave the summarized set and are appended verbatim; the previous summary is
re-distilled (sent as the first message, not kept as is); the history is summarized
with OpenClaw's structure instructions, the latest unresolved request first in
`## Pending user asks`; a split turn's prefix follows with OpenClaw's turn-prefix
prompt; tool failures, file operations and the workspace's critical rules (AGENTS.md
sections) are appended, and the whole is capped at 16,000 characters. The quality
guard audits the result and, when it is on, regenerates the history with OpenClaw's
corrective feedback up to `qualityGuard.maxRetries` times.

Where cutline is simpler: one summarization call per part (no staged chunks), and
the retention step re-inserts the ask line and missing identifiers into their sections
but never a missing heading (so a summary without a section fails the guard).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.quality_guard import (
    QualityInputs,
    QualityVerdict,
    corrective_instructions,
    latest_ask_line,
    message_text,
    untrusted_block,
)
from cutline.core.engine.rule_summaries import SummaryCalls, guard_inputs, judge, output_limit
from cutline.core.errors import SummarizerError
from cutline.core.models import ImageBlock, Message, TextBlock, ThinkingBlock, ToolCallBlock
from cutline.core.releases.openclaw_2026_9.guard import REQUIRED_SUMMARY_SECTIONS
from cutline.core.releases.openclaw_2026_9.planner import NAME
from cutline.core.releases.openclaw_2026_9.serialize import serialize_openclaw
from cutline.core.summarizers.agent_prompts import (
    OPENCLAW_IDENTIFIERS_OFF,
    OPENCLAW_IDENTIFIERS_STRICT,
    OPENCLAW_LATEST_REQUEST_LINES,
    OPENCLAW_PREVIOUS_SUMMARY,
    OPENCLAW_STRUCTURE_HEAD,
    OPENCLAW_STRUCTURE_TAIL,
    OPENCLAW_SYSTEM_PROMPT,
)
from cutline.core.summarizers.base import SummaryRequest
from cutline.core.summarizers.prompts import IDENTIFIER_PRESERVATION_INSTRUCTIONS, TURN_PREFIX_SUMMARIZATION_PROMPT

SUMMARY_MAX_CHARS = 16_000
MAX_REQUEST_CHARS = 800
MAX_PRESERVED_LINE_CHARS = 600
MAX_PRESERVED_SECTION_CHARS = 8_000
MAX_PREFIX_CHARS = 8_000
MAX_WORKSPACE_RULES_CHARS = 2_000
RESERVE_FLOOR = 20_000
HISTORY_SHARE = 0.8
TURN_PREFIX_SHARE = 0.5
SAFEGUARD_PROMPT = "openclaw-safeguard"
NO_PRIOR_HISTORY = "No prior history."
SPLIT_TURN_HEADING = "\n\n**Turn Context (split turn):**\n\n"
PRESERVED_HEADING = "\n\n## Recent turns preserved verbatim\n"
PRESERVED_TRUNCATED = "[Earlier preserved messages truncated]"
BODY_TRUNCATED = "\n\n[Compaction summary truncated to fit budget]"
SUFFIX_TRUNCATED = "[Earlier compaction context truncated to fit budget]\n"
REQUEST_TRUNCATED = "\n[... latest user request truncated ...]\n"
LATEST_REQUEST_HEADING = "## Latest user request context\n"


@dataclass
class SafeguardSummary:
    """The finished summary, the guard's verdict on it, and the request it foregrounds."""

    summary: str
    verdict: QualityVerdict
    latest_request: str | None


# ---------------------------------------------------------------------------
# Pure pieces
# ---------------------------------------------------------------------------


def clip_request(text: str) -> str:
    """A request over 800 characters as OpenClaw keeps it: its first 379 and last 380 characters."""
    if len(text) <= MAX_REQUEST_CHARS:
        return text
    return text[:379] + REQUEST_TRUNCATED + text[-380:]


def latest_unresolved_request(context: list[Message]) -> str | None:
    """The last user message in context with any text, clipped (OpenClaw does not check that it was answered)."""
    for message in reversed(context):
        if message.role == "user":
            text = "\n".join(b.text for b in message.content if isinstance(b, TextBlock)).strip()
            if text:
                return clip_request(text)
    return None


def split_recent_turns(messages: list[Message], turns: int) -> tuple[list[Message], list[Message]]:
    """(to summarize, kept verbatim): the last `turns` user turns and what follows them leave the summarized set.

    Only user and assistant messages (and tool results answering a kept call) are kept;
    others after the first kept user message are still summarized.
    """
    if turns <= 0:
        return messages, []
    users = [i for i, m in enumerate(messages) if m.role == "user" and message_text(m).strip()]
    if not users:
        return messages, []
    start = users[-turns] if len(users) >= turns else users[0]
    kept_calls: set[str] = set()
    summarize: list[Message] = list(messages[:start])
    preserved: list[Message] = []
    for message in messages[start:]:
        if message.role in ("user", "assistant"):
            preserved.append(message)
            kept_calls.update(call.id for call in message.tool_calls() if call.id)
        elif message.role == "toolResult" and message.toolCallId in kept_calls:
            preserved.append(message)
        else:
            summarize.append(message)
    return summarize, preserved


def _non_text(message: Message) -> str:
    kinds: dict[str, int] = {}
    for block in message.content:
        if isinstance(block, TextBlock):
            continue
        kind = (
            "toolCall"
            if isinstance(block, ToolCallBlock)
            else "thinking"
            if isinstance(block, ThinkingBlock)
            else "image"
            if isinstance(block, ImageBlock)
            else block.type
        )
        kinds[kind] = kinds.get(kind, 0) + 1
    if not kinds:
        return ""
    listed = ", ".join(f"{k} x{n}" if n > 1 else k for k, n in kinds.items())
    return f"\n[non-text content: {listed}]"


def preserved_turns_section(preserved: list[Message]) -> str:
    """`## Recent turns preserved verbatim`, one line per message (600 characters each), newest kept within 8,000."""
    if not preserved:
        return ""
    lines: list[str] = []
    for message in preserved:
        text = "\n".join(b.text for b in message.content if isinstance(b, TextBlock)).strip()
        if len(text) > MAX_PRESERVED_LINE_CHARS:
            text = text[:MAX_PRESERVED_LINE_CHARS] + "..."
        if message.role == "user":
            label = "User"
        elif message.role == "assistant":
            label = "Assistant"
        else:
            label = f"Tool result ({message.toolName or 'tool'})"
        lines.append(f"- {label}: {text}{_non_text(message)}")
    kept: list[str] = []
    size = 0
    for line in reversed(lines):
        if size + len(line) + 1 > MAX_PRESERVED_SECTION_CHARS and kept:
            kept.append(PRESERVED_TRUNCATED)
            break
        kept.append(line)
        size += len(line) + 1
    return PRESERVED_HEADING + "\n".join(reversed(kept))


def structure_instructions(settings: CompactionSettings, latest_request: str | None, custom: str | None) -> str:
    """OpenClaw's buildCompactionStructureInstructions: the five headings, the identifier policy, the ask, /compact text."""
    identifier_line = OPENCLAW_IDENTIFIERS_STRICT if settings.identifierPolicy == "strict" else OPENCLAW_IDENTIFIERS_OFF
    text = "\n".join([OPENCLAW_STRUCTURE_HEAD, *REQUIRED_SUMMARY_SECTIONS, identifier_line, OPENCLAW_STRUCTURE_TAIL])
    if latest_request:
        text += (
            f"\n\n{OPENCLAW_LATEST_REQUEST_LINES}\n{untrusted_block('Latest unresolved user request', latest_request)}"
        )
    if custom and custom.strip():
        text += f"\n\n{untrusted_block('Additional context from /compact', custom.strip())}"
    return text


def identifier_focus(settings: CompactionSettings, custom: str | None) -> str | None:
    """The `Additional focus` OpenClaw gives every call: identifier preservation, then the /compact text."""
    parts: list[str] = []
    if settings.identifierPolicy != "off":
        parts.append(IDENTIFIER_PRESERVATION_INSTRUCTIONS)
    if custom and custom.strip():
        block = untrusted_block("Additional context from /compact", custom.strip())
        parts.append(f"Additional focus:\n{block}" if parts else block)
    return "\n\n".join(parts) or None


def structured_fallback(previous: str | None) -> str:
    """OpenClaw's summary when there is no history to summarize: the previous one if it has every section, else the five."""
    if previous and all(heading in previous.splitlines() for heading in REQUIRED_SUMMARY_SECTIONS):
        return previous
    return (
        f"## Decisions\n{previous or NO_PRIOR_HISTORY}\n\n## Open TODOs\nNone.\n\n## Constraints/Rules\nNone.\n\n"
        "## Pending user asks\nNone.\n\n## Exact identifiers\nNone captured."
    )


def _section_bounds(lines: list[str], heading: str) -> tuple[int, int] | None:
    for index, line in enumerate(lines):
        if line.strip() == heading:
            end = index + 1
            while end < len(lines) and not lines[end].strip().startswith("## "):
                end += 1
            return index, end
    return None


def retain_protected_facts(body: str, latest_request: str | None, identifiers: list[str]) -> str:
    """Re-insert the ask line first in `## Pending user asks` and missing identifiers in `## Exact identifiers`.

    Only into sections that exist: a missing heading stays missing.
    """
    lines = body.splitlines()
    if latest_request:
        bounds = _section_bounds(lines, "## Pending user asks")
        line = latest_ask_line(latest_request)
        if bounds is not None:
            first = next((x.strip() for x in lines[bounds[0] + 1 : bounds[1]] if x.strip()), None)
            if first != line:
                lines.insert(bounds[0] + 1, line)
    bounds = _section_bounds(lines, "## Exact identifiers")
    if bounds is not None:
        text = "\n".join(lines)
        missing = [i for i in identifiers if i not in text and i.lower() not in text.lower()]
        end = bounds[1]
        while end > bounds[0] + 1 and not lines[end - 1].strip():
            end -= 1
        lines[end:end] = missing
    return "\n".join(lines) + ("\n" if body.endswith("\n") else "")


def workspace_critical_rules(agents_md: str, sections: list[str]) -> str:
    """The named sections of AGENTS.md (any heading level), as `<workspace-critical-rules>`, at most 2,000 characters."""
    wanted = {s.strip().lower() for s in sections}
    picked: list[str] = []
    current: list[str] | None = None
    level = 0
    for line in agents_md.splitlines():
        heading = re.match(r"^(#{1,6})\s+(.+?)\s*#*\s*$", line)
        if heading:
            depth = len(heading.group(1))
            if current is not None and depth <= level:
                picked.append("\n".join(current).strip())
                current = None
            if current is None and heading.group(2).strip().lower() in wanted:
                current, level = [line], depth
                continue
        if current is not None:
            current.append(line)
    if current is not None:
        picked.append("\n".join(current).strip())
    text = "\n\n".join(p for p in picked if p)[:MAX_WORKSPACE_RULES_CHARS]
    return f"\n\n<workspace-critical-rules>\n{text}\n</workspace-critical-rules>" if text else ""


def agents_md_rules(cwd: str | None, sections: list[str]) -> str:
    """The critical rules of the AGENTS.md in `cwd` ("" when there is none or it cannot be read)."""
    if not cwd:
        return ""
    try:
        text = (Path(cwd) / "AGENTS.md").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
    return workspace_critical_rules(text, sections)


def cap_summary(body: str, suffix: str, max_chars: int = SUMMARY_MAX_CHARS) -> str:
    """Body + suffix within `max_chars`: the suffix keeps its end, the body its head, each marked where cut."""
    if len(body) + len(suffix) <= max_chars:
        return body + suffix
    suffix_room = max_chars // 2
    if len(suffix) > suffix_room:
        suffix = "\n\n" + SUFFIX_TRUNCATED + suffix[-(suffix_room - len(SUFFIX_TRUNCATED) - 2) :]
    room = max(0, max_chars - len(suffix) - len(BODY_TRUNCATED))
    if len(body) > room:
        body = body[:room] + BODY_TRUNCATED
    return body + suffix


def demote_headings(text: str) -> str:
    """`## X` → `### X`, as OpenClaw renders a split turn's prefix summary under the main one."""
    return re.sub(r"(?m)^## ", "### ", text)


# ---------------------------------------------------------------------------
# The flow
# ---------------------------------------------------------------------------


def _wrap(conversation: str, prompt: str, focus: str | None) -> str:
    text = f"<conversation>\n{conversation}\n</conversation>\n\n{prompt}"
    return f"{text}\n\nAdditional focus: {focus}" if focus else text


def _reserve(settings: CompactionSettings) -> int:
    return max(settings.reserveTokens, RESERVE_FLOOR)


def history_request(
    messages: list[Message],
    previous: str | None,
    instructions: str,
    settings: CompactionSettings,
    model_max: int | None,
) -> SummaryRequest:
    """The history request: the previous summary to re-distill as the first message, the structure as the prompt."""
    conversation = serialize_openclaw(messages)
    if previous:
        lead = "[User]: " + OPENCLAW_PREVIOUS_SUMMARY.format(previous=previous)
        conversation = f"{lead}\n\n{conversation}" if conversation else lead
    focus = identifier_focus(settings, None)
    return SummaryRequest(
        kind="history",
        prompt_name=SAFEGUARD_PROMPT,
        system_prompt=OPENCLAW_SYSTEM_PROMPT,
        prompt_text=_wrap(conversation, instructions, focus),
        messages=messages,
        previous_summary=previous,
        custom_instructions=focus,
        max_tokens=output_limit(HISTORY_SHARE, _reserve(settings), model_max),
    )


def prefix_request(messages: list[Message], settings: CompactionSettings, model_max: int | None) -> SummaryRequest:
    """The split turn's prefix with OpenClaw's (pi 0.73's) turn-prefix prompt and its identifier focus."""
    focus = identifier_focus(settings, settings.customInstructions)
    return SummaryRequest(
        kind="turn_prefix",
        prompt_name="pi-turn-prefix",
        system_prompt=OPENCLAW_SYSTEM_PROMPT,
        prompt_text=_wrap(serialize_openclaw(messages), TURN_PREFIX_SUMMARIZATION_PROMPT, focus),
        messages=messages,
        custom_instructions=focus,
        max_tokens=output_limit(TURN_PREFIX_SHARE, _reserve(settings), model_max),
    )


async def _prefix_text(
    calls: SummaryCalls, prefix: list[Message], settings: CompactionSettings, model_max: int | None
) -> str:
    calls.emit("turn_prefix")
    try:
        text = await calls.call("turn_prefix", prefix_request(prefix, settings, model_max))
    except SummarizerError as exc:
        calls.notes.append(f"turn_prefix: summarization failed: {exc}")
        calls.degrade("annotation")
        text = f"Context contained {len(prefix)} messages (0 oversized). Summary unavailable due to size limits."
    return demote_headings(text)[:MAX_PREFIX_CHARS]


async def openclaw_summary(
    calls: SummaryCalls,
    settings: CompactionSettings,
    *,
    summarized: list[Message],
    prefix: list[Message],
    previous: str | None,
    split_turn: bool,
    latest_request: str | None,
    appendix: str,
    model_max: int | None,
) -> SafeguardSummary:
    """The safeguard's summary of what the plan cuts away; `appendix` = tool failures, file ops, workspace rules."""
    history, preserved = split_recent_turns(summarized, settings.recentTurnsPreserve)
    inputs: QualityInputs = guard_inputs(NAME, summarized + prefix, settings, latest_request)
    prefix_part = ""
    if split_turn and prefix:
        prefix_part = SPLIT_TURN_HEADING + await _prefix_text(calls, prefix, settings, model_max)
    suffix = prefix_part + preserved_turns_section(preserved) + appendix
    head = f"{LATEST_REQUEST_HEADING}{json.dumps(latest_request, ensure_ascii=False)}\n\n" if latest_request else ""
    budget = max(0, SUMMARY_MAX_CHARS - len(suffix) - len(head))
    instructions = structure_instructions(settings, latest_request, settings.customInstructions)

    async def write(extra: str | None) -> str:
        if not history:
            body = structured_fallback(previous)
        else:
            calls.emit("history")
            prompt = f"{instructions}\n\n{extra}" if extra else instructions
            try:
                body = await calls.call("history", history_request(history, previous, prompt, settings, model_max))
            except SummarizerError as exc:
                calls.notes.append(f"history: summarization failed: {exc}")
                calls.degrade("annotation")
                body = structured_fallback(previous)
            if split_turn and prefix and not calls.reads_text:  # offline: the history part names the turn under way
                # the offline summarizer's: imported when it runs, not by every plan
                from cutline.core.summarizers.extractive import name_turn_under_way

                body = name_turn_under_way(body, SAFEGUARD_PROMPT, prefix)
        body = retain_protected_facts(body, latest_request, inputs.identifiers)
        return cap_summary(head + body, suffix)

    summary = await write(None)
    verdict = judge(summary, inputs, settings)
    attempts = 1
    guard = settings.qualityGuard
    while not verdict.ok and guard.enabled and history and attempts <= guard.maxRetries:
        calls.notes.append(f"quality guard: attempt {attempts} failed ({', '.join(verdict.reasons)}); regenerating")
        summary = await write(corrective_instructions(verdict.reasons, settings.identifierPolicy, budget))
        attempts += 1
        verdict = judge(summary, inputs, settings, attempts)
    if not verdict.ok:
        calls.notes.append(f"quality guard: {verdict.summary()}")
    return SafeguardSummary(summary=summary, verdict=verdict, latest_request=latest_request)
