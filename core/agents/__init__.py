"""Session file formats: sniffing, readers for pi/OpenClaw, Claude Code and Codex, and the pi writer."""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Callable
from pathlib import Path

from cutline.core.agents.claude_code.format import read_claude_code
from cutline.core.agents.codex.format import read_codex
from cutline.core.agents.jsonl import Lines, split_lines
from cutline.core.agents.pi.format import EntrySink, append_compaction, entry_from_line, export_pi, read_pi
from cutline.core.agents.sniff import sniff, sniff_bytes
from cutline.core.errors import FormatError
from cutline.core.models import Entry, Session

__all__ = ["EntrySink", "append_compaction", "entry_from_line", "export_pi", "read_session", "sniff"]


def read_session(path: str | Path, *, sink: EntrySink | None = None, keep: bool = True) -> Session:
    """Read a session file of any supported format into the neutral model.

    Bad lines never raise: each becomes a `Problem` (file, line, what is wrong) and
    everything valid is still read. Raises FormatError only when nothing at all is
    readable (unreadable, empty, binary, not JSON Lines, or no known format).
    `sink` receives every entry as it is read, with whether `entry_from_line` rebuilds it
    from its line alone (pi's message lines); `keep=False` leaves `entries` empty, so
    a pi file streams through in little more memory than its text (other formats are
    read whole first).
    """
    path = Path(path)
    file = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FormatError(f"{file}: cannot read ({exc.strerror or exc})") from None
    fmt = sniff_bytes(_head(data), file)
    size, sha256 = len(data), hashlib.sha256(data).hexdigest()
    count = 0

    def counting(entry: Entry, from_line: bool) -> None:
        nonlocal count
        count += 1
        if sink is not None:
            sink(entry, from_line)

    # Many small objects are created and all stay alive: the cyclic collector would
    # rescan them again and again, which costs more than the parsing itself.
    enabled = gc.isenabled()
    gc.disable()
    try:
        try:
            text: bytes | str = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data  # decoded line by line, each bad line a problem
        del data  # only the text is needed from here on
        lines = split_lines(text, file)
        del text  # the lines hold it now
        if fmt == "pi":
            session = read_pi(lines, file, path.stem, counting, keep)
        else:
            session = _READERS[fmt](lines, file, path.stem)
            for entry in session.entries:
                counting(entry, False)
            if not keep:
                session.entries = []
    finally:
        if enabled:
            gc.enable()
    if not count and not session.header_line:
        reasons = "; ".join(p.message for p in session.problems if p.severity == "error")[:300]
        raise FormatError(f"{file}: nothing readable ({reasons or 'no session records'})")
    session.source_path = file
    session.source_size = size
    session.source_sha256 = sha256
    return session


def _head(data: bytes) -> bytes:
    """The first lines of the file, about what `sniff` reads from disk."""
    end = 0
    for _ in range(100):
        found = data.find(b"\n", end)
        if found < 0:
            return data
        end = found + 1
        if end >= 8 * 1024 * 1024:
            break
    return data[:end]


_READERS: dict[str, Callable[[Lines, str, str], Session]] = {
    "pi": read_pi,
    "claude_code": read_claude_code,
    "codex": read_codex,
}
