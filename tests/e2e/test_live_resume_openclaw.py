"""Proof by OpenClaw itself: it resumes from the compaction cutline inserted into its SQLite store, and undo gives the original.

The corpus store before OpenClaw's manual compaction (tests/fixtures/corpus/openclaw/main/
after-manual-compact.sqlite, written by OpenClaw 2026.9.6, without that compaction event and
its projection rows) is compacted with cutline, keeping the last turns verbatim: a user
message with an image, assistant tool calls and their results (one with an image); then
accepted with write-back. The real OpenClaw (tests/support/live_clients.py, offline in a
network namespace) runs one more turn in the session. The request it sends must carry
cutline's summary first, then exactly the kept messages the proposal showed, in order, then
the new prompt; and it must equal both `cutline context --proposal` taken before the
write-back (the prediction the desk's Context tab shows) and `cutline context --json` of the
written store (after the conformance normalizations). After `cutline undo` the session's
rows are exactly the original ones and the resume sends the original context. The requests,
the proposal and the written event are committed (tests/fixtures/writeback/openclaw/), so
the same comparisons run without node: the prediction is made again from a fresh copy of
the store, and the write-back replayed on another. Live tests skip where OpenClaw is
missing and fail saying why under CI=true. Regenerate the goldens with
`CUTLINE_UPDATE_GOLDENS=1 python -m pytest tests/e2e/test_live_resume_openclaw.py -k test_live_resume_after`.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cutline.app.cli import cli
from cutline.core import review
from cutline.core.agents.openclaw import writeback as openclaw_writeback
from cutline.core.agents.openclaw.replay_policy import last_model_snapshot, tool_id_policy
from cutline.core.agents.openclaw.sqlite_compat import ensure_octet_length
from cutline.core.agents.openclaw.store import read_store, session_ref
from cutline.core.agents.openclaw.tool_call_ids import rewrite_tool_call_ids
from cutline.core.agents.wire import WireMessage, WireText, wire_messages
from cutline.core.agents.writeback import UndoNeedsChoice
from cutline.core.engine.proposal import Proposal
from cutline.core.session_writes import undo
from cutline.core.store import Store
from tests.conformance.normalizations import NORMALIZATIONS
from tests.conformance.requests import CORPUS, from_anthropic_messages
from tests.support import live_clients
from tests.support.openclaw_store import copy_store, session_rows, without_last_event
from tests.support.writeback import propose

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "writeback" / "openclaw"
# the store as OpenClaw left it after its manual compaction; the compaction is taken out (`_source`)
COMPACTED = CORPUS / "openclaw" / "main" / "after-manual-compact.sqlite"
SESSION_ID = "cde7b62f-b5d2-453a-a896-24ee78fd4b51"
ROOT_MARK = "/CUTLINE-LIVE-ROOT"
STAMP = "2026-11-25T09:00:00.000Z"
ENTRY_ID = "0c1a0015"
# keeps the events from seq 10 on (cuts fall there from 13,500 to 18,750): 9 messages, 2 tool calls, 2 images
KEEP_RECENT_TOKENS = 16000
PROMPT = "Turn after cutline's compaction. MARK-WB-OPENCLAW"


def _source(folder: Path) -> Path:
    """The corpus session before OpenClaw's manual compaction: the corpus store without that event and its rows."""
    return without_last_event(COMPACTED, folder / "source.sqlite", SESSION_ID)


def _propose(store_file: Path) -> tuple[Proposal, list[WireMessage]]:
    """A deterministic proposal (fixed summary and entry id) stored in cutline's store, and `cutline context --proposal`.

    The second is the prediction: what OpenClaw will send once the proposal is written back.
    """
    with Store() as store:
        proposal = propose(
            store,
            Path(session_ref(store_file, SESSION_ID)),
            keep_recent_tokens=KEEP_RECENT_TOKENS,
            rules="openclaw-2026.9",
        )
        with store.transaction() as conn:
            proposal.entryId = ENTRY_ID
            conn.execute(
                "UPDATE proposals SET proposal_json = ? WHERE id = ?", (proposal.model_dump_json(), proposal.id)
            )
    return proposal, _cutline_context(["--proposal", proposal.id])


def _accept(proposal: Proposal) -> None:
    with Store() as store:
        review.accept(store, proposal.id, write_back=True, timestamp=STAMP)


def _undo(proposal_id: str, *, from_backup: bool = False) -> str:
    with Store() as store:
        return undo(store, proposal_id, from_backup=from_backup).message


def _cutline_context(args: list[str]) -> list[WireMessage]:
    result = CliRunner().invoke(cli, ["context", "--json", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return [WireMessage.model_validate(m) for m in json.loads(result.output)["messages"]]


def _normalized(body: dict[str, Any], context: list[WireMessage]) -> tuple[list[WireMessage], list[WireMessage]]:
    request = from_anthropic_messages(body)
    for normalize in NORMALIZATIONS["openclaw"].values():
        request, context = normalize(request, context)
    return request, context


def _assert_same(request: list[WireMessage], context: list[WireMessage], what: str) -> None:
    for i in range(max(len(request), len(context))):
        sent = request[i] if i < len(request) else None
        mine = context[i] if i < len(context) else None
        assert mine == sent, f"{what}: message {i} differs\n  request: {sent}\n  cutline: {mine}"


def _signature(messages: list[WireMessage]) -> list[tuple[str, str]]:
    """What a person checks in a preview: texts, images, thinking, tool calls and results by id."""
    out: list[tuple[str, str]] = []
    for message in messages:
        if message.role == "system":
            continue
        for block in message.content:
            if isinstance(block, WireText):
                out.append(("text", block.text.strip()))
            elif block.type == "image":
                out.append(("image", block.data[:64]))
            elif block.type == "thinking":
                out.append(("thinking", block.thinking))
            elif block.type == "tool_call":
                out.append(("call", block.id))
            elif block.type == "tool_result":
                out.append(("result", block.tool_call_id))
    return out


def _as_sent(store_file: Path, messages: list[WireMessage]) -> list[WireMessage]:
    """Messages with tool call ids as OpenClaw sends them for the model of the session's last run."""
    snapshot = last_model_snapshot(read_store(session_ref(store_file, SESSION_ID)).active_path())
    assert snapshot is not None, "OpenClaw records the model of each run"
    return rewrite_tool_call_ids(messages, tool_id_policy(*snapshot))


def check_resumed(body: dict[str, Any], written: Path, proposal: Proposal, predicted: list[WireMessage]) -> None:
    """The request after the write-back: what `cutline context --proposal` predicted, and what `cutline context` reads.

    That is cutline's summary, the kept messages as the preview showed them, the new prompt.
    """
    request, context = _normalized(body, _cutline_context([session_ref(written, SESSION_ID)]))
    _assert_same(request, context, "OpenClaw resumed from cutline's compaction vs cutline context")
    request, prediction = _normalized(body, predicted)
    _assert_same(request, prediction, "OpenClaw resumed from cutline's compaction vs cutline context --proposal")
    assert request[0].role == "user" and proposal.summary in request[0].text(), "cutline's summary comes first"
    kept_request = [m for m in request[1:] if m.role != "system"]
    kept_preview = _as_sent(written, wire_messages(proposal.context[1:]))
    assert _signature(kept_request) == _signature(kept_preview), "exactly the kept messages of the preview, in order"
    last = from_anthropic_messages(body)
    users = [i for i, m in enumerate(last) if m.role == "user" and PROMPT in m.text()]
    assert users and users[-1] >= len(last) - 2, "then the new prompt"


def check_original(body: dict[str, Any], original: Path) -> None:
    """The request after undo: the original session's context."""
    request, context = _normalized(body, _cutline_context([session_ref(original, SESSION_ID)]))
    _assert_same(request, context, "OpenClaw resumed after undo vs cutline context of the original")


# ---------------------------------------------------------------------------
# goldens: the same comparison without node
# ---------------------------------------------------------------------------


def _replayed(tmp_path: Path, proposal: Proposal) -> Path:
    """The corpus store with the golden proposal written back again (the same event, the same rows)."""
    written = copy_store(_source(tmp_path), tmp_path / "written.sqlite")
    ref = session_ref(written, SESSION_ID)
    session = read_store(ref)
    openclaw_writeback.write_back(
        Path(ref),
        session,
        proposal.compaction_record(proposal.summary),
        backup_dir=tmp_path / "backups",
        entry_id=proposal.entryId,
        timestamp=STAMP,
    )
    return written


def test_golden_requests_match_cutline_context(tmp_path: Path) -> None:
    assert (GOLDEN / "request.json").is_file(), f"no goldens in {GOLDEN}: run this module with OpenClaw installed"
    proposal = Proposal.model_validate_json((GOLDEN / "proposal.json").read_text(encoding="utf-8"))
    written = _replayed(tmp_path, proposal)
    event = session_rows(written, SESSION_ID)["events"][-1]
    assert event == json.loads((GOLDEN / "event.json").read_text(encoding="utf-8")), "cutline writes the same event"
    fresh, predicted = _propose(copy_store(_source(tmp_path), tmp_path / "fresh" / "agent.sqlite"))
    assert fresh.context == proposal.context, "cutline proposes what it proposed in the live run"
    check_resumed(json.loads((GOLDEN / "request.json").read_text(encoding="utf-8")), written, proposal, predicted)
    original = _source(tmp_path / "original")
    check_original(json.loads((GOLDEN / "undo-request.json").read_text(encoding="utf-8")), original)


# ---------------------------------------------------------------------------
# live
# ---------------------------------------------------------------------------


def _program_or_skip() -> None:
    why = live_clients.missing("openclaw")
    if why is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"the live OpenClaw test cannot run in CI: {why}")
    pytest.skip(why)


def _place(source: Path, root: Path) -> Path:
    """The store where OpenClaw looks for it under `root/home`."""
    (root / "work").mkdir(parents=True, exist_ok=True)
    return copy_store(source, live_clients.openclaw_store(root / "home"))


def _resume(root: Path, logdir: Path) -> dict[str, Any]:
    run = live_clients.LiveRun("openclaw", root / "home", root / "work", SESSION_ID, PROMPT, logdir)
    return live_clients.resume(run, timeout=300)


def test_live_resume_after_write_back_and_undo(tmp_path: Path) -> None:
    _program_or_skip()
    root = tmp_path / "live"
    source = _source(tmp_path)
    original_rows = session_rows(source, SESSION_ID)

    # write back, resume: OpenClaw continues from cutline's summary, as `cutline context --proposal` predicted
    store_a = _place(source, root / "a")
    proposal, predicted = _propose(store_a)
    _accept(proposal)
    written = copy_store(store_a, root / "written.sqlite")
    body = _resume(root / "a", root / "a-requests")
    check_resumed(body, written, proposal, predicted)

    # OpenClaw wrote after the compaction: undo says so and offers the backup, which gives the original back
    with pytest.raises(UndoNeedsChoice, match="backup"):
        _undo(proposal.id)
    _undo(proposal.id, from_backup=True)
    assert session_rows(store_a, SESSION_ID) == original_rows

    # write back, undo at once: exactly the original rows, and the resume sends the original context
    store_b = _place(source, root / "b")
    proposal_b, _ = _propose(store_b)
    _accept(proposal_b)
    assert session_rows(store_b, SESSION_ID) != original_rows
    _undo(proposal_b.id)
    assert session_rows(store_b, SESSION_ID) == original_rows
    body_b = _resume(root / "b", root / "b-requests")
    check_original(body_b, copy_store(source, root / "original.sqlite"))

    if os.environ.get("CUTLINE_UPDATE_GOLDENS") == "1":
        GOLDEN.mkdir(parents=True, exist_ok=True)
        event = session_rows(written, SESSION_ID)["events"][-1]
        (GOLDEN / "event.json").write_text(json.dumps(event, indent=1, ensure_ascii=False), encoding="utf-8")
        (GOLDEN / "proposal.json").write_text(proposal.model_dump_json(indent=1), encoding="utf-8")
        for name, request, where in (("request.json", body, root / "a"), ("undo-request.json", body_b, root / "b")):
            text = json.dumps(request, indent=1, ensure_ascii=False).replace(str(where), ROOT_MARK)
            (GOLDEN / name).write_text(text, encoding="utf-8")


def test_integrity_of_a_written_store(tmp_path: Path) -> None:
    """A write-back leaves OpenClaw's store passing SQLite's integrity and foreign-key checks (no node needed)."""
    proposal = Proposal.model_validate_json((GOLDEN / "proposal.json").read_text(encoding="utf-8"))
    written = _replayed(tmp_path, proposal)
    conn = sqlite3.connect(written)
    ensure_octet_length(conn)  # integrity_check evaluates the CHECKs, which call it
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        conn.close()
