"""Writes small pi session files (tests/golden/sessions/*.jsonl) that exercise the edges of pi's planning.

Deterministic: run it again and the files are byte-identical. Each session targets
edges the samples may not hit: split turns, branch_summary / custom_message cut
points, cuts moved back over settings entries, previous compactions (with and
without details, fromHook, a missing firstKeptEntryId), an already compacted
session, UTF-16 lengths of emoji and astral text, JavaScript number formatting in
tool arguments, images, a branched tree, aborted and error usage records, and a
walk that crosses after the last valid cut point.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parent / "sessions"
WORDS = [
    "cut",
    "line",
    "context",
    "window",
    "summary",
    "token",
    "budget",
    "session",
    "entry",
    "assistant",
    "tool",
    "result",
    "file",
    "parser",
    "reader",
    "writer",
    "compaction",
    "turn",
    "prefix",
    "kept",
    "verbatim",
    "estimate",
    "usage",
    "cache",
    "model",
]


class Builder:
    """Appends pi v3 records with stable ids and timestamps."""

    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self.rng = random.Random(seed)
        self.lines: list[dict] = [
            {
                "type": "session",
                "version": 3,
                "id": f"0000-{name}",
                "timestamp": "2026-01-01T00:00:00.000Z",
                "cwd": "/work/demo",
            }
        ]
        self.count = 0
        self.leaf: str | None = None
        self.calls = 0
        self.input = 3000

    def _id(self) -> str:
        self.count += 1
        return f"{self.count:08x}"

    def _ts(self) -> str:
        minutes, seconds = divmod(self.count * 7, 60)
        return f"2026-01-01T{minutes // 60:02d}:{minutes % 60:02d}:{seconds:02d}.000Z"

    def text(self, words: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(words))

    def add(self, record: dict, parent: str | None = "leaf") -> str:
        entry_id = self._id()
        parent_id = self.leaf if parent == "leaf" else parent
        self.lines.append(
            {"type": record.pop("type"), "id": entry_id, "parentId": parent_id, "timestamp": self._ts(), **record}
        )
        self.leaf = entry_id
        return entry_id

    def message(self, message: dict, parent: str | None = "leaf") -> str:
        message.setdefault("timestamp", 1767225600000 + self.count * 7000)
        return self.add({"type": "message", "message": message}, parent)

    def user(self, text: str | None = None, words: int = 40, as_string: bool = False, **kw) -> str:
        body = text if text is not None else self.text(words)
        content = body if as_string else [{"type": "text", "text": body}]
        return self.message({"role": "user", "content": content, **kw})

    def usage(self, output: int) -> dict:
        self.input += self.rng.randint(200, 2500)
        usage = {"input": 5, "output": output, "cacheRead": self.input, "cacheWrite": 300, "cost": {"total": 0.01}}
        usage["totalTokens"] = usage["input"] + usage["output"] + usage["cacheRead"] + usage["cacheWrite"]
        return usage

    def assistant(self, blocks: list[dict], stop: str = "stop", usage: bool = True, **kw) -> str:
        message = {
            "role": "assistant",
            "content": blocks,
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "stopReason": stop,
            **kw,
        }
        if usage:
            message["usage"] = self.usage(self.rng.randint(50, 800))
        return self.message(message)

    def call(self, name: str, arguments: dict) -> dict:
        self.calls += 1
        return {"type": "toolCall", "id": f"toolu_{self.calls:04d}", "name": name, "arguments": arguments}

    def result(
        self, call: dict, text: str | None = None, words: int = 200, error: bool = False, images: int = 0
    ) -> str:
        content = [{"type": "text", "text": text if text is not None else self.text(words)}]
        content += [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"} for _ in range(images)]
        return self.message(
            {
                "role": "toolResult",
                "toolCallId": call["id"],
                "toolName": call["name"],
                "content": content,
                "isError": error,
            }
        )

    def tool_turn(self, name: str, arguments: dict, words: int = 200, think: bool = True, error: bool = False) -> None:
        call = self.call(name, arguments)
        blocks = [{"type": "thinking", "thinking": self.text(30), "thinkingSignature": "sig"}] if think else []
        blocks += [{"type": "text", "text": self.text(15)}, call]
        self.assistant(blocks, stop="toolUse")
        self.result(call, words=words, error=error)

    def reply(self, words: int = 60) -> str:
        return self.assistant([{"type": "text", "text": self.text(words)}])

    def write(self) -> Path:
        OUT.mkdir(parents=True, exist_ok=True)
        path = OUT / f"{self.name}.jsonl"
        path.write_text("".join(_dump(line) + "\n" for line in self.lines), encoding="utf-8")
        return path


def _dump(record: dict) -> str:
    text = json.dumps(record, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: only escaped JSON can carry it
        text = json.dumps(record)
    return text


def split_turns() -> Builder:
    """Long agentic turns (many tool calls per user message) so cuts land mid-turn; file ops of every kind."""
    b = Builder("split-turns", 1)
    files = ["src/app.py", "src/store.py", "README.md", "docs/ünïcode.md", "tests/test_app.py"]
    for turn in range(6):
        b.user(words=60)
        for step in range(7):
            name = ("read", "edit", "write", "bash", "read", "grep", "edit")[step]
            if name in ("read", "edit", "write"):
                args = {"path": files[(turn + step) % len(files)]}
                if name == "edit":
                    args.update(oldText="a", newText="b")
                if name == "write":
                    args["content"] = b.text(40)
            else:
                args = {"command": f"pytest -k t{turn}{step}", "timeout": 30}
            b.tool_turn(name, args, words=150 + 60 * step, error=(turn == 2 and step == 3))
        b.reply()
    # an aborted and an error response at the end: their usage must be ignored by tokensBefore
    b.user(words=20)
    b.assistant([{"type": "text", "text": "partial"}], stop="aborted")
    b.assistant([], stop="error", errorMessage="prompt is too long: 210000 tokens > 200000 maximum")
    return b


def special_cut_points() -> Builder:
    """branch_summary, custom_message, bashExecution and custom-role entries, settings entries before cut points."""
    b = Builder("special-cut-points", 2)
    b.add({"type": "model_change", "provider": "anthropic", "modelId": "claude-sonnet-4-5"})
    b.add({"type": "thinking_level_change", "thinkingLevel": "high"})
    b.user(words=50, as_string=True)
    for i in range(14):
        if i % 4 == 1:
            b.add({"type": "branch_summary", "fromId": "00000002", "summary": b.text(120)})
        if i % 4 == 2:
            b.add({"type": "custom_message", "customType": "reminder", "content": b.text(90), "display": True})
            b.add(
                {
                    "type": "custom_message",
                    "customType": "blocks",
                    "display": False,
                    "content": [
                        {"type": "text", "text": b.text(40)},
                        {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                    ],
                }
            )
        if i % 4 == 3:
            b.message(
                {
                    "role": "bashExecution",
                    "command": f"ls -la dir{i}",
                    "output": b.text(150),
                    "exitCode": 0,
                    "cancelled": False,
                    "truncated": False,
                }
            )
            b.message({"role": "custom", "customType": "hook", "content": b.text(60), "display": True})
        b.add({"type": "label", "targetId": "00000003", "label": f"mark {i}"})
        b.add({"type": "model_change", "provider": "anthropic", "modelId": "claude-opus-4-1"})
        b.add({"type": "thinking_level_change", "thinkingLevel": "low"})
        b.user(words=70)
        b.tool_turn("read", {"path": f"lib/m{i}.py"}, words=180)
        b.add({"type": "session_info", "name": f"demo {i}"})
        b.add({"type": "custom", "customType": "state", "data": {"step": i}})
        b.reply(words=90)
    return b


def previous_compactions() -> Builder:
    """Two compactions: the first with details, the second fromHook; entries after the last one."""
    b = Builder("previous-compactions", 3)
    ids = []
    for i in range(8):
        ids.append(b.user(words=80))
        b.tool_turn("read", {"path": f"pkg/a{i}.ts"}, words=250)
        b.tool_turn("edit", {"path": f"pkg/b{i}.ts", "oldText": "x", "newText": "y"}, words=120)
        b.reply(words=70)
    b.add(
        {
            "type": "compaction",
            "summary": "## Goal\n" + b.text(200),
            "firstKeptEntryId": ids[5],
            "tokensBefore": 21000,
            "details": {"readFiles": ["pkg/old-read.ts", "pkg/a0.ts"], "modifiedFiles": ["pkg/old-mod.ts"]},
        }
    )
    for i in range(8, 14):
        b.user(words=80)
        b.tool_turn("write", {"path": f"pkg/w{i}.ts", "content": b.text(30)}, words=100)
        b.tool_turn("read", {"path": f"pkg/a{i}.ts"}, words=300)
        b.reply(words=70)
    return b


def hook_compaction() -> Builder:
    """The last compaction came from a hook: its details are not used for file lists."""
    b = Builder("hook-compaction", 4)
    ids = []
    for i in range(6):
        ids.append(b.user(words=60))
        b.tool_turn("read", {"path": f"h/r{i}.go"}, words=300)
        b.reply(words=50)
    b.add(
        {
            "type": "compaction",
            "summary": b.text(150),
            "firstKeptEntryId": ids[4],
            "tokensBefore": 9000,
            "details": {"readFiles": ["h/ignored.go"], "modifiedFiles": ["h/ignored2.go"]},
            "fromHook": True,
        }
    )
    for i in range(6, 12):
        b.user(words=60)
        b.tool_turn("edit", {"path": f"h/e{i}.go", "oldText": "1", "newText": "2"}, words=300)
        b.reply(words=50)
    return b


def missing_kept_entry() -> Builder:
    """A compaction whose firstKeptEntryId is on no path entry: the window starts right after it."""
    b = Builder("missing-kept-entry", 5)
    for i in range(5):
        b.user(words=60)
        b.tool_turn("read", {"path": f"m/{i}.rs"}, words=200)
        b.reply(words=40)
    b.add({"type": "compaction", "summary": b.text(100), "firstKeptEntryId": "deadbeef", "tokensBefore": 5000})
    b.add({"type": "model_change", "provider": "anthropic", "modelId": "claude-haiku-4-5"})
    for i in range(5, 12):
        b.user(words=60)
        b.tool_turn("write", {"path": f"m/{i}.rs", "content": "fn main() {}"}, words=220)
        b.reply(words=40)
    return b


def already_compacted() -> Builder:
    """The last entry is a compaction: pi prepares nothing."""
    b = Builder("already-compacted", 6)
    ids = []
    for i in range(6):
        ids.append(b.user(words=60))
        b.tool_turn("read", {"path": f"z/{i}.c"}, words=200)
        b.reply(words=40)
    b.add(
        {
            "type": "compaction",
            "summary": b.text(120),
            "firstKeptEntryId": ids[3],
            "tokensBefore": 7000,
            "details": {"readFiles": ["z/0.c"], "modifiedFiles": []},
        }
    )
    return b


def unicode_and_numbers() -> Builder:
    """Emoji, astral and combining text (UTF-16 lengths) and tool arguments JSON.stringify formats differently from Python.

    No lone surrogate inside tool arguments: JSON.stringify would escape it (6 units)
    but the reader replaces it with U+FFFD (a documented warning), so nobody can match pi there.
    """
    b = Builder("unicode-numbers", 7)
    emoji = '😀🎉👩‍💻🇫🇷 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𠜎𠜱 e\u0301 ü ß 中文 ﷺ\u2028\t"quoted" \\ back'
    numbers = {
        "float": 1.0,
        "half": 0.5,
        "big": 1e21,
        "small": 1e-7,
        "tiny": 5e-324,
        "neg": -0.0,
        "int": 12345678901234567890,
        "sci": 1.5e-10,
        "pi": 3.141592653589793,
        "list": [1.0, 2.50, 100.0, 1e16, 123e-20],
        "nested": {"ok": True, "none": None},
        "unicode_key_ключ": emoji,
        "ctrl": "\u0001\u001f\u007f",
    }
    for i in range(10):
        # a lone surrogate in text is one UTF-16 unit for pi; readers may replace it with U+FFFD (also one)
        b.user(text=(emoji + " ") * (5 + i) + "\ud83d lone " + b.text(40))
        call = b.call("edit", {"path": f"ü/{i}-😀.txt", "oldText": emoji, "newText": "x", **numbers})
        b.assistant(
            [{"type": "thinking", "thinking": emoji * 3}, {"type": "text", "text": emoji}, call], stop="toolUse"
        )
        b.result(call, text=(emoji * 20) + b.text(100))
        b.assistant([{"type": "text", "text": ("𝔘" * 50) + b.text(60)}])
    return b


def images() -> Builder:
    """Images: not counted in user messages, 4800 chars each in tool results and custom messages."""
    b = Builder("images", 8)
    for i in range(8):
        b.message(
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": b.text(30)},
                    {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                ],
            }
        )
        call = b.call("screenshot", {"display": i})
        b.assistant([{"type": "text", "text": b.text(20)}, call], stop="toolUse")
        b.result(call, words=30, images=1 + i % 3)
        b.add(
            {
                "type": "custom_message",
                "customType": "img",
                "display": True,
                "content": [
                    {"type": "text", "text": "see"},
                    {"type": "image", "data": "AAAA", "mimeType": "image/jpeg"},
                ],
            }
        )
        b.reply(words=40)
    return b


def branched() -> Builder:
    """A tree: the leaf (last line) sits on a branch that left the main line half way."""
    b = Builder("branched", 9)
    fork = None
    for i in range(10):
        b.user(words=70)
        b.tool_turn("read", {"path": f"t/{i}.py"}, words=220)
        last = b.reply(words=60)
        if i == 4:
            fork = last
    b.add({"type": "branch_summary", "fromId": b.leaf, "summary": b.text(150)}, parent=fork)
    for i in range(10, 16):
        b.user(words=70)
        b.tool_turn("write", {"path": f"t/{i}.py", "content": "pass"}, words=260)
        b.reply(words=60)
    return b


def crossing_after_last_cut() -> Builder:
    """The last message is a huge tool result: the walk crosses at it and no valid cut point follows, so pi falls back."""
    b = Builder("crossing-after-last-cut", 10)
    for i in range(4):
        b.user(words=50)
        b.tool_turn("read", {"path": f"q/{i}.md"}, words=100)
        b.reply(words=30)
    b.user(words=30)
    call = b.call("read", {"path": "q/huge.log"})
    b.assistant([{"type": "text", "text": "reading"}, call], stop="toolUse")
    b.result(call, words=12000)
    return b


def only_tool_results() -> Builder:
    """No valid cut point at all after a compaction: the cut stays at the window start."""
    b = Builder("no-cut-points", 11)
    b.user(words=40)
    call = b.call("read", {"path": "n/a.txt"})
    b.assistant([call], stop="toolUse")
    b.add({"type": "compaction", "summary": "earlier work", "firstKeptEntryId": None, "tokensBefore": 100})
    b.add({"type": "thinking_level_change", "thinkingLevel": "off"})
    b.result(call, words=400)
    b.result(call, words=300)
    return b


ALL = (
    split_turns,
    special_cut_points,
    previous_compactions,
    hook_compaction,
    missing_kept_entry,
    already_compacted,
    unicode_and_numbers,
    images,
    branched,
    crossing_after_last_cut,
    only_tool_results,
)


def main() -> None:
    for make in ALL:
        print(make().write())


if __name__ == "__main__":
    main()
