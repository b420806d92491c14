"""Writes the hand-made sessions that exercise current pi's and OpenClaw 2026.9's new planner rules.

tests/golden/sessions-rules/*.jsonl: system prompts with sections and tools, context
edits (replace, omit, two on one target), usage entries, usage before and after an
edit, a recovery-omission tail, retain-none compactions carrying a system message,
reset entries with paired tool results, CJK and astral text, images, excluded
messages, senders, provider context usage and apply_patch results. Deterministic: run
it, then tests/golden/make_goldens_rules.sh (needs node) for the goldens.

    python tests/golden/handmade_rules.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "sessions-rules"
WORDS = [
    "parser",
    "writer",
    "budget",
    "window",
    "token",
    "cache",
    "summary",
    "session",
    "reader",
    "estimate",
    "kept",
    "prefix",
    "turn",
]


def words(n: int, seed: int) -> str:
    return " ".join(WORDS[(seed * 7 + i * 3) % len(WORDS)] for i in range(n))


class Writer:
    """Appends pi-style entries with sequential ids, each the child of the previous one unless told."""

    def __init__(self, version: int = 3) -> None:
        self.lines: list[dict[str, Any]] = [
            {
                "type": "session",
                "version": version,
                "id": "rules-session",
                "timestamp": "2026-05-01T10:00:00.000Z",
                "cwd": "/w",
            }
        ]
        self.count = 0
        self.leaf: str | None = None

    def add(self, record: dict[str, Any], parent: str | None = "leaf") -> str:
        self.count += 1
        eid = f"r{self.count:07x}"
        minute = self.count
        entry = {
            "type": record.pop("type"),
            "id": eid,
            "parentId": self.leaf if parent == "leaf" else parent,
            "timestamp": f"2026-05-01T{10 + minute // 60:02d}:{minute % 60:02d}:00.000Z",
            **record,
        }
        self.lines.append(entry)
        self.leaf = eid
        return eid

    def user(self, text: Any, **extra: Any) -> str:
        return self.add({"type": "message", "message": {"role": "user", "content": text, "timestamp": 1, **extra}})

    def assistant(
        self, text: str, calls: list[tuple[str, str, dict[str, Any]]] = (), usage: int | None = None, **extra: Any
    ) -> str:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        content += [{"type": "toolCall", "id": cid, "name": name, "arguments": args} for cid, name, args in calls]
        message: dict[str, Any] = {
            "role": "assistant",
            "content": content,
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "stopReason": "toolUse" if calls else "stop",
            "timestamp": 1,
            **extra,
        }
        if usage is not None:
            message["usage"] = {
                "input": usage,
                "output": 100,
                "cacheRead": 0,
                "cacheWrite": 0,
                "totalTokens": usage + 100,
            }
        return self.add({"type": "message", "message": message})

    def result(self, cid: str, name: str, text: str, **extra: Any) -> str:
        message = {
            "role": "toolResult",
            "toolCallId": cid,
            "toolName": name,
            "content": [{"type": "text", "text": text}],
            "isError": False,
            "timestamp": 1,
            **extra,
        }
        return self.add({"type": "message", "message": message})

    def write(self, name: str) -> None:
        OUT.mkdir(parents=True, exist_ok=True)
        with open(OUT / name, "w", encoding="utf-8") as f:
            for line in self.lines:
                f.write(json.dumps(line, ensure_ascii=False) + "\n")


IMAGE = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
TOOLS = [
    {
        "name": "read",
        "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
    {"name": "edit", "description": "Edit a file", "parameters": {"type": "object"}},
]


def pi_current_features() -> Writer:
    """Current pi's new entries, before any compaction."""
    w = Writer()
    w.add(
        {
            "type": "message",
            "message": {
                "role": "system",
                "content": "You are a careful coding agent. " + words(60, 1),
                "sections": {"rules": words(40, 2), "env": "cwd=/w"},
                "toolsAdded": TOOLS,
                "timestamp": 1,
            },
        }
    )
    w.add({"type": "model_change", "provider": "anthropic", "modelId": "claude-sonnet-4-5"})
    w.user([{"type": "text", "text": "Look at this screenshot and fix the parser. " + words(30, 3)}, IMAGE])
    a1 = w.assistant(
        words(40, 4),
        [("c1", "read", {"path": "src/parser.py"}), ("c2", "edit", {"path": "src/parser.py", "old": "a", "new": "b"})],
        usage=9000,
    )
    w.result("c1", "read", words(300, 5))
    w.result("c2", "edit", "ok")
    w.add(
        {
            "type": "usage",
            "kind": "turn",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": {"input": 9100, "output": 50, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 9150},
        }
    )
    w.add(
        {
            "type": "context_edit",
            "targetId": a1,
            "replacement": {"content": "I read and edited src/parser.py (tool calls elided)."},
        }
    )
    w.add(
        {
            "type": "message",
            "message": {
                "role": "system",
                "content": "",
                "sections": {"env": None, "notes": words(20, 6)},
                "toolsRemoved": [{"name": "edit"}],
                "toolsAdded": [{"name": "write", "description": "Write a file", "parameters": {}}],
                "timestamp": 2,
            },
        }
    )
    w.user("Now the writer. " + words(50, 7))
    a2 = w.assistant(words(80, 8), [("c3", "write", {"path": "src/writer.py", "content": words(100, 9)})], usage=12000)
    r3 = w.result("c3", "write", words(200, 10))
    w.add({"type": "custom_message", "customType": "note", "content": words(120, 11), "display": True})
    w.add({"type": "branch_summary", "fromId": "elsewhere", "summary": words(90, 12)})
    w.add({"type": "context_edit", "targetId": r3, "replacement": {"content": "write ok (trimmed)"}})
    w.add({"type": "context_edit", "targetId": r3, "replacement": None})
    w.add({"type": "label", "targetId": a2, "label": "writer"})
    w.user([{"type": "text", "text": "Explain the budget. " + words(40, 13)}])
    w.assistant(words(150, 14), usage=15000)
    w.user("And one more thing: " + words(60, 15))
    w.assistant("", stopReason="length")
    return w


def pi_recovery_tail() -> Writer:
    """A last user input followed by a failed assistant attempt that an edit omits (pi's recovery rule)."""
    w = pi_current_features()
    failed = w.leaf
    w.add({"type": "context_edit", "targetId": failed, "replacement": None})
    w.add(
        {
            "type": "usage",
            "kind": "retry",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2},
        }
    )
    return w


def pi_retain_none() -> Writer:
    """A compaction that keeps nothing (firstKeptEntryId is its own id) with the replayed system message, then more work."""
    w = pi_current_features()
    w.count += 1
    own = f"r{w.count:07x}"
    w.count -= 1
    system = {
        "role": "system",
        "content": "You are a careful coding agent. " + words(60, 1),
        "sections": {"rules": words(40, 2), "notes": words(20, 6)},
        "toolsAdded": [TOOLS[0], {"name": "write", "description": "Write a file", "parameters": {}}],
        "timestamp": 3,
    }
    cid = w.add(
        {
            "type": "compaction",
            "summary": "## Goal\n" + words(120, 16),
            "firstKeptEntryId": own,
            "tokensBefore": 15000,
            "details": {"readFiles": ["src/parser.py"], "modifiedFiles": ["src/writer.py"]},
            "systemMessage": system,
        }
    )
    assert cid == own
    w.user("After the compaction: " + words(70, 17))
    w.assistant(words(90, 18), [("c9", "read", {"path": "src/budget.py"})], usage=4000)
    w.result("c9", "read", words(400, 19))
    w.add(
        {
            "type": "context_edit",
            "targetId": w.leaf,
            "replacement": {"content": [{"type": "text", "text": "budget.py: 40 lines"}]},
        }
    )
    w.user("Summarize what changed. " + words(30, 20))
    w.assistant(words(200, 21), usage=6000)
    w.user("Thanks " + words(10, 22))
    return w


def pi_kept_compaction() -> Writer:
    """A compaction keeping entries that include a system prompt (dropped from the projection) and an older edit."""
    w = pi_current_features()
    kept = w.lines[9]["id"]  # the second system prompt: kept from there, itself left out of the projection
    w.add(
        {
            "type": "compaction",
            "summary": words(150, 23),
            "firstKeptEntryId": kept,
            "tokensBefore": 16000,
            "details": {"readFiles": ["a.py"], "modifiedFiles": []},
            "systemMessage": {"role": "system", "content": "compacted prompt " + words(20, 24), "timestamp": 4},
        }
    )
    w.user("Continue. " + words(80, 25))
    w.assistant(words(60, 26), [("d1", "edit", {"path": "src/kept.py"})], usage=3000)
    w.result("d1", "edit", words(50, 27))
    w.user("Done? " + words(20, 28))
    return w


def openclaw_features() -> Writer:
    """OpenClaw 2026.9's own matter: CJK, images, senders, excluded messages, context usage, apply_patch, carriers."""
    w = Writer(version=4)
    w.user(
        "你好，请帮我修复解析器。" + "中文字符" * 40 + " " + words(20, 30),
        __openclaw={"senderId": "u-42", "senderName": " Mei ", "senderUsername": "mei"},
    )
    w.assistant(
        "好的。" + words(30, 31),
        [("e1", "mcp__fs__read", {"file_path": "src/解析.py"}), ("e2", "Edit", {"filePath": "src/b.py"})],
        usage=30000,
    )
    w.result("e1", "mcp__fs__read", "한국어 텍스트 " * 50 + "𠜎𠜱 " * 20)
    w.result("e2", "Edit", "ok")
    w.user(
        [{"type": "text", "text": "See the picture. " + words(20, 32)}, IMAGE, {"type": "thinking", "thinking": "x"}]
    )
    w.assistant(words(50, 33), [("e3", "apply_patch", {"patch": "*** Begin Patch"})], usage=42000)
    w.result("e3", "apply_patch", "patched", details={"summary": {"added": ["new.py"], "modified": ["src/parser.py"]}})
    w.add(
        {
            "type": "custom_message",
            "customType": "runtime",
            "content": words(80, 34),
            "display": False,
            "details": {"runtimeContextCarrier": True},
        }
    )
    w.user("Internal note " + words(40, 35), excludeFromContext=True)
    w.assistant(words(70, 36), usage=45000)
    w.user("Fullwidth ＡＢＣ and ｶﾀｶﾅ and ˇˉ " + words(60, 37))
    w.add(
        {
            "type": "message",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": words(120, 38)}],
                "provider": "openai",
                "model": "gpt-5",
                "stopReason": "stop",
                "timestamp": 1,
                "usage": {
                    "input": 1000,
                    "output": 10,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "totalTokens": 0,
                    "contextUsage": {"state": "available", "totalTokens": 52000},
                },
            },
        }
    )
    w.user("   \n  ")
    w.user("The latest ask: make the writer stream. " + words(300, 39))
    w.assistant(words(40, 40))
    return w


def openclaw_reset() -> Writer:
    """A reset that keeps a tail (paired and orphan tool results), then new work."""
    w = openclaw_features()
    keep_from = w.lines[3]["id"]  # the first tool result: an orphan at the start of the kept range
    w.assistant(words(20, 41), [("f1", "read", {"path": "x.py"}), ("f2", "read", {"path": "y.py"})])
    w.result("f1", "read", words(60, 42))
    w.result("zz", "read", words(30, 43))  # answers no call
    w.add({"type": "reset", "reason": "new-task", "firstKeptEntryId": keep_from})
    w.user("New task after the reset. " + words(90, 44))
    w.assistant(words(100, 45), [("g1", "write", {"path": "out.py"})], usage=8000)
    w.result("g1", "write", words(40, 46))
    w.user("Check it. " + words(30, 47))
    return w


def openclaw_usage_unavailable() -> Writer:
    """Recorded usage hidden behind an unavailable-context barrier, and a compaction keeping nothing."""
    w = openclaw_features()
    w.add(
        {
            "type": "message",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "cli turn"}],
                "api": "cli",
                "provider": "x",
                "model": "y",
                "stopReason": "stop",
                "timestamp": 1,
                "usage": {"input": 5, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 10},
            },
        }
    )
    w.count += 1
    own = f"r{w.count:07x}"
    w.count -= 1
    w.add(
        {
            "type": "compaction",
            "summary": words(80, 48),
            "firstKeptEntryId": own,
            "tokensBefore": 50000,
            "details": {
                "readFiles": ["r.py"],
                "modifiedFiles": ["m.py"],
                "latestUnresolvedUserRequest": "make the writer stream",
            },
        }
    )
    w.add({"type": "model_change", "provider": "x", "modelId": "y"})
    w.assistant(words(30, 49), usage=70000)
    w.user("   ")
    return w


def openclaw_compaction_last() -> Writer:
    """A session ending with a compaction whose kept entry is gone: no entry is left to keep (OpenClaw refuses)."""
    w = openclaw_features()
    w.add({"type": "compaction", "summary": words(50, 50), "firstKeptEntryId": "gone", "tokensBefore": 40000})
    return w


SESSIONS = {
    "pi-current-features.jsonl": pi_current_features,
    "pi-recovery-tail.jsonl": pi_recovery_tail,
    "pi-retain-none.jsonl": pi_retain_none,
    "pi-kept-compaction.jsonl": pi_kept_compaction,
    "openclaw-features.jsonl": openclaw_features,
    "openclaw-reset.jsonl": openclaw_reset,
    "openclaw-usage-unavailable.jsonl": openclaw_usage_unavailable,
    "openclaw-compaction-last.jsonl": openclaw_compaction_last,
}

if __name__ == "__main__":
    for name, make in SESSIONS.items():
        make().write(name)
        print(OUT / name)
