"""Write-back checked against pi: the golden is pi's own reading (the oracle, run by hand) of the file cutline wrote.

tests/golden_writeback/oracle.json came from `python -m tests.golden_writeback.writeback DIR` followed by
`pi-oracle/run DIR/session.jsonl 300`; these tests redo the write-back without node and compare.
"""

from __future__ import annotations

import json

from cutline.core.agents import read_session
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.context import build_context
from cutline.core.engine.plan import plan
from cutline.core.paths import backups_dir
from tests.golden_writeback.writeback import ENTRY_ID, append_later_message, write_back
from tests.support.paths import TESTS

GOLDEN = TESTS / "golden_writeback"
ORACLE = json.loads((GOLDEN / "oracle.json").read_text())


def test_appended_line_is_the_golden_line(tmp_path):
    path, decision, store = write_back(tmp_path)
    store.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 16  # header + 14 messages + the compaction
    assert lines[-1] == (GOLDEN / "compaction_line.jsonl").read_text(encoding="utf-8").rstrip("\n")
    assert decision.entry_id == ENTRY_ID and decision.written_to == str(path)
    assert any(backups_dir().iterdir())


def test_our_reader_sees_what_pi_sees_after_write_back(tmp_path):
    path, _, store = write_back(tmp_path)
    store.close()
    append_later_message(path)
    session = read_session(path)
    active = session.active_path()
    assert len(active) == ORACLE["pathLength"] == 16
    context = build_context(active)
    # pi: the summary, the five kept messages from e000000a, and the message written after the compaction
    assert len(context) == ORACLE["contextMessages"] == 7
    assert context[0].role == "compactionSummary"
    assert context[0].summary == ORACLE["plans"]["300"]["previousSummary"]
    assert [e["id"] for e in ORACLE["perEntry"]] == [e.id for e in active]
    again = plan(active, CompactionSettings(keepRecentTokens=300, rules="pi-0.73"))
    assert again.tokensBefore == ORACLE["plans"]["300"]["tokensBefore"]
    assert again.firstKeptEntryId == ORACLE["plans"]["300"]["firstKeptEntryId"]
    assert again.previousSummary == ORACLE["plans"]["300"]["previousSummary"]


def test_store_is_reimported_after_write_back(tmp_path):
    path, decision, store = write_back(tmp_path)
    try:
        session = store.load_session(decision.session_id)
        assert session.active_path()[-1].id == ENTRY_ID
        assert session.active_path()[-1].type == "compaction"
        assert session.source_size == path.stat().st_size
    finally:
        store.close()
