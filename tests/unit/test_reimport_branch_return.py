"""A re-imported session whose new records continue a branch that was off the active path stores that branch on it.

Before: the re-import of a grown file set path_index only on the rows that had one, so
the old entries of a branch the user went back to (pi's /tree, then a new message; a
Claude Code rewind, then a return) kept none, and the stored path (what windowed plans,
tokens, the timeline and the desk read) lacked them: a hole in the middle of the path.
Checked against a fresh import of the same file, both re-import paths (streamed and whole).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from cutline.core.store import Store
from cutline.core.store.importer import Importer
from tests.support.grown_sessions import grow
from tests.support.paths import ROOT


def _path_indices(db: Path) -> dict[str, int | None]:
    conn = sqlite3.connect(db)
    try:
        return dict(conn.execute("SELECT id, path_index FROM entries"))
    finally:
        conn.close()


def _stored_after(steps: list[bytes], where: Path) -> dict[str, int | None]:
    where.mkdir()
    copy = where / "session.jsonl"
    with Store(where / "s.db") as store:
        for content in steps:
            copy.write_bytes(content)
            store.import_file(copy)
    return _path_indices(where / "s.db")


def _lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def _pi_steps() -> list[bytes]:
    """pi-branched, then a message continuing the last entry that is off its active path."""
    data = (ROOT / "sample_sessions" / "pi-branched.jsonl").read_bytes()
    records = _lines(data)
    by_id = {r["id"]: r for r in records if "id" in r}
    on_path: set[str] = set()
    at: str | None = records[-1]["id"]
    while at is not None:
        on_path.add(at)
        at = by_id[at].get("parentId")
    off = [r for r in records if r.get("type") == "message" and r["id"] not in on_path][-1]
    back = {
        "type": "message",
        "id": "b0b0b0b0",
        "parentId": off["id"],
        "timestamp": off["timestamp"],
        "message": {"role": "user", "content": [{"type": "text", "text": "Go on from here."}], "timestamp": 0},
    }
    return [data, data + json.dumps(back).encode() + b"\n"]


def _claude_code_steps(tmp_path: Path) -> list[bytes]:
    """200 records; then a rewind to record 120 (the records after it leave the path); then a return to the old tail."""
    whole = grow("claude-code", 400, tmp_path / "whole.jsonl").read_bytes().splitlines(keepends=True)
    head, tail = whole[:200], [json.loads(line) for line in whole[200:300]]
    messages = [json.loads(line) for line in head if json.loads(line).get("type") in ("user", "assistant")]
    rewind_to, old_tail = messages[len(messages) * 3 // 5], messages[-1]
    first = next(i for i, r in enumerate(tail) if r.get("type") in ("user", "assistant") and "uuid" in r)
    tail[first]["parentUuid"] = rewind_to["uuid"]
    rewound = b"".join(head) + b"".join(json.dumps(r).encode() + b"\n" for r in tail)
    back = dict(old_tail, uuid="b0b0b0b0-0000-4000-8000-000000000000", parentUuid=old_tail["uuid"])
    return [b"".join(head), rewound, rewound + json.dumps(back).encode() + b"\n"]


@pytest.mark.parametrize("streamed", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize("agent", ["pi", "claude-code"])
def test_a_branch_gone_back_to_is_on_the_stored_path_as_a_fresh_import_puts_it(
    agent: str, streamed: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = _pi_steps() if agent == "pi" else _claude_code_steps(tmp_path)
    if not streamed:
        monkeypatch.setattr(Importer, "_import_grown_streamed", lambda self, *args: None)
    re_imported = _stored_after(steps, tmp_path / "re")
    fresh = _stored_after(steps[-1:], tmp_path / "fresh")
    assert re_imported == fresh
    back = [entry_id for entry_id, index in fresh.items() if entry_id.startswith("b0b0b0b0")]
    assert back and fresh[back[0]] == max(i for i in fresh.values() if i is not None)  # the new leaf ends the path
