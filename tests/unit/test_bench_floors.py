"""bench/bench_floors.py's child reads the stored session whole: every line's entry, every message, every word."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.bench_scripts import bench_script
from tests.support.paths import SAMPLES


@pytest.mark.parametrize("name", ["pi-coding-session.jsonl", "claude-code-compacted.jsonl"])
def test_the_stages_read_every_entry_and_message_of_the_file(name: str, tmp_path: Path) -> None:
    floors = bench_script("bench_floors")
    file = SAMPLES / name
    result = floors.stages(file, floors.home_env(str(tmp_path)))
    lines = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert result["rows"] == result["entries"] > 0
    assert result["messages"] > 0 and result["fact_count"] > 0
    if name.startswith("pi-"):  # pi: one entry per line after the header, a message per message line
        assert result["entries"] == len(lines) - 1
        assert result["messages"] == sum(1 for d in lines if d.get("type") == "message")
        # its words: what a user or assistant wrote as text counts at least (tool results and calls add more)
        said = sum(
            len(re.findall(r"\w+", block["text"]))
            for d in lines
            if d.get("type") == "message" and d["message"]["role"] in ("user", "assistant")
            for block in (d["message"]["content"] if isinstance(d["message"]["content"], list) else [])
            if block.get("type") == "text"
        )
        assert result["word_count"] >= said > 0
    assert all(result[stage] >= 0 for stage in floors.STAGES)
