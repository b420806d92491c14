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
    images: bool = False,
) -> Path:
    """A pi v3 file of `turns` user turns (tool calls on files, results, usage) and a compaction every `every` turns.

    `every` 0: no compaction at all (one uncompacted stretch). `images` puts an image in
    some user messages and tool results (current pi's estimate counts a user's, chars4 does not).

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
        if every and turn and turn % every == 0 and len(turn_starts) > 3:
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
        picture = [{"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}] if images and turn % 3 == 1 else []
        turn_starts.append(w.message("user", [{"type": "text", "text": ask}, *picture]))
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
                [{"type": "text", "text": output}, *(picture if failed else [])],
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


def write_quirky_pi_session(path: Path, seed: int = 11, *, spaced: bool = False) -> Path:
    """A pi v3 file with the records a reading of stored columns could get wrong, each next to ordinary turns.

    Top-level `isMeta` (spelled out, false, and with a `\\u` escape in the key),
    `isSidechain` and `isCompactSummary` on message lines (pi's reader keeps them), a user
    message carrying a tool result, a bashExecution, aborted and errored calls and a zero
    usage, a zero usage, pi `usage` entries, compactions without a first kept entry, naming themselves and
    naming no entry, a zero tokensBefore, a repeated id, custom and branch-summary entries,
    a line with string content and non-ASCII text, pi context_edits, and the last assistant messages naming
    no model. `spaced` writes the JSON with spaces after `:` and `,`.
    """
    w = _Writer(seed)
    header = {
        "type": "session",
        "version": 3,
        "id": f"{seed:08x}-0000-4000-a000-00000000beef",
        "timestamp": "2026-11-23T00:00:00.000Z",
        "cwd": "/home/dev/project",
    }
    w.add("model_change", None, provider="anthropic", modelId="claude-sonnet-4-5")
    context = 2000

    def ask(text: str, **extra: Any) -> str:
        return w.add("message", message={"role": "user", "content": [{"type": "text", "text": text}]}, **extra)

    def answer(model: str | None = "claude-sonnet-4-5", stop: str = "stop", usage: bool = True, **extra: Any) -> str:
        nonlocal context
        context += w.rng.randint(300, 1500)
        message: dict[str, Any] = {
            "role": "assistant",
            "content": [{"type": "text", "text": w.text(20)}],
            "stopReason": stop,
        }
        if usage:
            message["usage"] = w.usage(context)
        if model is not None:
            message["model"] = model
        return w.add("message", message=message, **extra)

    first = ask("Start: " + w.text(10))
    answer()
    ask("meta " + w.text(5), isMeta=True)
    answer()
    ask("not meta " + w.text(5), isMeta=False)
    answer(isSidechain=True)
    ask("a summary record " + w.text(5), isCompactSummary=True)
    answer(stop="aborted")
    ask("caf\u00e9 na\u00efve " + w.text(6))
    w.lines[-1] = json.dumps(json.loads(w.lines[-1]), separators=(",", ":"))  # non-ASCII text as \u escapes
    answer(stop="error")
    w.add(
        "message",
        message={
            "role": "user",
            "content": [{"type": "toolResult", "toolCallId": "call_x", "content": [{"type": "text", "text": "ok"}]}],
        },
    )
    answer()
    w.message("bashExecution", [], command="ls -la", output=w.text(8), exitCode=0)
    zero = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
    w.message("assistant", [{"type": "text", "text": w.text(5)}], usage=zero, stopReason="stop", model="m")
    w.add("usage", usage=w.usage(context + 500))
    answer(usage=False)
    kept = ask("Keep this: " + w.text(8))
    answer()
    w.add("compaction", summary="## Goal\n" + w.text(20), firstKeptEntryId=kept, tokensBefore=context)
    w.add("custom_message", customType="note", content="a custom note " + w.text(6), display=True)
    w.add("branch_summary", fromId=first, summary="branch: " + w.text(10))
    ask("After: " + w.text(8))
    answer(model="claude-opus-4-1")
    w.add("compaction", summary="## Goal\n" + w.text(12), tokensBefore=0)
    w.add("message", message={"role": "user", "content": "string content " + w.text(4)})
    answer()
    own = w.add("compaction", summary="retain none", firstKeptEntryId="", tokensBefore=context)
    record = json.loads(w.lines[-1])
    record["firstKeptEntryId"] = own
    w.lines[-1] = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    w.add("compaction", summary="names nothing", firstKeptEntryId="0badc0de", tokensBefore=context)
    # the same id written again (pi lets the later record win): the first one's answer is left on a branch
    parent = w.last
    repeated = ask("asked twice " + w.text(4))
    answer()
    w.add("message", message={"role": "user", "content": [{"type": "text", "text": "again " + w.text(4)}]})
    record = json.loads(w.lines[-1])
    record["id"], record["parentId"] = repeated, parent
    w.lines[-1] = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    w.last = repeated
    answer(model="gpt-4o", usage=False)  # the last model named: its window is not the default one
    # pi context_edits: an omission, a replacement, one undone by a later replacement, one naming
    # no entry, one with a replacement pi cannot read; the repeated id omitted
    after = ask("edited later " + w.text(4))
    answer()
    w.add("context_edit", targetId=kept, replacement=None)
    w.add("context_edit", targetId=after, replacement={"content": "EDITED " + w.text(3)})
    w.add("context_edit", targetId=first, replacement=None)
    w.add("context_edit", targetId=first, replacement={"content": [{"type": "text", "text": "back"}]})
    w.add("context_edit", targetId="0badc0de", replacement=None)
    w.add("context_edit", targetId=after, replacement="not an object")
    w.add("context_edit", targetId=repeated, replacement=None)
    # the key spelled with an escape reads as isMeta all the same
    ask("escaped meta " + w.text(4))
    w.lines[-1] = w.lines[-1][:-1] + ',"\\u0069sMeta":true}'
    for _ in range(6):
        ask(w.text(6))
        answer(model=None)
    lines = [json.dumps(header, separators=(",", ":")), *w.lines]
    if spaced:
        lines = [json.dumps(json.loads(line), ensure_ascii=False) for line in lines]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
