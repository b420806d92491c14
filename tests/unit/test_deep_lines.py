"""A line nested past Python's recursion (3,000 levels) is read and stored, as the agents' own readers read it.

pi and Claude Code read their files with JavaScript's JSON.parse, which reads a line nested
100,000 levels deep (checked with Node 24); `json.loads` raises RecursionError past about
1,000, and the line was skipped as "nested too deeply". Codex keeps a call's arguments as a
JSON string; parsing that string ended in "internal error".
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from cutline.core.agents import deep_json
from cutline.core.store import Store
from tests.support.cli import run
from tests.support.paths import SAMPLES

DEPTH = 3000
DEEP = '{"deep":' + '[{"k":' * DEPTH + '"bottom"' + "}]" * DEPTH + "}"
# each sample with the record kind that carries a tool call's arguments
SAMPLES_WITH_CALLS = {
    "pi-one-compaction.jsonl": "toolCall",
    "claude-code-compacted.jsonl": "tool_use",
    "codex-rollout-compacted.jsonl": "function_call",
}
MARK = '"__deep_marker__"'


def with_deep_call(source: Path, target: Path) -> int:
    """A copy of `source` whose first tool call's arguments are DEEP; the number of that line (1-based)."""
    lines = source.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        value = json.loads(line)
        message = value.get("message") if isinstance(value.get("message"), dict) else {}
        blocks = message.get("content") if isinstance(message.get("content"), list) else []
        payload = value.get("payload")
        text = None
        for block in blocks:
            if isinstance(block, dict) and block.get("type") in ("toolCall", "tool_use"):
                block["arguments" if block["type"] == "toolCall" else "input"] = "__deep_marker__"
                text = json.dumps(value, ensure_ascii=False).replace(MARK, DEEP)
                break
        if text is None and isinstance(payload, dict) and payload.get("type") == "function_call":
            payload["arguments"] = DEEP  # Codex keeps the arguments as a JSON string
            text = json.dumps(value, ensure_ascii=False)
        if text is not None:
            lines[i] = text
            target.write_text("\n".join(lines) + "\n", encoding="utf-8")
            return i + 1
    raise AssertionError(f"{source.name} has no tool call")


def depth_of(value: Any) -> int:
    depth = 0
    while isinstance(value, (dict, list)) and value:
        value = next(iter(value.values())) if isinstance(value, dict) else value[0]
        depth += 1
    return depth


@pytest.mark.parametrize("name", sorted(SAMPLES_WITH_CALLS))
def test_a_line_nested_3000_deep_is_read_stored_shown_planned_and_audited(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain, deep = tmp_path / "plain" / name, tmp_path / "deep" / name
    plain.parent.mkdir()
    deep.parent.mkdir()
    plain.write_bytes((SAMPLES / name).read_bytes())
    number = with_deep_call(SAMPLES / name, deep)
    assert run(capsys, "import", str(plain))[0] == 0
    code, _, err = run(capsys, "import", str(deep))
    assert code == 0 and "nested too deeply" not in err and f":{number}:" not in err, err
    with Store() as store:
        sessions = {Path(info.source_path or "").parent.name: info for info in store.list_sessions()}
        kept, whole = store.load_session(sessions["deep"].id), store.load_session(sessions["plain"].id)
    assert len(kept.entries) == len(whole.entries)
    calls = [call for entry in kept.entries if entry.message for call in entry.message.tool_calls()]
    assert depth_of(calls[0].arguments) == 2 * DEPTH + 1
    for command in ("show", "plan", "audit"):
        assert run(capsys, command, str(deep))[0] == 0, command
    if name.startswith("pi"):
        out_file = tmp_path / "out.jsonl"
        assert run(capsys, "export", str(deep), "-o", str(out_file))[0] == 0
        assert out_file.read_bytes() == deep.read_bytes()


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kinds = ["null", "bool", "int", "float", "str"] + (["list", "dict"] * 2 if depth < 5 else [])
    kind = rng.choice(kinds)
    if kind == "list":
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if kind == "dict":
        return {
            rng.choice(["a", "é", "0", "k\n", "ключ"]): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))
        }
    return {
        "null": None,
        "bool": rng.random() < 0.5,
        "int": rng.randint(-(2**70), 2**70),
        "float": rng.uniform(-1e6, 1e6),
        "str": "".join(rng.choice('ab"\\\n\t€😀\u2028') for _ in range(rng.randint(0, 6))),
    }[kind]


def test_the_stack_walk_reads_and_writes_what_json_does() -> None:
    rng = random.Random(27)
    for _ in range(500):
        value = _random_value(rng)
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        spaced = json.dumps(value, indent=rng.choice([None, 1]))
        assert deep_json._loads_iteratively(text) == json.loads(text)
        assert deep_json._loads_iteratively(spaced) == json.loads(spaced)
        assert deep_json._dumps_iteratively(value) == text
    for bad in ["[1,]", '{"a"}', "[1 2]", "NaN", "[1]x", '{"a":1,}', "", "[", '"\\x"', "01"]:
        with pytest.raises(ValueError):
            deep_json._loads_iteratively(bad)
    deep = "[" * 50_000 + "]" * 50_000
    assert depth_of(deep_json.loads(deep)) == 49_999
    assert deep_json.dumps(deep_json.loads(deep)) == deep
