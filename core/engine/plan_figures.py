"""Figures every planner shares: the window a path is planned against, the file lists, spans, and number text."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import TypedDict

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import Span
from cutline.core.engine.path_index import PathIndex, carries_tool_results, js_sorted
from cutline.core.engine.triggers import WindowSource, resolve_context_window
from cutline.core.models import Message


@dataclass(frozen=True)
class Budget:
    """The context window (and where it came from) and the reserve a plan is made against."""

    window: int
    source: WindowSource
    reserve: int


class FileLists(TypedDict, total=False):
    """The file lists of a plan, named as CompactionPlan's fields (see there)."""

    readFiles: list[str]
    writtenFiles: list[str]
    editedFiles: list[str]
    modifiedFiles: list[str]
    readOnlyFiles: list[str]


def last_model(index: PathIndex) -> str | None:
    """The model of the path's last assistant message (it sets the window when none is configured)."""
    for i in range(index.n - 1, -1, -1):
        entry = index.path[i]
        if entry.type == "message" and entry.message is not None and entry.message.role == "assistant":
            return entry.message.model
    return None


def budget(settings: CompactionSettings, index: PathIndex, reserve: int) -> Budget:
    """The window for the path's model under the settings, with the mode's reserve."""
    window = resolve_context_window(settings, last_model(index))
    return Budget(window=window.tokens, source=window.source, reserve=reserve)


def _previous_files(index: PathIndex, previous: int) -> tuple[list[str], list[str]]:
    """The read and modified files a previous (non-hook) compaction recorded in its details."""
    record = index.path[previous].compaction if previous >= 0 else None
    details = record.details if record is not None else None
    if record is None or record.fromHook or not isinstance(details, dict) or not details:
        return [], []
    read = details.get("readFiles")
    modified = details.get("modifiedFiles")
    return (
        [f for f in read if isinstance(f, str)] if isinstance(read, list) else [],
        [f for f in modified if isinstance(f, str)] if isinstance(modified, list) else [],
    )


def file_lists(index: PathIndex, start: int, stop: int, previous: int) -> FileLists:
    """pi's file lists: the previous compaction's, plus the file tool calls in path[start:stop]."""
    earlier_read, earlier_modified = _previous_files(index, previous)
    read: set[str] = set(earlier_read)
    written: set[str] = set()
    edited: set[str] = set(earlier_modified)
    lo = bisect_left(index.fileop_index, start)
    hi = bisect_left(index.fileop_index, stop)
    targets = (read, written, edited)
    kinds = index.fileop_kind
    paths = index.fileop_path
    for k in range(lo, hi):
        targets[kinds[k]].add(paths[k])
    modified = written | edited
    read_sorted = js_sorted(read)
    return {
        "readFiles": read_sorted,
        "writtenFiles": js_sorted(written),
        "editedFiles": js_sorted(edited),
        "modifiedFiles": js_sorted(modified),
        "readOnlyFiles": [f for f in read_sorted if f not in modified],
    }


def is_tool_result(message: Message | None) -> bool:
    """Whether a message answers tool calls (and so must follow them)."""
    return message is not None and (message.role == "toolResult" or carries_tool_results(message))


def spans(indices: list[int]) -> list[Span]:
    """Ascending path indices as spans of consecutive runs."""
    runs: list[Span] = []
    for i in indices:
        if runs and runs[-1].stop == i:
            runs[-1].stop = i + 1
        else:
            runs.append(Span(start=i, stop=i + 1))
    return runs


def n(value: int) -> str:
    """A count with thousands separators, as the explanations print them."""
    return f"{value:,}"


def range_text(start: int, stop: int) -> str:
    """Path indices start..stop-1 in words."""
    if stop - start <= 0:
        return "nothing"
    if stop - start == 1:
        return f"path index {start}"
    return f"path indices {start}..{stop - 1}"
