"""The commands' indented JSON is byte for byte what `json.dumps(indent=2)` printed before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutline.app.output import indented_json

GOLDEN = Path(__file__).resolve().parents[1] / "golden"

SAMPLES: list[Any] = [
    {},
    [],
    {"a": [], "b": {}, "c": [[], [{}], {"d": []}]},
    {"text": 'é ü 中 \u2028 \x7f \x85 "quoted" \\ back\nnew\ttab \x00', "emoji": "🙂"},
    {"floats": [1.5, 1e-05, 1e20, -0.0, 123456789.123456789, 2.0], "ints": [0, -1, 10**20]},
    {"none": None, "yes": True, "no": False, "nested": {"deep": {"deeper": [1, {"x": "y"}]}}},
    [1, "two", None, [3, [4, [5]]]],
    "just a string",
    42,
]


@pytest.mark.parametrize("ensure_ascii", [True, False])
@pytest.mark.parametrize("data", SAMPLES)
def test_same_text_as_json_dumps(data: Any, ensure_ascii: bool) -> None:
    assert indented_json(data, ensure_ascii=ensure_ascii) == json.dumps(data, indent=2, ensure_ascii=ensure_ascii)


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.json")), ids=lambda p: p.name)
def test_same_text_on_the_goldens(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    for ensure_ascii in (True, False):
        assert indented_json(data, ensure_ascii=ensure_ascii) == json.dumps(data, indent=2, ensure_ascii=ensure_ascii)


@pytest.mark.parametrize(
    "text",
    [
        '{\n  "a": "plain ascii"\n}',
        '{"a": "del \x7f tab \t cr \r nul \x00"}',
        '{"a": "c1 \x9b and é"}',
        '{"a": "é ü 中, no control"}',
        "",
    ],
)
def test_terminal_json_escapes_what_the_expression_escapes(text: str) -> None:
    """The ASCII shortcut changes nothing: every raw control still becomes an escape, clean text stays as it is."""
    from cutline.app.output import _JSON_RAW_CONTROLS, terminal_json

    expected = _JSON_RAW_CONTROLS.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
    assert terminal_json(text) == expected
    assert ("\\u" in expected) == any(c in text for c in "\x7f\t\r\x00\x9b")
