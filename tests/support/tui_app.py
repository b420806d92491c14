"""Helpers for the desk's tests: a small, fixed pi session written from plain data, and the app factory with test settings.

The session is written here rather than taken from sample_sessions so snapshots do
not change when the samples are regenerated; workflows that write back use a copy of
a real sample.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.app import App
from textual.pilot import Pilot
from textual.worker import WorkerCancelled, WorkerFailed

from cutline.app.config import TuiConfig
from cutline.app.tui import CutlineApp, create_app
from tests.support.paths import SAMPLES

FIXED_NOW = datetime(2026, 1, 6, 9, 30, tzinfo=UTC)
MARKUP_TEXT = "Please keep [bold]this[/bold] and [link=https://example.com]that[/link] \x1b[31mred\x1b[0m as is"


def fixed_clock() -> datetime:
    return FIXED_NOW


def test_app(
    store_path: Path | None = None,
    ref: str | None = None,
    keys: dict[str, str] | None = None,
    autosave_seconds: float = 3600.0,
) -> CutlineApp:
    """The app as tests use it: fixed clock, no cursor blink, no user config.

    Autosave waits an hour unless a test asks otherwise, so versions are made only
    where a test makes them (flush on quit, diff, accept) and snapshots stay stable.
    """
    return create_app(
        store_path,
        ref,
        clock=fixed_clock,
        cursor_blink=False,
        config=TuiConfig(keys=keys or {}, inbox_scan_seconds=0),  # the desk never scans the user's folders in tests
        autosave_seconds=autosave_seconds,
    )


test_app.__test__ = False  # a factory, not a test


def _usage(context: int) -> dict[str, int]:
    return {"input": 40, "output": 180, "cacheRead": context, "cacheWrite": 0, "totalTokens": context + 220}


def write_session(path: Path, *, turns: int = 8, body_lines: int = 90) -> Path:
    """A pi v3 coding session: requests, thinking, paired tool calls (one failing), an image, markup and ANSI in text."""
    records: list[dict[str, Any]] = [
        {
            "type": "session",
            "version": 3,
            "id": "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9",
            "timestamp": "2026-01-05T09:00:00.000Z",
            "cwd": "/home/dev/ledger",
        }
    ]
    parent: str | None = None
    count = 0
    context = 2000

    def add(message: dict[str, Any], minute: int) -> str:
        nonlocal parent, count
        count += 1
        entry_id = f"{0xA0000000 + count:08x}"
        stamp = f"2026-01-05T09:{minute:02d}:00.000Z"
        message.setdefault("timestamp", 1767603600000 + minute * 60000)
        records.append({"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp, "message": message})
        parent = entry_id
        return entry_id

    files = ["src/ledger/parse.py", "src/ledger/report.py", "tests/test_parse.py", "src/ledger/cli.py"]
    for turn in range(turns):
        minute = turn * 6
        target = files[turn % len(files)]
        request = (
            MARKUP_TEXT if turn == 1 else f"Step {turn + 1}: make {target} handle empty ledgers and keep the CSV order."
        )
        add({"role": "user", "content": [{"type": "text", "text": request}]}, minute)
        call = f"toolu_{turn:02d}read"
        add(
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": f"Read {target} first, then change the smallest thing."},
                    {"type": "text", "text": f"I'll read `{target}` first."},
                    {"type": "toolCall", "id": call, "name": "read", "arguments": {"path": target}},
                ],
                "model": "claude-sonnet-4-5",
                "provider": "anthropic",
                "usage": _usage(context),
                "stopReason": "toolUse",
            },
            minute + 1,
        )
        code = "\n".join(
            f"def rule_{i}(rows):\n    return [r for r in rows if r.amount != {i}]"
            for i in range(body_lines + turn * 10)
        )
        failing = turn == 3
        add(
            {
                "role": "toolResult",
                "toolCallId": call,
                "toolName": "read",
                "content": [{"type": "text", "text": "ENOENT: no such file" if failing else code}],
                "isError": failing,
            },
            minute + 1,
        )
        context += 1500 + turn * 400
        if turn == 2:
            add(
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Here is the screenshot of the broken report."},
                        {"type": "image", "data": "iVBORw0KGgo" * 40, "mimeType": "image/png"},
                    ],
                },
                minute + 2,
            )
        edit = f"toolu_{turn:02d}edit"
        add(
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "toolCall",
                        "id": edit,
                        "name": "edit",
                        "arguments": {"path": target, "oldText": "return rows", "newText": "return rows or []"},
                    }
                ],
                "model": "claude-sonnet-4-5",
                "provider": "anthropic",
                "usage": _usage(context),
                "stopReason": "toolUse",
            },
            minute + 3,
        )
        add(
            {
                "role": "toolResult",
                "toolCallId": edit,
                "toolName": "edit",
                "content": [{"type": "text", "text": f"Successfully replaced 1 block in {target}."}],
                "isError": False,
            },
            minute + 3,
        )
        add(
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": f"Done with step {turn + 1}: `{target}` now returns an empty list for an empty ledger.",
                    }
                ],
                "model": "claude-sonnet-4-5",
                "provider": "anthropic",
                "usage": _usage(context + 300),
                "stopReason": "stop",
            },
            minute + 4,
        )
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


SIZE = (150, 42)  # the terminal the pilot tests run in


async def settle(app: App[None], pilot: Pilot[None]) -> None:
    """Wait until no worker runs and every posted message is handled."""
    await settle_pilot(pilot)


async def settle_pilot(pilot: Pilot[None]) -> None:
    """Wait until no worker runs and every posted message is handled.

    A failed worker is the app's to show (its error modal); a cancelled one was
    superseded (a reload after an import cancels the listing that was running) and
    waiting for it raises: neither ends the wait.
    """
    for _ in range(3):
        with contextlib.suppress(WorkerFailed, WorkerCancelled):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def sample_copy(tmp_path: Path, name: str = "pi-coding-session.jsonl") -> Path:
    source = SAMPLES / name
    if not source.exists():
        pytest.fail(f"sample {name} is missing: run sample_sessions/generate.py")
    target = tmp_path / name
    shutil.copyfile(source, target)
    return target


def rendered_text(renderable: object, width: int = 100) -> str:
    """Plain text of a Rich renderable as a terminal would show it."""
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return console.export_text()
