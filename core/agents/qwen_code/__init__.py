"""Qwen Code: chat files (`~/.qwen/projects/<cwd>/chats/<sessionId>.jsonl`) read into the neutral model."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cutline.core.agents.adapter import EntrySink, handed_over
from cutline.core.agents.appending_adapter import AppendingAdapter
from cutline.core.agents.jsonl import Lines
from cutline.core.agents.peek import SessionPeek
from cutline.core.agents.qwen_code import writeback
from cutline.core.agents.qwen_code.context import context_indices, qwen_code_context, qwen_code_wire
from cutline.core.agents.qwen_code.detect import is_qwen_code_record
from cutline.core.agents.qwen_code.locate import qwen_code_files, qwen_code_peek
from cutline.core.agents.qwen_code.reader import read_qwen_code
from cutline.core.agents.wire import WireContext
from cutline.core.models import Entry, Message, Session, SessionFormat


class QwenCodeAdapter(AppendingAdapter):
    """Qwen Code's chat files.

    Its context (qwen_code/context.py): after a `chat_compression` record its
    `compressedHistory` verbatim, then the records that followed; on the wire each
    function response is a `tool` message and consecutive user turns are one message.
    """

    format: SessionFormat = "qwen_code"
    writer = writeback
    label = "Qwen Code"

    def detect(self, record: dict[str, Any]) -> bool:
        return is_qwen_code_record(record)

    def read(self, lines: Lines, file: str, stem: str, sink: EntrySink | None, keep: bool) -> Session:
        return handed_over(read_qwen_code(lines, file, stem), sink, keep)

    def context_indices(self, path: list[Entry]) -> list[int]:
        return context_indices(path)

    def context(self, path: list[Entry]) -> list[Message]:
        return qwen_code_context(path)

    def wire_context(self, session: Session) -> WireContext:
        return WireContext(agent=self.format, messages=qwen_code_wire(qwen_code_context(session.active_path())))

    def session_files(self, env: Mapping[str, str], home: Path) -> list[Path]:
        return qwen_code_files(env, home)

    def peek(self, path: Path) -> list[SessionPeek]:
        return qwen_code_peek(path)


ADAPTER = QwenCodeAdapter()
