"""A compaction found after the fact, opened for audit: what the agent summarized and what it kept.

pi's own rule (its prepareCompaction): a compaction summarizes from the previous compaction's
first kept entry (or the session's start) up to its own cut, and keeps from the cut on.
Checked on pi's sample session that already holds one compaction, with pi's second appended.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cutline.core.inbox.found_view import found_view
from cutline.core.inbox.scan import scan
from cutline.core.store import Store
from tests.support.paths import SAMPLES


def test_a_second_compaction_summarizes_from_the_first_ones_kept_part_to_its_cut(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = home / ".pi" / "agent" / "sessions" / "--work--"
    folder.mkdir(parents=True)
    session = folder / "2026-12-01_a.jsonl"
    shutil.copy(SAMPLES / "pi-one-compaction.jsonl", session)
    lines = [json.loads(line) for line in session.read_text().splitlines()]
    [first] = [v for v in lines if v.get("type") == "compaction"]
    at = lines.index(first)
    after = [v["id"] for v in lines[at + 1 :] if v.get("type") == "message"]
    cut = after[len(after) // 2]
    record = {"type": "compaction", "id": "5ec0d000", "parentId": lines[-1]["id"], "timestamp": "2026-12-01T10:00Z"}
    record |= {"summary": "pi's second summary", "firstKeptEntryId": cut, "tokensBefore": 777}
    with Store(tmp_path / "store.db") as store:
        scan(store, env={"HOME": str(home)})
        with session.open("a") as handle:
            handle.write(json.dumps(record) + "\n")
        [item] = scan(store, env={"HOME": str(home)}).items
        view = found_view(store, item.id)
    ids = [v["id"] for v in lines if v.get("type") == "message"]
    start, end = ids.index(first["firstKeptEntryId"]), ids.index(cut)
    assert view.first_kept_entry_id == cut and view.summary == view.agent_summary == "pi's second summary"
    assert [m.entry_id for m in view.messages if m.part == "summarized"] == ids[start:end]
    assert [m.entry_id for m in view.messages if m.part == "kept"] == ids[end:]
