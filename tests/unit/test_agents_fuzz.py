"""Mutated copies of the sample sessions: every line that is still a record is imported, every bad one reported.

Seeded, so every run reads the same files. The oracle is independent of the readers:
a line is a record when it decodes (bad UTF-8 bytes read as U+FFFD) and parses as a
JSON object; such a line must come back as an entry's raw line (or the header line),
and every other non-empty line must be named by a problem `file:line: what`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from cutline.core.agents import read_session
from cutline.core.models import Session
from tests.support.paths import SAMPLES

SOURCES = (
    "pi-one-compaction.jsonl",
    "pi-v1-legacy.jsonl",
    "claude-code-compacted.jsonl",
    "codex-rollout-compacted.jsonl",
)
SEEDS = range(3)
GARBAGE = (
    b"\x00\x00\x00\x00",
    b"\x89PNG\r\x1a\x00\x00\x00\rIHDR\xff\xfe",
    b"not json at all",
    b'{"unterminated": ',
    b"[1, 2, 3]",
    b"\xff\xfe\xfd garbage \xc3",
    b"\x1b[31mred\x1b[0m",
)
DEEP = 900

Mutation = Callable[[list[bytes], random.Random], bytes]


def _join(lines: list[bytes]) -> bytes:
    return b"\n".join(lines) + b"\n"


def truncate(lines: list[bytes], rng: random.Random) -> bytes:
    data = _join(lines)
    return data[: rng.randrange(len(data) // 4, len(data) - 1)]


def flip_bytes(lines: list[bytes], rng: random.Random) -> bytes:
    data = bytearray(_join(lines))
    for position in [0, *(rng.randrange(len(data)) for _ in range(5))]:
        if data[position] != ord("\n"):
            data[position] ^= 1 << rng.randrange(8)
            if data[position] == ord("\n"):
                data[position] = ord("#")
    return bytes(data)


def garbage_lines(lines: list[bytes], rng: random.Random) -> bytes:
    out = list(lines)
    for _ in range(4):
        out.insert(rng.randrange(len(out) + 1), rng.choice(GARBAGE))
    return _join(out)


def garbage_first(lines: list[bytes], rng: random.Random) -> bytes:
    return _join([b"\x00\x01\x02binary\x00", *lines])


def swap_lines(lines: list[bytes], rng: random.Random) -> bytes:
    out = list(lines)
    for _ in range(3):
        i, j = rng.randrange(len(out)), rng.randrange(len(out))
        out[i], out[j] = out[j], out[i]
    return _join(out)


def duplicate_lines(lines: list[bytes], rng: random.Random) -> bytes:
    out = list(lines)
    for _ in range(3):
        i = rng.randrange(len(out))
        out.insert(i, out[i])
    return _join(out)


def latin1(lines: list[bytes], rng: random.Random) -> bytes:
    return _join(lines).decode("utf-8").encode("latin-1", errors="replace")


def utf16(lines: list[bytes], rng: random.Random) -> bytes:
    return _join(lines).decode("utf-8").encode(rng.choice(("utf-16", "utf-16-le")))


def blank_prefix(lines: list[bytes], rng: random.Random) -> bytes:
    return b"\n" * rng.randrange(150, 400) + b"  \r\n" + _join(lines)


def noise_prefix(lines: list[bytes], rng: random.Random) -> bytes:
    noise = [f"noise line {i} {rng.random()}".encode() for i in range(rng.randrange(60, 200))]
    return _join([*noise, *lines])


def deep_nesting(lines: list[bytes], rng: random.Random) -> bytes:
    out = list(lines)
    i = rng.randrange(1, len(out))
    value = json.loads(out[i])
    nested: object = "bottom"
    for _ in range(DEEP):
        nested = {"k": nested} if rng.random() < 0.5 else [nested]
    value["deep"] = nested
    out[i] = json.dumps(value).encode()
    return _join(out)


MUTATIONS: dict[str, Mutation] = {
    f.__name__: f
    for f in (
        truncate,
        flip_bytes,
        garbage_lines,
        garbage_first,
        swap_lines,
        duplicate_lines,
        latin1,
        utf16,
        blank_prefix,
        noise_prefix,
        deep_nesting,
    )
}


def expected_lines(data: bytes, mutation: str) -> tuple[list[tuple[int, str]], list[int]]:
    """(number, text) of the lines that are records, and the numbers of the other non-empty lines."""
    if mutation == "utf16":
        text = data.decode("utf-16-le" if data[:2] != b"\xfe\xff" else "utf-16-be").removeprefix("\ufeff")
        raw_lines = text.split("\n")
    else:
        raw_lines = [chunk.decode("utf-8", errors="replace") for chunk in data.split(b"\n")]
    if raw_lines and raw_lines[-1] == "":
        raw_lines.pop()
    records: list[tuple[int, str]] = []
    bad: list[int] = []
    for number, raw in enumerate(raw_lines, start=1):
        line = raw.removesuffix("\r")
        if not line.strip():
            bad.append(number)
            continue
        try:
            value = json.loads(line)
        except ValueError:
            bad.append(number)
            continue
        if isinstance(value, dict):
            records.append((number, line))
        else:
            bad.append(number)
    return records, bad


def check(session: Session, path: Path, data: bytes, mutation: str) -> None:
    records, bad = expected_lines(data, mutation)
    imported = {entry.line: entry.raw_line for entry in session.entries}
    for number, text in records:
        if imported.get(number) != text and session.header_line != text:
            raise AssertionError(f"{mutation}: record line {number} was not imported: {text[:80]!r}")
    reported = {p.line for p in session.problems}
    for number in bad:
        assert number in reported, f"{mutation}: bad line {number} was not reported"
    for problem in session.problems:
        assert str(problem).startswith(f"{path}:"), str(problem)
        if problem.line is not None:
            assert str(problem).startswith(f"{path}:{problem.line}: "), str(problem)


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_mutated_sample(tmp_path: Path, source: str, mutation: str) -> None:
    lines = (SAMPLES / source).read_bytes().rstrip(b"\n").split(b"\n")
    for seed in SEEDS:
        rng = random.Random(f"{source}:{mutation}:{seed}")
        data = MUTATIONS[mutation](lines, rng)
        path = tmp_path / f"{seed}-{source}"
        path.write_bytes(data)
        check(read_session(path), path, data, mutation)
