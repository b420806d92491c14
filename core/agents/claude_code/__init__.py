"""Claude Code: transcripts (`~/.claude/projects/*/*.jsonl`) read into the neutral model."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cutline.core.agents.adapter import EntryAmend, EntrySink, PathGuess, handed_over
from cutline.core.agents.appending_adapter import AppendingAdapter
from cutline.core.agents.claude_code import writeback
from cutline.core.agents.claude_code.context import claude_code_context, claude_code_wire
from cutline.core.agents.claude_code.detect import is_claude_code_record
from cutline.core.agents.claude_code.locate import claude_code_files, claude_code_peek
from cutline.core.agents.claude_code.reader import LinearPlaces, read_claude_code, session_id_of, stream_claude_code
from cutline.core.agents.jsonl import Lines, StreamedLines
from cutline.core.agents.peek import SessionPeek
from cutline.core.agents.wire import WireContext
from cutline.core.models import Entry, Message, Session, SessionFormat


class ClaudeCodeAdapter(AppendingAdapter):
    """Claude Code's transcripts.

    Its context (claude_code/context.py): after a compaction the summary record as sent,
    the `preservedSegment` after it, then what followed; rendered attachments as the
    system reminders they are; the synthetic "No response requested." after a resumed
    summary. Sidechains are never sent.
    """

    format: SessionFormat = "claude_code"
    writer = writeback
    label = "Claude Code"

    def detect(self, record: dict[str, Any]) -> bool:
        return is_claude_code_record(record)

    def read(self, lines: Lines, file: str, stem: str, sink: EntrySink | None, keep: bool) -> Session:
        return handed_over(read_claude_code(lines, file, stem), sink, keep)

    streams = True

    def read_streamed(self, lines: StreamedLines, file: str, stem: str, sink: EntrySink, amend: EntryAmend) -> Session:
        return stream_claude_code(lines, file, stem, sink, amend)

    def streamed_session_id(self, head: list[dict[str, Any]], whole: bool, file: str) -> str | None:
        return session_id_of(head, whole, file)

    def path_guess(self) -> PathGuess | None:
        return LinearPlaces()

    def context(self, path: list[Entry]) -> list[Message]:
        return claude_code_context(path)

    def wire_context(self, session: Session) -> WireContext:
        return WireContext(agent=self.format, messages=claude_code_wire(session.active_path()))

    def session_files(self, env: Mapping[str, str], home: Path) -> list[Path]:
        return claude_code_files(env, home)

    def peek(self, path: Path) -> list[SessionPeek]:
        return claude_code_peek(path)


ADAPTER = ClaudeCodeAdapter()
