"""Codex CLI: rollouts (`$CODEX_HOME/sessions/**/rollout-*.jsonl`) read into the neutral model."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cutline.core.agents.adapter import EntrySink
from cutline.core.agents.appending_adapter import AppendingAdapter
from cutline.core.agents.codex import writeback
from cutline.core.agents.codex.context import codex_context, codex_wire, encrypted_note
from cutline.core.agents.codex.detect import is_codex_record
from cutline.core.agents.codex.locate import codex_files, codex_peek
from cutline.core.agents.codex.reader import read_codex
from cutline.core.agents.jsonl import Lines
from cutline.core.agents.peek import SessionPeek
from cutline.core.agents.wire import WireContext
from cutline.core.agents.writeback import PendingWrite
from cutline.core.models import Entry, Message, Session, SessionFormat


class CodexAdapter(AppendingAdapter):
    """Codex rollouts.

    Its context: after a `compacted` record, the record's `replacement_history` verbatim
    (else the earlier user prompts and the summary), then the items that followed; each
    Responses item is a message of its own on the wire.
    """

    format: SessionFormat = "codex"
    writer = writeback
    label = "Codex"

    def detect(self, record: dict[str, Any]) -> bool:
        return is_codex_record(record)

    def read(self, lines: Lines, file: str, stem: str, sink: EntrySink | None, keep: bool) -> Session:
        return read_codex(lines, file, stem, sink, keep)

    def context(self, path: list[Entry]) -> list[Message]:
        return codex_context(path)

    def wire_context(self, session: Session) -> WireContext:
        path = session.active_path()
        note = encrypted_note(path)
        return WireContext(agent=self.format, messages=codex_wire(codex_context(path)), notes=[note] if note else [])

    def drift(self, session: Session, written: PendingWrite) -> str | None:
        return writeback.drift(session, written)

    def session_files(self, env: Mapping[str, str], home: Path) -> list[Path]:
        return codex_files(env, home)

    def peek(self, path: Path) -> list[SessionPeek]:
        return codex_peek(path)


ADAPTER = CodexAdapter()
