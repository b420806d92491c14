"""Every line is parsed to json's value, or refused with json's problem, though msgspec reads it where it can (`jsonl._decode`).

Why: parsing was a fifth of a Claude Code or Codex import, and msgspec reads a line in
about half of json's time. It may only ever give json's value: compared here with every
value's type (1, 1.0 and True are equal in Python; -0.0 and 0.0 too), each float to the
bit, on every line of the samples and fixtures, on hostile lines (the problems in the
same words, the same lines kept), and on numbers at the edges of what a float holds.
"""

from __future__ import annotations

import json
import random
import struct
from pathlib import Path
from typing import Any

import pytest

from cutline.core.agents import jsonl
from cutline.core.agents.jsonl import INVALID, Lines, parse_line
from tests.support.grown_sessions import grow

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted([*ROOT.glob("sample_sessions/**/*.jsonl"), *ROOT.glob("tests/fixtures/**/*.jsonl")])

# lines msgspec refuses or might read otherwise, each beside a plain one; json's answer is the one kept
HOSTILE = [
    '{"a":"\\ud800"}',
    '{"a":"\\udc00x","b":"\\ud83d\\ude00"}',
    '{"\\ud800":1}',
    '{"a":NaN}',
    '{"a":-Infinity}',
    '{"a":1e400,"b":-1e400,"c":1e-400}',
    '{"a":1.7976931348623159e308}',
    f'{{"a":{2**70},"b":-{2**64},"c":18446744073709551615,"d":-9223372036854775809}}',
    '{"a":1,"a":2.0,"a":true}',
    '{"a":-0,"b":-0.0,"c":0.0,"d":1E+2,"e":2.5e-0}',
    '{"a":01}',
    '{"a":1.}',
    '{"a":.5}',
    '{"a":1,}',
    '{"a":"\x01"}',
    '{"a":"\t"}',
    '{"a":\u00a01}',
    '{"a":tru}',
    '{"a":1}x',
    ' {"a":1} ',
    '{"a":"\\/\\u0000\\u2028"}',
    "[1, 2]",
    '"text"',
    "null",
    '{"a":' + "[" * 250 + "]" * 250 + "}",
    '{"a":' + "[" * 5000 + "]" * 5000 + "}",
    "{" + '"a":{' * 300 + "}" * 300 + "}",
    "\ufeff" + '{"a":1}',
    '{"a":"x"',
]


def _typed(value: Any) -> Any:
    """A value with every leaf's type, floats as their bits: equal only where json's and msgspec's values are the same."""
    if isinstance(value, dict):
        return ("dict", [(key, _typed(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [_typed(item) for item in value])
    if isinstance(value, float):
        return ("float", struct.pack("<d", value))
    return (type(value).__name__, value)


def _json_only(text: str) -> Any:
    raise jsonl.msgspec.DecodeError("refused for the comparison")


def _parse(text: str, *, json_only: bool, monkeypatch: pytest.MonkeyPatch, last: bool = False) -> tuple[Any, list[str]]:
    lines = Lines([(1, text)], [], "\n", not last, 1)
    with monkeypatch.context() as patch:
        if json_only:
            patch.setattr(jsonl, "_msgspec_decode", _json_only)
        value = parse_line(1, text, lines, "f.jsonl", bom=True)
    shown = "INVALID" if value is INVALID else _typed(value)
    return shown, [str(problem) for problem in lines.problems]


def _deep_enough_for_typed(text: str) -> bool:
    return text.count("[") + text.count("{") < 400  # `_typed` recurses


@pytest.mark.parametrize("text", HOSTILE)
@pytest.mark.parametrize("last", [False, True])
def test_a_hostile_line_is_read_or_refused_as_json_reads_it(
    text: str, last: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not _deep_enough_for_typed(text):
        fast = parse_line(1, text, Lines([(1, text)], [], "\n", True, 1), "f.jsonl")
        assert fast is not INVALID  # read by the stack walk, as json's recursion stops
        return
    assert _parse(text, json_only=False, monkeypatch=monkeypatch, last=last) == _parse(
        text, json_only=True, monkeypatch=monkeypatch, last=last
    )


def test_every_line_of_the_samples_and_fixtures_parses_to_json_s_value(monkeypatch: pytest.MonkeyPatch) -> None:
    compared = 0
    for path in FILES:
        try:
            content = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue  # (read whole as another encoding, or refused, before any line is parsed)
        for text in content.splitlines():
            if not text.strip() or not _deep_enough_for_typed(text):
                continue
            fast = _parse(text, json_only=False, monkeypatch=monkeypatch)
            assert fast == _parse(text, json_only=True, monkeypatch=monkeypatch), (path, text[:200])
            compared += 1
    assert compared > 5_000


def test_numbers_at_a_float_s_edges_read_as_json_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    chosen = random.Random(24)
    numbers = [
        "2.2250738585072011e-308",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "4.9406564584124654e-324",
        "1.7976931348623158e308",
        "9007199254740993",
        "9007199254740993.0",
        "0.1000000000000000055511151231257827",
        "123456789012345678901234567890e-20",
    ]
    for _ in range(3_000):
        digits = "".join(chosen.choice("0123456789") for _ in range(chosen.randint(1, 30)))
        numbers.append(f"{chosen.randint(1, 9)}{digits}e{chosen.randint(-340, 320)}")
        numbers.append(f"-{chosen.randint(0, 9)}.{digits}")
        numbers.append(repr(chosen.uniform(-1, 1) * 10.0 ** chosen.randint(-300, 300)))
    for number in numbers:
        text = f'{{"n":{number},"l":[{number}]}}'
        assert _parse(text, json_only=False, monkeypatch=monkeypatch) == _parse(
            text, json_only=True, monkeypatch=monkeypatch
        ), number


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_a_session_file_s_lines_are_read_without_json(
    agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The work: json reads none of the lines of a session the programs wrote (main: every one)."""
    path = grow(agent, 300, tmp_path / "s.jsonl")
    calls: list[str] = []
    json_decode = jsonl._json_decode

    def counted(text: str) -> Any:
        calls.append(text)
        return json_decode(text)

    monkeypatch.setattr(jsonl, "_json_decode", counted)
    lines = path.read_text(encoding="utf-8").splitlines()
    source = Lines(list(enumerate(lines, 1)), [], "\n", True, len(lines))
    values = [parse_line(number, text, source, str(path)) for number, text in source.lines]
    assert all(value is not INVALID for value in values) and len(values) == 300
    assert calls == []
    assert [_typed(value) for value in values] == [_typed(json.loads(text)) for text in lines]
