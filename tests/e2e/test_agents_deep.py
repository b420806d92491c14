"""A tool call nested 900 levels deep imports, shows, plans and audits as any other (it ended in "internal error")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

DEPTH = 900
# each sample with the record kind that carries a tool call's arguments
SAMPLES = {
    "pi-one-compaction.jsonl": "toolCall",
    "claude-code-compacted.jsonl": "tool_use",
    "codex-rollout-compacted.jsonl": "function_call",
}


def nested(depth: int) -> object:
    value: object = "bottom"
    for level in range(depth):
        value = {"k": value} if level % 2 else [value]
    return value


def with_deep_arguments(source: Path, target: Path) -> None:
    """A copy of `source` whose first tool call carries an argument nested DEPTH levels deep."""
    lines = source.read_text().splitlines()
    for i, line in enumerate(lines):
        value = json.loads(line)
        message = value.get("message") if isinstance(value.get("message"), dict) else {}
        blocks = message.get("content") if isinstance(message.get("content"), list) else []
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "toolCall":
                block["arguments"] = {"deep": nested(DEPTH)}
                break
            if isinstance(block, dict) and block.get("type") == "tool_use":
                block["input"] = {"deep": nested(DEPTH)}
                break
        else:
            payload = value.get("payload")
            if not (isinstance(payload, dict) and payload.get("type") == "function_call"):
                continue
            payload["arguments"] = json.dumps({"deep": nested(DEPTH)})
        lines[i] = json.dumps(value)
        target.write_text("\n".join(lines) + "\n")
        return
    raise AssertionError(f"{source.name} has no tool call")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from cutline.app.cli import main; main()", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ},
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_deep_arguments_import_show_plan_and_audit(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    with_deep_arguments(ROOT / "sample_sessions" / name, path)
    for command in ("import", "show", "plan", "audit"):
        result = run(command, str(path))
        assert result.returncode == 0, f"{command}: {result.stderr}"
        assert "internal error" not in result.stderr
