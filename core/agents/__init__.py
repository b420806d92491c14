"""The agents cutline reads, one package each (pi, claude_code, codex, openclaw), and `read_session` over them all."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from cutline.core.errors import FormatError
from cutline.core.lazy import lazy_names

if TYPE_CHECKING:
    from cutline.core.agents.adapter import AgentAdapter, EntryAmend, EntrySink
    from cutline.core.agents.entries import OtherEntry
    from cutline.core.agents.jsonl import NotStreamable
    from cutline.core.agents.light import LightEntry
    from cutline.core.agents.pi.append import append_compaction
    from cutline.core.agents.pi.reader import entry_from_line
    from cutline.core.agents.pi.writer import export_pi
    from cutline.core.agents.registry import ADAPTERS, adapter_for, detect
    from cutline.core.agents.sniff import sniff
    from cutline.core.agents.wire import WireContext
    from cutline.core.models import Entry, Message, Problem, Session

# Names this package hands on from its modules, imported when first asked for: a command that
# reads one agent's session (or none: `ls`, `tokens` from the store) does not import every agent's
# reader, writer and the registry at start-up, and importing any module of the package (the store's
# `safe_write`) imports neither the JSON Lines reader nor the pydantic models.
_LAZY: dict[str, str] = {
    "NotStreamable": "cutline.core.agents.jsonl",
    "AgentAdapter": "cutline.core.agents.adapter",
    "EntryAmend": "cutline.core.agents.adapter",
    "EntrySink": "cutline.core.agents.adapter",
    "ADAPTERS": "cutline.core.agents.registry",
    "adapter_for": "cutline.core.agents.registry",
    "detect": "cutline.core.agents.registry",
    "append_compaction": "cutline.core.agents.pi.append",
    "entry_from_line": "cutline.core.agents.pi.reader",
    "export_pi": "cutline.core.agents.pi.writer",
    "sniff": "cutline.core.agents.sniff",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())


__all__ = [
    "ADAPTERS",
    "AgentAdapter",
    "EntryAmend",
    "EntrySink",
    "NotStreamable",
    "StreamPeek",
    "adapter_for",
    "append_compaction",
    "detect",
    "entry_from_line",
    "export_pi",
    "read_session",
    "read_streamed",
    "session_context",
    "session_wire_context",
    "sniff",
    "stream_peek",
]


def read_session(path: str | Path, *, sink: EntrySink | None = None, keep: bool = True) -> Session:
    """Read a session file of any supported agent into the neutral model.

    Bad lines never raise: each becomes a `Problem` (file, line, what is wrong) and
    everything valid is still read. Raises FormatError only when nothing at all is
    readable (unreadable, empty, binary, not JSON Lines, or no record of a known agent).
    An OpenClaw or opencode SQLite store is read too: `STORE#SESSION_ID` names one of its
    sessions, the store's path alone its most recently updated one.
    `sink` receives every entry as it is read, with whether `entry_from_line` rebuilds it
    from its line alone (pi's message lines); `keep=False` leaves `entries` empty, so
    a pi file streams through in little more memory than its text (other formats are
    read whole first).
    """
    from cutline.core.agents.adapter import handed_over
    from cutline.core.agents.jsonl import decode_text, read_file_text, split_lines
    from cutline.core.agents.openclaw.store import read_store
    from cutline.core.agents.opencode import read_store as read_opencode_store
    from cutline.core.agents.opencode.store import is_opencode_store
    from cutline.core.agents.sniff import sniff_lines
    from cutline.core.agents.store_refs import is_store_ref

    if is_store_ref(path):
        if is_opencode_store(path):
            return handed_over(read_opencode_store(path), sink, keep)
        return handed_over(read_store(path), sink, keep)
    path = Path(path)
    file = str(path)
    try:
        read = read_file_text(path)
    except OSError as exc:
        raise FormatError(f"{file}: cannot read ({exc.strerror or exc})") from None
    size, sha256 = read.size, read.sha256
    count = 0

    def counting(entry: Entry | LightEntry | OtherEntry, from_line: bool) -> None:
        nonlocal count
        count += 1
        if sink is not None:
            sink(entry, from_line)

    # Many small objects are created and all stay alive: the cyclic collector would
    # rescan them again and again, which costs more than the parsing itself.
    enabled = gc.isenabled()
    gc.disable()
    try:
        if isinstance(read.data, bytes):  # UTF-16 or bad UTF-8: decoded whole, each bad line reported
            text, encoding = decode_text(read.data)
            del read  # only the text is needed from here on
            lines = split_lines(text, file)
            del text  # the lines hold it now
        else:
            encoding = None
            lines = split_lines(read, file)
            del read
        adapter = sniff_lines(lines, file)
        if encoding is not None:
            lines.problems.insert(0, _encoding_problem(file, encoding))
        session = adapter.read(lines, file, path.stem, counting, keep)
    finally:
        if enabled:
            gc.enable()
    return _read_from(session, count, file, size, sha256)


class StreamPeek(NamedTuple):
    """A file an import can write while reading it: its agent, and the id `read_streamed` will give its session."""

    adapter: AgentAdapter
    session_id: str


# the lines a streamed import looks at before deciding (the agent, the session id)
_PEEK_LINES = 200


def stream_peek(path: Path) -> StreamPeek | None:
    """The agent and session id of a file whose agent reads it streamed (`AgentAdapter.streams`); None when it is read whole.

    Why: an import writing rows as it reads must know the session before the first row;
    `read_streamed` raises `NotStreamable` if the whole file proves this wrong.
    """
    from cutline.core.agents.jsonl import INVALID, Lines, NotStreamable, StreamedLines, parse_line

    source = StreamedLines(path)
    head: list[tuple[int, str]] = []
    reading = source.lines
    whole = True
    try:
        for line in reading:
            head.append(line)
            if len(head) >= _PEEK_LINES:
                whole = False
                break
    except (NotStreamable, OSError):
        return None
    finally:
        reading.close()
    from cutline.core.agents.sniff import sniff_lines

    lines = Lines(head, [], source.newline, True, 0)
    try:
        adapter = sniff_lines(lines, str(path))
    except FormatError:
        return None
    if not adapter.streams:
        return None
    values = [parse_line(number, text, lines, str(path), bom=True) for number, text in head]
    records: list[dict[str, Any]] = [v for v in values if v is not INVALID and type(v) is dict]
    session_id = adapter.streamed_session_id(records, whole, str(path))
    return StreamPeek(adapter, session_id) if session_id is not None else None


def read_streamed(path: Path, adapter: AgentAdapter, *, sink: EntrySink, amend: EntryAmend) -> Session:
    """`read_session(path, sink=sink, keep=False)` for an agent that `streams`: the file read a chunk at a time.

    Each entry goes to `sink` as its line is read; the entries the end of the reading
    changes go to `amend` (see `AgentAdapter.read_streamed`). Raises `NotStreamable`
    where the file must be read whole (possibly after many entries were handed on).
    """
    from cutline.core.agents.jsonl import StreamedLines

    file = str(path)
    lines = StreamedLines(path)
    count = 0

    def counting(entry: Entry | LightEntry | OtherEntry, from_line: bool) -> None:
        nonlocal count
        count += 1
        sink(entry, from_line)

    enabled = gc.isenabled()
    gc.disable()
    try:
        session = adapter.read_streamed(lines, file, path.stem, counting, amend)
    except OSError as exc:
        raise FormatError(f"{file}: cannot read ({exc.strerror or exc})") from None
    finally:
        if enabled:
            gc.enable()
    return _read_from(session, count, file, lines.size, lines.sha256)


def _read_from(session: Session, count: int, file: str, size: int, sha256: str) -> Session:
    """The session read from `file`, its source facts set; FormatError when nothing in it was readable (`count`: records read)."""
    if not count and not session.header_line:
        reasons = "; ".join(p.message for p in session.problems if p.severity == "error")[:300]
        raise FormatError(f"{file}: nothing readable ({reasons or 'no session records'})")
    session.source_path = file
    session.source_size = size
    session.source_sha256 = sha256
    return session


def _encoding_problem(file: str, encoding: str) -> Problem:
    from cutline.core.models import Problem

    return Problem(
        file=file,
        line=None,
        message=f"the file is {encoding.upper()} text, not UTF-8 as agents write it; read as {encoding.upper()}",
        severity="warning",
    )


def session_context(session: Session) -> list[Message]:
    """The messages the session's agent sends next, rebuilt by that agent's adapter."""
    from cutline.core.agents.registry import adapter_for

    return adapter_for(session.format).context(session.active_path())


def session_wire_context(session: Session) -> WireContext:
    """The neutral message list the session's agent sends next (`cutline context`, the desk, the conformance test)."""
    from cutline.core.agents.registry import adapter_for

    return adapter_for(session.format).wire_context(session)
