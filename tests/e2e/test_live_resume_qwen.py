"""Proof by the agent itself: Qwen Code resumes from the compression cutline wrote back, and undo gives the original.

A Qwen Code corpus chat (before its compression: the third-party file without the record its
writer appended) is compacted by cutline — under Qwen Code's own rule (everything summarized), and
under current pi's cut (a kept tail) — and accepted with write-back, which appends a
`chat_compression` record; the real program (tests/support/live_clients.py, offline in a
network namespace, `--auth-type openai` against the fake server's Chat Completions) resumes
it with `--resume <session> -p`. The request it sends must equal `cutline context` of the
written file and `cutline context --proposal` taken before the write-back (the conformance
normalizations take out what the program adds to every request): cutline's summary in Qwen
Code's framing, the acknowledgement, the kept messages, the new prompt. After `cutline undo`
the file is byte-identical and the resume sends the original context. Under CI=true a
missing program fails the test instead of skipping it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cutline.core import review
from cutline.core.agents.qwen_code.writeback import ACKNOWLEDGEMENT, RESUME_LINE, snapshot_and_notes
from cutline.core.agents.wire import WireMessage, WireText
from cutline.core.agents.writeback import UndoNeedsChoice
from cutline.core.session_writes import undo
from cutline.core.store import Store
from tests.conformance.requests import CORPUS, from_openai_chat
from tests.support.live_resume import assert_same, compact_and_accept, cutline_context, program_or_fail, resume

SOURCE = "qwen-code/thirdparty/session.jsonl"  # its last line is the third-party compression
STAMP = "2026-12-02T02:00:00.000Z"
PROMPT = "Turn after cutline's compaction. MARK-WB-QWEN"


def _original() -> bytes:
    lines = (CORPUS / SOURCE).read_bytes().splitlines(keepends=True)
    return b"".join(lines[:-1])


def _moved(data: bytes, work: Path) -> bytes:
    """The chat as if made in `work`: Qwen Code resumes only a session whose records' `cwd` is the current project."""
    cwd = str(json.loads(data.splitlines()[0])["cwd"])
    return data.replace(cwd.encode(), str(work).encode())


def _place(root: Path, data: bytes) -> tuple[Path, str]:
    """The chat file where Qwen Code looks for it: `~/.qwen/projects/<cwd, non-alphanumerics as "-">/chats/<id>.jsonl`."""
    work = root / "work"
    work.mkdir(parents=True, exist_ok=True)
    data = _moved(data, work)
    sid = str(json.loads(data.splitlines()[0])["sessionId"])
    folder = root / "home" / ".qwen" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(work)) / "chats"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{sid}.jsonl").write_bytes(data)
    return folder / f"{sid}.jsonl", sid


def _resumed_and_undone(root: Path, options: list[str]) -> tuple[review.Proposal, list[WireMessage]]:
    """Write back, resume: the request is what cutline predicted; then undo (the program wrote: from the backup)."""
    original = _moved(_original(), root / "work")
    file, sid = _place(root, _original())
    proposal, predicted = compact_and_accept(str(file), options, STAMP)
    written = root / "written.jsonl"
    written.write_bytes(file.read_bytes())
    assert written.read_bytes().startswith(original) and b'"chat_compression"' in written.read_bytes()[len(original) :]
    body = resume("qwen_code", root, sid, PROMPT, root.name)
    assert_same("qwen-code", body, cutline_context([str(written)]), "resumed vs cutline context of the written file")
    assert_same("qwen-code", body, predicted, "resumed vs cutline context --proposal")
    sent = from_openai_chat(body)
    summary = [
        b.text for b in sent[1].content if isinstance(b, WireText) and not b.text.startswith("<system-reminder>")
    ]
    snapshot, notes = snapshot_and_notes(proposal.summary)
    assert summary[0] == f"{snapshot}\n\n{RESUME_LINE}"
    assert sent[2].text().startswith(ACKNOWLEDGEMENT)
    # cutline's notes (the last exchange, tool failures) after the acknowledgement, where Qwen Code adds its own
    assert not notes or any(notes in m.text() for m in sent[3:]), notes
    assert PROMPT in json.dumps(body["messages"][-1])
    with Store() as store, pytest.raises(UndoNeedsChoice, match="backup"):
        undo(store, proposal.id)
    with Store() as store:
        undo(store, proposal.id, from_backup=True)
    assert file.read_bytes() == original
    return proposal, sent


def test_live_qwen_resumes_from_cutline_compressions_and_undo(tmp_path: Path) -> None:
    program_or_fail("qwen_code", "Qwen Code")
    # Qwen Code's own rule (the default for its sessions): everything summarized, nothing kept
    own, sent = _resumed_and_undone(tmp_path / "own", [])
    assert own.rules == "qwen-code-0.24" and own.firstKeptEntryId is None
    assert sent[2].text() == ACKNOWLEDGEMENT and sent[3].role == "user"  # then cutline's notes or the new prompt
    # current pi's cut: the kept records follow the acknowledgement, as Qwen Code reads them back
    kept, _ = _resumed_and_undone(tmp_path / "kept", ["--rules", "pi", "--keep-recent-tokens", "200"])
    assert kept.firstKeptEntryId is not None

    # write back, undo at once: byte-identical
    root = tmp_path / "at-once"
    file, _ = _place(root, _original())
    original = file.read_bytes()
    proposal, _ = compact_and_accept(str(file), [], STAMP)
    assert file.read_bytes() != original
    with Store() as store:
        undo(store, proposal.id)
    assert file.read_bytes() == original
