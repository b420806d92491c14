"""Proof by the agent itself: opencode resumes from the compaction cutline wrote into its store, and undo gives the original.

The opencode corpus store before its compaction (tests/fixtures/corpus/opencode/main/before-compact.sqlite,
written by opencode 1.18.33) is placed where opencode keeps its store, compacted by cutline under
opencode's own rules with a small tail budget (a kept tail), and accepted with write-back, which
inserts the compaction's two messages and their parts; the real program
(tests/support/live_clients.py, offline in a network namespace, a config provider at the fake
server's Chat Completions) continues the session with `run --session <id>`. The request it sends
must equal `cutline context` of the written store and `cutline context --proposal` taken before
the write-back (the conformance normalizations take out its system prompt and the new prompt):
"What did we do so far?", cutline's summary, the kept tail. opencode wrote its turn after it, so
`cutline undo` needs the backup, which gives the store back as it was; a write-back undone at once
is taken back exactly, and opencode then resumes the original context. Under CI=true a missing
program fails the test instead of skipping it.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from cutline.core.agents.opencode.reader import COMPACTION_PROMPT
from cutline.core.agents.writeback import UndoNeedsChoice
from cutline.core.session_writes import undo
from cutline.core.store import Store
from tests.conformance.requests import CORPUS, from_openai_chat
from tests.support import live_clients
from tests.support.live_resume import assert_same, compact_and_accept, cutline_context, program_or_fail, resume

SOURCE = CORPUS / "opencode" / "main" / "before-compact.sqlite"
STAMP = "2026-12-02T04:30:00.000Z"
PROMPT = "Turn after cutline's compaction. MARK-WB-OPENCODE"


def _rows(db: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [*conn.execute("SELECT * FROM message ORDER BY id"), *conn.execute("SELECT * FROM part ORDER BY id")]
    finally:
        conn.close()


def _place(root: Path) -> tuple[Path, str]:
    """The corpus store where opencode keeps its own under the run's home; the id of its session."""
    db = live_clients.opencode_store(root / "home")
    db.parent.mkdir(parents=True, exist_ok=True)
    (root / "work").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SOURCE, db)
    # the session as if made in `work`: `opencode run` follows only the sessions of the folder it runs in
    work = root / "work"
    conn = sqlite3.connect(db)
    try:
        (sid,) = conn.execute("SELECT id FROM session").fetchone()
        conn.execute("UPDATE session SET directory = ?, path = ?", (str(work), str(work).lstrip("/")))
        conn.commit()
    finally:
        conn.close()
    return db, str(sid)


def test_live_opencode_resumes_from_cutline_compaction_and_undo(tmp_path: Path) -> None:
    program_or_fail("opencode", "opencode")
    root = tmp_path / "kept"
    db, sid = _place(root)
    original = _rows(db)
    ref = f"{db}#{sid}"
    proposal, predicted = compact_and_accept(ref, ["--keep-recent-tokens", "100"], STAMP)
    assert proposal.rules == "opencode-1.18" and proposal.firstKeptEntryId is not None
    written = cutline_context([ref])
    body = resume("opencode", root, sid, PROMPT, "kept")
    assert_same("opencode", body, written, "resumed vs cutline context of the written store")
    assert_same("opencode", body, predicted, "resumed vs cutline context --proposal")
    sent = from_openai_chat(body)
    assert [sent[1].text(), sent[2].text()] == [COMPACTION_PROMPT, proposal.summary]
    assert PROMPT in json.dumps(body["messages"][-1])
    # opencode wrote its turn after the compaction: only the backup gives the store back
    with Store() as store, pytest.raises(UndoNeedsChoice, match="backup"):
        undo(store, proposal.id)
    with Store() as store:
        undo(store, proposal.id, from_backup=True)
    assert _rows(db) == original

    # write back, undo at once: exactly the rows before; opencode then resumes the original context
    root = tmp_path / "at-once"
    db, sid = _place(root)
    original = _rows(db)
    ref = f"{db}#{sid}"
    before = cutline_context([ref])
    proposal, _ = compact_and_accept(ref, [], STAMP)
    assert _rows(db) != original
    with Store() as store:
        undo(store, proposal.id)
    assert _rows(db) == original
    body = resume("opencode", root, sid, PROMPT, "at-once")
    assert_same("opencode", body, before, "resumed after undo vs cutline context of the original")
