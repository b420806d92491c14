"""Codex CLI: rollouts (`$CODEX_HOME/sessions/**/rollout-*.jsonl`) read into the neutral model."""

from __future__ import annotations

from typing import Any

from cutline.core.agents.adapter import AgentAdapter, EntrySink, handed_over
from cutline.core.agents.codex.detect import is_codex_record
from cutline.core.agents.codex.reader import read_codex
from cutline.core.agents.jsonl import Lines
from cutline.core.models import Session, SessionFormat


class CodexAdapter(AgentAdapter):
    """Codex rollouts.

    Its context follows the shared rules: a `compacted` record keeps nothing before it
    (its `replacement_history` is not replayed yet).
    """

    format: SessionFormat = "codex"
    label = "Codex"

    def detect(self, record: dict[str, Any]) -> bool:
        return is_codex_record(record)

    def read(self, lines: Lines, file: str, stem: str, sink: EntrySink | None, keep: bool) -> Session:
        return handed_over(read_codex(lines, file, stem), sink, keep)


ADAPTER = CodexAdapter()
