"""Writes the small pi v3 session the engine and write-back tests use (deterministic ids and timestamps)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z in ms


def _ts(n: int) -> str:
    return f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}.000Z"


def _usage(total: int) -> dict:
    return {
        "input": total - 50,
        "output": 50,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": total,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def session_lines() -> list[str]:
    """Header, then three turns: file reads and edits, a failing test run, and a last question."""
    messages = [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "Please fix the failing parser tests in src/parser.py. Keep the public API unchanged.",
                }
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "I will read the parser first."},
                {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "src/parser.py"}},
            ],
            "stopReason": "toolUse",
            "usage": _usage(1200),
        },
        {
            "role": "toolResult",
            "toolCallId": "call_1",
            "toolName": "read",
            "isError": False,
            "content": [{"type": "text", "text": "def parse(text):\n    return text.split(',')\n" * 40}],
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "toolCall",
                    "id": "call_2",
                    "name": "edit",
                    "arguments": {"path": "src/parser.py", "oldText": "split(',')", "newText": "split(';')"},
                }
            ],
            "stopReason": "toolUse",
            "usage": _usage(1900),
        },
        {
            "role": "toolResult",
            "toolCallId": "call_2",
            "toolName": "edit",
            "isError": False,
            "content": [{"type": "text", "text": "Edited src/parser.py"}],
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Edited the separator in src/parser.py."}],
            "stopReason": "stop",
            "usage": _usage(2000),
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "Now run the tests with pytest -q tests/test_parser.py and tell me what fails.",
                }
            ],
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "toolCall",
                    "id": "call_3",
                    "name": "bash",
                    "arguments": {"command": "pytest -q tests/test_parser.py"},
                }
            ],
            "stopReason": "toolUse",
            "usage": _usage(2100),
        },
        {
            "role": "toolResult",
            "toolCallId": "call_3",
            "toolName": "bash",
            "isError": True,
            "content": [
                {
                    "type": "text",
                    "text": "FAILED tests/test_parser.py::test_quotes - AssertionError: expected 3 fields\n" * 20,
                }
            ],
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "test_quotes fails: quoted fields are split. The port stays 8443."}],
            "stopReason": "stop",
            "usage": _usage(2600),
        },
        {"role": "user", "content": [{"type": "text", "text": "Which commit introduced the quoting bug?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me look at the history."},
                {"type": "toolCall", "id": "call_4", "name": "bash", "arguments": {"command": "git log --oneline -5"}},
            ],
            "stopReason": "toolUse",
            "usage": _usage(2700),
        },
        {
            "role": "toolResult",
            "toolCallId": "call_4",
            "toolName": "bash",
            "isError": False,
            "content": [{"type": "text", "text": "abc1234 change separator\ndef5678 add quoting\n" * 10}],
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Commit def5678 added quoting."}],
            "stopReason": "stop",
            "usage": _usage(2900),
        },
    ]
    lines = [
        json.dumps(
            {
                "type": "session",
                "version": 3,
                "id": "0b1e7c1e-5e55-4c0d-9a11-000000000001",
                "timestamp": _ts(0),
                "cwd": "/work/project",
            }
        )
    ]
    parent = None
    for n, message in enumerate(messages, start=1):
        message = dict(message)
        message["timestamp"] = T0 + n * 1000
        if message["role"] == "assistant":
            message.update({"api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5"})
        entry_id = f"e{n:07x}"
        lines.append(
            json.dumps({"type": "message", "id": entry_id, "parentId": parent, "timestamp": _ts(n), "message": message})
        )
        parent = entry_id
    return lines


def write_session(path: Path) -> Path:
    path.write_text("\n".join(session_lines()) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    write_session(Path(sys.argv[1]))
