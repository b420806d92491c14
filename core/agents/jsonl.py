"""Splitting a JSON Lines file into parsed records, reporting every bad line instead of failing.

Every reader shares this so that line numbers, newline handling and the wording of
problems are the same for pi, Claude Code and Codex files.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Generator, Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple, Protocol

import msgspec

from cutline.core.agents import deep_json
from cutline.core.models import Problem


class Record(NamedTuple):
    """One line that parsed as a JSON object."""

    line: int  # 1-based line number in the file
    text: str  # the exact line text, without its newline
    value: dict[str, Any]
    parsed_index: int  # position among all lines that parsed as JSON (pi's `entries` array index)


def _decode_lines(data: bytes, file: str, problems: list[Problem]) -> list[str | None]:
    """Decode the file as UTF-8 line by line; bad bytes become U+FFFD, each bad line a problem.

    pi reads its session file as UTF-8 text, which replaces bad bytes the same way: skipping
    the line instead would drop an entry pi keeps and cut the active path at it.
    """
    try:
        return data.decode("utf-8").split("\n")  # type: ignore[return-value]
    except UnicodeDecodeError:
        pass
    out: list[str | None] = []
    for number, chunk in enumerate(data.split(b"\n"), start=1):
        try:
            out.append(chunk.decode("utf-8"))
        except UnicodeDecodeError as exc:
            problems.append(
                Problem(
                    file=file,
                    line=number,
                    message=(
                        f"invalid UTF-8 (byte 0x{chunk[exc.start]:02x} at column {exc.start + 1}); "
                        "read with U+FFFD in its place, as pi reads it"
                    ),
                    severity="warning",
                )
            )
            out.append(chunk.decode("utf-8", errors="replace"))
    return out


_UTF16_BOMS = ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


def utf16_encoding(data: bytes) -> str | None:
    """ "utf-16-le" / "utf-16-be" when the bytes are UTF-16 text: a byte-order mark, or text with every other byte NUL."""
    for bom, name in _UTF16_BOMS:
        if data.startswith(bom):
            return name
    head = data[:4096]
    if len(head) < 4 or head.count(0) * 3 < len(head):
        return None
    for name, zeros in (("utf-16-le", head[1::2]), ("utf-16-be", head[0::2])):
        if zeros.count(0) * 10 >= len(zeros) * 9:
            sample = head[: len(head) // 2 * 2].decode(name, errors="replace")
            if sum(c.isprintable() or c.isspace() for c in sample) * 10 >= len(sample) * 9:
                return name
    return None


def decode_text(data: bytes) -> tuple[bytes | str, str | None]:
    """The file's text when it decodes as a whole (UTF-8, or UTF-16 named as the second value), else its bytes.

    Bytes are decoded line by line by `split_lines`, each bad line reported.
    """
    encoding = utf16_encoding(data)
    if encoding is not None:
        return data.decode(encoding, errors="replace").removeprefix("\ufeff"), encoding
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return data, None


class Lines(NamedTuple):
    """A file decoded and split into non-blank lines, not parsed yet."""

    lines: list[tuple[int, str]]  # (1-based line number, exact text without newline)
    problems: list[Problem]
    newline: str
    trailing_newline: bool
    last: int  # number of the file's last line


class LineSource(Protocol):
    """What parsing lines needs of them: `Lines` (split whole) or `StreamedLines` (read a chunk at a time)."""

    @property
    def lines(self) -> Iterable[tuple[int, str]]: ...
    @property
    def problems(self) -> list[Problem]: ...
    @property
    def newline(self) -> str: ...
    @property
    def trailing_newline(self) -> bool: ...
    @property
    def last(self) -> int: ...


INVALID = object()  # what parse_line returns for a line that is not JSON


SPLIT_CHUNK = 1 << 20


def split_text(text: str, chunk: int = SPLIT_CHUNK) -> list[str]:
    """`text.split("\\n")`, a megabyte at a time.

    Why: one split of a 100 MB file holds the interpreter for a few hundred milliseconds,
    and the desk imports on a worker thread while its event loop waits for its turn.
    """
    if len(text) <= chunk:
        return text.split("\n")
    parts: list[str] = []
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", min(start + chunk, size))
        if end < 0:
            parts.extend(text[start:].split("\n"))
            return parts
        parts.extend(text[start:end].split("\n"))
        start = end + 1
    parts.append("")  # the text ended with a newline
    return parts


READ_CHUNK = 1 << 20


class FileText(NamedTuple):
    """A file read from disk: its lines when it is UTF-8 throughout, else its bytes; and its fingerprint."""

    data: list[str] | bytes  # `text.split("\n")` of valid UTF-8, or the bytes for `decode_text`
    trailing_newline: bool
    size: int
    sha256: str


def read_file_text(path: Path) -> FileText:
    """Read, fingerprint, decode and split a file a megabyte at a time; bytes only when it is not plain UTF-8.

    Why: reading the whole file, decoding it whole and then splitting it held the file
    two or three times over (~200 MB of a 100 MB session at the peak of an import); read
    in chunks cut at newlines (a newline byte is never inside a UTF-8 sequence), only the
    lines are held. UTF-16 text and bad UTF-8 take the whole-file path that reports them.
    """
    read = _ReadState()
    parts: list[str] = []
    try:
        with open(path, "rb") as handle:
            for block, _ in _line_blocks(handle, READ_CHUNK, read):
                parts.extend(block.decode("utf-8").split("\n"))
    except (_Utf16, UnicodeDecodeError):
        return _whole_file(path)
    return FileText(parts, read.last_byte == b"\n", read.size, read.sha256)


def _whole_file(path: Path) -> FileText:
    data = path.read_bytes()
    return FileText(data, data.endswith(b"\n"), len(data), hashlib.sha256(data).hexdigest())


class _Utf16(Exception):
    """The file's first chunk is UTF-16 text."""


class _ReadState:
    """What `_line_blocks` learns of the file: its size, last byte and SHA-256 (once read to the end)."""

    def __init__(self) -> None:
        self.size = 0
        self.last_byte = b""
        self.sha256 = ""


def _line_blocks(handle: BinaryIO, chunk: int, state: _ReadState) -> Iterator[tuple[bytes, bool]]:
    """The file's bytes as blocks of whole lines (each block's last newline left out), `chunk` bytes read at a time.

    The last block (flagged True) is what follows the file's last newline: empty when it
    ends with one. A newline byte is never inside a UTF-8 sequence, so each block decodes
    alone. Raises `_Utf16` when the first chunk is UTF-16 text.
    """
    digest = hashlib.sha256()
    pending: list[bytes] = []
    while data := handle.read(chunk):
        if state.size == 0 and utf16_encoding(data) is not None:
            raise _Utf16
        digest.update(data)
        state.size += len(data)
        state.last_byte = data[-1:]
        cut = data.rfind(b"\n")
        if cut < 0:
            pending.append(data)
            continue
        pending.append(data[:cut])
        block = b"".join(pending)
        pending = [data[cut + 1 :]]
        yield block, False
    state.sha256 = digest.hexdigest()
    yield b"".join(pending), True


def split_lines(data: bytes | str | FileText, file: str) -> Lines:
    """Decode and split `data` into lines (CRLF files lose the CR), reporting undecodable and blank lines.

    `data` may be the file's text already decoded as a whole (valid UTF-8), which lets a
    caller drop the bytes before splitting (a big file is then held twice, not three times),
    or a `FileText` of plain UTF-8 (see `read_file_text`), whose lines are split already.
    """
    problems: list[Problem] = []
    if isinstance(data, FileText):
        if isinstance(data.data, bytes):
            raise TypeError("a file that is not plain UTF-8 is decoded first (decode_text)")
        decoded: list[str | None] = data.data  # type: ignore[assignment]
        trailing_newline = data.trailing_newline
    elif isinstance(data, str):
        decoded = split_text(data)  # type: ignore[assignment]
        trailing_newline = data.endswith("\n")
    else:
        decoded = _decode_lines(data, file, problems)
        trailing_newline = data.endswith(b"\n")
    if trailing_newline:
        decoded.pop()
    first = decoded[0] if decoded else None
    newline = "\r\n" if first is not None and first.endswith("\r") else "\n"
    crlf = newline == "\r\n"
    lines: list[tuple[int, str]] = []
    for number, raw in enumerate(decoded, start=1):
        if raw is None:
            continue
        text = raw[:-1] if crlf and raw.endswith("\r") else raw
        if not text.strip():
            problems.append(Problem(file=file, line=number, message="blank line (skipped)", severity="warning"))
            continue
        lines.append((number, text))
    return Lines(lines, problems, newline, trailing_newline, len(decoded))


class _NotJson(ValueError):
    """A constant Python's json accepts but JSON (and pi's JSON.parse) does not."""


def _reject_constant(name: str) -> Any:
    raise _NotJson(f"{name} is not valid JSON")


_json_decode = json.JSONDecoder(parse_constant=_reject_constant).decode
_msgspec_decode = msgspec.json.Decoder().decode


def _decode(text: str) -> Any:
    """`json.loads` of a line (NaN and Infinity refused), read by msgspec where it can: the same value, faster.

    Why: parsing was a fifth of a Claude Code or Codex import (json 0.38 s, msgspec 0.22 s for
    the 50,000 lines of the grown Claude Code session; Codex 0.22 / 0.09 s). msgspec gives the
    value json gives for every line it reads (each float to the bit, ints of any size, the last
    of repeated keys); what it refuses, json reads, with json's value or error: a lone UTF-16
    surrogate escape (json keeps it, the reader then replaces it and says so), a number too large
    for a float (json makes it Infinity), NaN and Infinity (json's error is the one reported),
    nesting deeper than it goes, and any malformed line. `test_jsonl_msgspec` compares both.
    """
    try:
        return _msgspec_decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return _json_decode(text)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def parse_line(number: int, text: str, lines: LineSource, file: str, *, bom: bool = False) -> Any:
    """`json.loads` of one line, or INVALID after reporting it (a bad unterminated last line is "truncated").

    `bom`: a byte-order mark at the line's start is skipped, as the agent's reader skips it.
    """
    if bom and text.startswith("\ufeff"):
        text = text[1:]
    try:
        # msgspec first, here (what `_decode` tries first: one call a line, not three); what it refuses takes the whole way
        value = _msgspec_decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        value = _parsed_slowly(number, text, lines, file)
        if value is INVALID:
            return INVALID
    if "\\u" in text and _SURROGATE_ESCAPE.search(text):
        value = _scrub_surrogates(number, value, lines, file)
    return value


def _parsed_slowly(number: int, text: str, lines: LineSource, file: str) -> Any:
    """`parse_line`'s value of a line msgspec refused: json's (see `_decode`), or INVALID after reporting it."""
    try:
        return deep_json.loads(text, _decode)  # nesting past json's recursion is read as the agents' readers read it
    except (ValueError, RecursionError) as exc:
        if number == lines.last and not lines.trailing_newline:
            message = "truncated last line (no newline at end and not valid JSON); line skipped"
        elif isinstance(exc, json.JSONDecodeError):
            message = f"malformed JSON ({exc.msg} at column {exc.colno}); line skipped"
        elif isinstance(exc, _NotJson):
            message = f"malformed JSON ({exc}); line skipped"
        else:
            message = "malformed JSON (nested too deeply); line skipped"
        lines.problems.append(Problem(file=file, line=number, message=message))
        return INVALID


def _scrub_surrogates(number: int, value: Any, lines: LineSource, file: str) -> Any:
    """Replace lone UTF-16 surrogates (valid JSON, not encodable as UTF-8) with U+FFFD, and say so.

    Walks the value with an explicit stack, so nesting as deep as json reads costs no recursion.
    """
    found = False

    def clean(item: str) -> str:
        nonlocal found
        if _LONE_SURROGATE.search(item):
            found = True
            return _LONE_SURROGATE.sub("\ufffd", item)
        return item

    if isinstance(value, str):
        value = clean(value)
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            for i, child in enumerate(item):
                if isinstance(child, str):
                    item[i] = clean(child)
                elif isinstance(child, (list, dict)):
                    stack.append(child)
        elif isinstance(item, dict):
            for key in list(item):
                child = item[key]
                if isinstance(child, str):
                    child = clean(child)
                elif isinstance(child, (list, dict)):
                    stack.append(child)
                new_key = clean(key)
                if new_key != key:
                    del item[key]
                item[new_key] = child
    if found:
        lines.problems.append(
            Problem(
                file=file,
                line=number,
                message="lone UTF-16 surrogate in a string (replaced by U+FFFD when read; the line itself is kept)",
                severity="warning",
            )
        )
    return value


def not_an_object(number: int, value: Any, lines: LineSource, file: str) -> None:
    """Report a line that is valid JSON but not an object."""
    lines.problems.append(
        Problem(file=file, line=number, message=f"not a JSON object (a JSON {_json_kind(value)}); line skipped")
    )


def parse_records(lines: Lines, file: str, start: int = 0, index: int = 0, *, bom: bool = False) -> list[Record]:
    """Parse lines[start:] once each; bad lines become problems, never exceptions (`bom`: see `parse_line`)."""
    return list(iter_records(lines, file, start, index, bom=bom))


def iter_records(
    lines: LineSource, file: str, start: int = 0, index: int = 0, *, bom: bool = False
) -> Iterator[Record]:
    """`parse_records`, one record at a time: each line is parsed when the reader comes to it.

    Why: a reader that builds an entry from each record and drops the record never holds
    every parsed line at once (a 50,000-record Claude Code file's dicts were ~350 MB).
    A bad line's problem is added to `lines.problems` when the iteration reaches it.
    """
    for number, text in islice(lines.lines, start, None) if start else lines.lines:
        value = parse_line(number, text, lines, file, bom=bom)
        if value is INVALID:
            continue
        if type(value) is not dict:
            not_an_object(number, value, lines, file)
        else:
            yield Record(number, text, value, index)
        index += 1


class NotStreamable(Exception):
    """A file the streamed reading cannot read as the whole-file reading does (read it whole instead)."""


class StreamedLines:
    """A plain UTF-8 file's lines as `split_lines` gives them, read a chunk at a time and never all held.

    Why: a Claude Code import held the file's lines as strings (~200 MB of a 112 MB file,
    a tenth of its lines being non-ASCII) until the last entry was built. `lines` reads
    the file once; the fingerprint (`size`, `sha256`), `trailing_newline` and `last` are
    known when it is done, and the blank lines' problems are put before every other then
    (as `split_lines` reports them first). `last` is 0 until the end is reached: every
    line handed out before that ended with a newline, so none of them is a truncated last
    line. A file `split_lines` would read otherwise (UTF-16 text, bad UTF-8) raises
    `NotStreamable` where that shows, possibly after many lines.
    """

    def __init__(self, path: Path, chunk: int = READ_CHUNK) -> None:
        self.path = path
        self.file = str(path)
        self.chunk = chunk
        self.problems: list[Problem] = []
        self.newline = "\n"
        self.trailing_newline = False
        self.last = 0
        self.size = 0
        self.sha256 = ""
        self._blank: list[Problem] = []
        self._crlf: bool | None = None  # decided by the first line, as `split_lines` decides it

    @property
    def lines(self) -> Generator[tuple[int, str], None, None]:
        return self._read()

    def _read(self) -> Generator[tuple[int, str], None, None]:
        read = _ReadState()
        number = 0
        with open(self.path, "rb") as handle:
            blocks = _line_blocks(handle, self.chunk, read)
            while True:
                try:
                    block, final = next(blocks)
                except _Utf16:
                    raise NotStreamable(f"{self.file}: UTF-16 text") from None
                if final:
                    break
                for raw in _utf8(block, self.file).split("\n"):
                    number += 1
                    line = self._line(number, raw)
                    if line is not None:
                        yield line
        self.size = read.size
        self.sha256 = read.sha256
        self.trailing_newline = read.last_byte == b"\n"
        if self.trailing_newline:
            self.last = number
        else:  # the piece after the last newline (the whole file, or "", when there is none)
            number += 1
            self.last = number
            line = self._line(number, _utf8(block, self.file))
            if line is not None:
                yield line
        self.problems[0:0] = self._blank

    def _line(self, number: int, raw: str) -> tuple[int, str] | None:
        if self._crlf is None:
            self._crlf = raw.endswith("\r")
            self.newline = "\r\n" if self._crlf else "\n"
        text = raw[:-1] if self._crlf and raw.endswith("\r") else raw
        if not text.strip():
            self._blank.append(Problem(file=self.file, line=number, message="blank line (skipped)", severity="warning"))
            return None
        return number, text


def _utf8(data: bytes, file: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotStreamable(f"{file}: not valid UTF-8") from None


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"
