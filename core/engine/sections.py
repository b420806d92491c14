"""The sections appended to a summary: OpenClaw's tool failures and pi's file operations."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from cutline.core.agents.light import LightMessage
from cutline.core.engine.proposal import ToolFailure
from cutline.core.models import Message, TextBlock, ToolResultBlock

MAX_TOOL_FAILURES = 8
MAX_TOOL_FAILURE_CHARS = 240


def _failure_meta(message: Message) -> str | None:
    details = (message.model_extra or {}).get("details")
    if not isinstance(details, dict):
        return None
    parts: list[str] = []
    if isinstance(details.get("status"), str):
        parts.append(f"status={details['status']}")
    code = details.get("exitCode")
    if isinstance(code, int | float) and not isinstance(code, bool) and math.isfinite(code):
        parts.append(f"exitCode={int(code) if float(code).is_integer() else code}")
    return " ".join(parts) or None


def is_failed_result(message: Message | LightMessage) -> bool:
    """Whether a message is an errored tool result (what `collect_tool_failures` reads; every other message it skips)."""
    return message.role == "toolResult" and message.isError is True


def collect_tool_failures(messages: Iterable[Message]) -> list[ToolFailure]:
    """Every errored tool result once per call id, its text on one line and cut at 240 characters."""
    failures: list[ToolFailure] = []
    seen: set[str] = set()
    for message in messages:
        if not is_failed_result(message):
            continue
        call_id = message.toolCallId or ""
        if not call_id or call_id in seen:
            continue
        seen.add(call_id)
        name = ((message.toolName or "").strip() and message.toolName) or "tool"
        text = "\n".join(_result_texts(message))
        normalized = re.sub(r"\s+", " ", text).strip()
        meta = _failure_meta(message)
        summary = normalized or ("failed" if meta else "failed (no output)")
        if len(summary) > MAX_TOOL_FAILURE_CHARS:
            summary = summary[: MAX_TOOL_FAILURE_CHARS - 3] + "..."
        failures.append(ToolFailure(toolCallId=call_id, toolName=name, summary=summary, meta=meta))
    return failures


def _result_texts(message: Message) -> list[str]:
    """A result's text blocks, and those of the result blocks it carries (Claude Code's and Qwen Code's readers nest them)."""
    texts: list[str] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            texts.append(block.text)
        elif isinstance(block, ToolResultBlock):
            texts.extend(inner.text for inner in block.content if isinstance(inner, TextBlock))
    return texts


def format_tool_failures(failures: list[ToolFailure]) -> str:
    """OpenClaw's `## Tool Failures` section (at most 8 lines, then "...and N more"), led by a blank line."""
    if not failures:
        return ""
    lines = []
    for failure in failures[:MAX_TOOL_FAILURES]:
        meta = f" ({failure.meta})" if failure.meta else ""
        lines.append(f"- {failure.toolName}{meta}: {failure.summary}")
    if len(failures) > MAX_TOOL_FAILURES:
        lines.append(f"- ...and {len(failures) - MAX_TOOL_FAILURES} more")
    return "\n\n## Tool Failures\n" + "\n".join(lines)


def format_file_operations(read_files: list[str], modified_files: list[str]) -> str:
    """pi's `<read-files>` / `<modified-files>` blocks, led by a blank line ("" when both are empty)."""
    sections = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    if not sections:
        return ""
    return "\n\n" + "\n\n".join(sections)
