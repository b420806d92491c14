"""A streamed Claude Code import drops a block record's usage before writing its row, not in a second write at the end.

Why: Claude Code copies an API message's usage onto each of its block records, and the
reader keeps it on the message's last record only (`usage_once_per_call`). The streamed
import wrote every record's row as read, then, once the file was read, read back,
rebuilt, changed and wrote again each row whose usage was dropped: 3,529 of the 8,235
rows rewritten at 50,000 records, 2,941 of them for that alone. A record followed by a
record of the same message is now handed on without its usage. Counted here, at n and
4n records: the rows whose second write changed nothing but their usage (none), next
to the rows rewritten at all; the store must equal the whole-file import's (the
differential tests of the streamed import, `test_store_streamed`, hold that).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cutline.core.store import Store
from cutline.core.store.importer import Importer
from tests.support.grown_sessions import grow


def _without_usage(model: str) -> Any:
    value = json.loads(model)
    if isinstance(value.get("message"), dict):
        value["message"]["usage"] = None
    return value


def _second_writes(records: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """(rows written again at the end of a streamed import, of those the rows whose second write changed only the usage)."""
    path = grow("claude-code", records, tmp_path / f"session-{records}.jsonl")
    first: dict[int, str] = {}
    insert = Importer._insert_entry_rows

    def recording(self: Importer, conn: Any, batch: Any) -> None:
        for row in batch:
            model = row[10]  # model_json as first written (its str, or the UTF-8 bytes stored as that TEXT)
            first[row[2]] = model.decode() if isinstance(model, bytes) else model
        insert(self, conn, batch)

    monkeypatch.setattr(Importer, "_insert_entry_rows", recording)
    with Store(tmp_path / f"store-{records}.db") as store:
        report = store.import_file(path)
        final = dict(
            store.conn.execute("SELECT seq, model_json FROM entries WHERE session_id = ?", (report.session_id,))
        )
    assert len(first) == len(final) == records  # every row written as read (streamed)
    rewritten = [seq for seq, model in final.items() if model != first[seq]]
    usage_only = [seq for seq in rewritten if _without_usage(final[seq]) == _without_usage(first[seq])]
    return len(rewritten), len(usage_only)


def test_no_row_is_written_twice_only_to_drop_its_usage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rewritten_n, usage_only_n = _second_writes(500, tmp_path, monkeypatch)
    rewritten_4n, usage_only_4n = _second_writes(2000, tmp_path, monkeypatch)
    assert rewritten_n > 0 and rewritten_4n > rewritten_n  # continuation marks and the chain still rewrite rows
    assert (usage_only_n, usage_only_4n) == (0, 0)  # main: 30 / 118
