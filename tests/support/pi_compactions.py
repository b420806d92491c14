"""Small pi v3 session files with several compactions, for comparing the windowed audit and compaction with the full load."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

_WORDS = [
    "cache",
    "flush",
    "queue",
    "parser",
    "retry",
    "budget",
    "socket",
    "index",
    "worker",
    "shard",
    "batch",
    "token",
    "limit",
    "stream",
]
_FILES = ["src/app.py", "src/store.py", "src/queue.py", "tests/test_app.py", "README.md"]


class _Writer:
    """Entries of one pi session, each a child of the previous one unless a parent is given."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.lines: list[str] = []
        self.last: str | None = None
        self.count = 0
        self.clock = 1_795_426_800_000

    def text(self, words: int) -> str:
        return " ".join(self.rng.choice(_WORDS) for _ in range(words))

    def add(self, kind: str, parent: str | None = "", **fields: Any) -> str:
        self.count += 1
        self.clock += self.rng.randint(500, 5000)
        entry_id = f"{self.rng.getrandbits(32):08x}"
        stamp = f"2026-11-23T{(self.count // 3600) % 24:02d}:{(self.count // 60) % 60:02d}:{self.count % 60:02d}.000Z"
        record = {
            "type": kind,
            "id": entry_id,
            "parentId": self.last if parent == "" else parent,
            "timestamp": stamp,
            **fields,
        }
        self.lines.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
        self.last = entry_id
        return entry_id

    def message(self, role: str, content: list[dict[str, Any]], **extra: Any) -> str:
        return self.add("message", message={"role": role, "content": content, "timestamp": self.clock, **extra})

    def usage(self, context: int) -> dict[str, Any]:
        output = self.rng.randint(20, 400)
        return {
            "input": context // 10,
            "output": output,
            "cacheRead": context - context // 10,
            "cacheWrite": 0,
            "totalTokens": context + output,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        }


def write_pi_session(
    path: Path,
    turns: int = 60,
    every: int = 12,
    seed: int = 1,
    *,
    current_pi: bool = False,
    context_edit: bool = False,
    missing_first_kept: bool = False,
    branch: bool = False,
) -> Path:
    """A pi v3 file of `turns` user turns (tool calls on files, results, usage) and a compaction every `every` turns.

    `current_pi` adds a system message (current pi's sign), `context_edit` a context_edit
    entry, `missing_first_kept` a compaction naming an entry not on the path, `branch` an
    abandoned branch before the last turns.
    """
    w = _Writer(seed)
    header = {
        "type": "session",
        "version": 3,
        "id": f"{seed:08x}-0000-4000-a000-000000000000",
        "timestamp": "2026-11-23T00:00:00.000Z",
        "cwd": "/home/dev/project",
    }
    w.add("model_change", None, provider="anthropic", modelId="claude-sonnet-4-5")
    w.add("thinking_level_change", thinkingLevel="medium")
    if current_pi:
        w.message("system", [{"type": "text", "text": "You are a coding agent. " + w.text(20)}])
    context = 3000
    turn_starts: list[str] = []
    calls = 0
    for turn in range(turns):
        if turn and turn % every == 0 and len(turn_starts) > 3:
            kept = "deadbeef" if missing_first_kept and turn == every * 2 else turn_starts[-2]
            w.add(
                "compaction",
                summary=f"## Goal\n{w.text(30)}\n\n## Progress\n- [x] {w.text(8)} in `{w.rng.choice(_FILES)}`",
                firstKeptEntryId=kept,
                tokensBefore=context,
                details={"readFiles": _FILES[:2], "modifiedFiles": _FILES[2:3]},
            )
            context = 4000
        if branch and turn == turns - 3:
            fork = w.last
            w.message("user", [{"type": "text", "text": "abandoned " + w.text(10)}])
            w.message("assistant", [{"type": "text", "text": w.text(15)}], usage=w.usage(context), stopReason="stop")
            w.last = fork
        if turn % 7 == 5:
            w.add("model_change", provider="anthropic", modelId=w.rng.choice(["claude-sonnet-4-5", "claude-opus-4-1"]))
        ask = f"Please fix the {w.text(3)} in {w.rng.choice(_FILES)}: it fails with ValueError {w.text(4)}"
        turn_starts.append(w.message("user", [{"type": "text", "text": ask}]))
        for _ in range(w.rng.randint(1, 3)):
            calls += 1
            tool = w.rng.choice(["read", "edit", "write", "bash"])
            target = w.rng.choice(_FILES)
            arguments = {"command": f"pytest -q {target}"} if tool == "bash" else {"path": target}
            context += w.rng.randint(200, 2500)
            w.message(
                "assistant",
                [
                    {"type": "thinking", "thinking": w.text(12)},
                    {"type": "toolCall", "id": f"call_{calls}", "name": tool, "arguments": arguments},
                ],
                usage=w.usage(context),
                stopReason="toolUse",
                provider="anthropic",
                model="claude-sonnet-4-5",
            )
            failed = w.rng.random() < 0.15
            output = ("Error: " if failed else "") + w.text(w.rng.randint(20, 200))
            w.message(
                "toolResult",
                [{"type": "text", "text": output}],
                toolCallId=f"call_{calls}",
                toolName=tool,
                isError=failed,
            )
        context += w.rng.randint(100, 800)
        w.message(
            "assistant",
            [{"type": "text", "text": f"Done: {w.text(25)} in `{w.rng.choice(_FILES)}`."}],
            usage=w.usage(context),
            stopReason="stop",
            provider="anthropic",
            model="claude-sonnet-4-5",
        )
        if context_edit and turn == turns // 2:
            w.add("context_edit", targetId=turn_starts[1], replacement={"content": "EDITED " + w.text(5)})
    path.write_text("\n".join([json.dumps(header, separators=(",", ":")), *w.lines]) + "\n", encoding="utf-8")
    return path


def append_turns(path: Path, turns: int, seed: int, compaction: bool = False) -> None:
    """Append user/assistant turns (and first a compaction, if asked) to a session `write_pi_session` wrote."""
    lines = path.read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1])["id"]
    w = _Writer(seed)
    w.last = last
    users = [json.loads(line)["id"] for line in lines if '"role":"user"' in line]
    if compaction:
        w.add(
            "compaction",
            summary="## Goal\n" + w.text(30),
            firstKeptEntryId=users[-1],
            tokensBefore=9000,
            details={"readFiles": [], "modifiedFiles": []},
        )
    for _ in range(turns):
        w.message("user", [{"type": "text", "text": "Next: " + w.text(12)}])
        w.message(
            "assistant",
            [{"type": "text", "text": w.text(30)}],
            usage=w.usage(9000),
            stopReason="stop",
            model="claude-sonnet-4-5",
        )
    path.write_text("\n".join([*lines, *w.lines]) + "\n", encoding="utf-8")
