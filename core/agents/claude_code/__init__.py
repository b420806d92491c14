"""Claude Code: transcripts (`~/.claude/projects/*/*.jsonl`) read into the neutral model."""

from __future__ import annotations

from typing import Any

from cutline.core.agents.adapter import AgentAdapter, EntrySink, handed_over
from cutline.core.agents.claude_code.detect import is_claude_code_record
from cutline.core.agents.claude_code.reader import read_claude_code
from cutline.core.agents.jsonl import Lines
from cutline.core.models import Session, SessionFormat


class ClaudeCodeAdapter(AgentAdapter):
    """Claude Code's transcripts.

    Its context follows the shared rules: the reader marks sidechains and the summary
    record (`isSidechain`, `isCompactSummary`) so they are never sent, and a compaction
    keeps nothing before it (`preservedSegment` is not read yet).
    """

    format: SessionFormat = "claude_code"
    label = "Claude Code"

    def detect(self, record: dict[str, Any]) -> bool:
        return is_claude_code_record(record)

    def read(self, lines: Lines, file: str, stem: str, sink: EntrySink | None, keep: bool) -> Session:
        return handed_over(read_claude_code(lines, file, stem), sink, keep)


ADAPTER = ClaudeCodeAdapter()
