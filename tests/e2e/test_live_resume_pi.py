"""The real pi (0.73.1 and 0.87.1) resumes from cutline's write-back, and from the undone file as from the original.

Live: pi runs offline against the fake Anthropic API (tests/support/live_pi.py). In CI
(CI=true) the programs must be there (.ci/run installs them): a missing one fails the
test; elsewhere it skips. The requests pi sent are kept as goldens under
tests/fixtures/writeback/, and `test_golden_*` makes the same comparison without node;
when the engine changes what cutline writes, regenerate them with the real pi:
`CUTLINE_UPDATE_GOLDENS=1 python -m pytest tests/e2e/test_live_resume_pi.py -k real`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from cutline.core import review, session_writes
from cutline.core.agents.safe_write import sha256_hex
from cutline.core.engine.proposal import Proposal
from cutline.core.models import Message, TextBlock
from cutline.core.store import Store
from tests.support.live_pi import pi_program
from tests.support.paths import ROOT, TESTS
from tests.support.process_group import run_grouped
from tests.support.writeback import SUMMARY, propose

CORPUS = TESTS / "fixtures" / "corpus"
GOLDEN = TESTS / "fixtures" / "writeback"
PROMPT = "Resume after cutline's compaction. MARK-CUTLINE-RESUME"
ENTRY_ID = "c0ffee15"
TIMESTAMP = "2026-11-25T01:00:00.000Z"
WRAP = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n{}\n</summary>"
)
VERSIONS = ["0.73", "0.87"]


def program(version: str) -> tuple[Path, Path | None]:
    found = pi_program(version)
    if isinstance(found, str):
        if os.environ.get("CI") == "true":
            pytest.fail(f"live resume test needs the real pi in CI: {found}")
        pytest.skip(found)
    return found


def written_session(tmp_path: Path, version: str) -> tuple[Path, bytes, Store, Proposal]:
    """The corpus session before pi's manual compaction, compacted by cutline and written back (deterministic)."""
    lines = (CORPUS / f"pi-{version}" / "main" / "after-manual-compact.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / f"session-{version}.jsonl"
    path.write_bytes(b"".join(lines[:-1]))
    original = path.read_bytes()
    store = Store(tmp_path / "cutline.db")
    proposal = propose(store, path)
    with store.transaction() as conn:  # a fixed entry id, so the written file is the same on every run
        proposal.entryId = ENTRY_ID
        conn.execute("UPDATE proposals SET proposal_json = ? WHERE id = ?", (proposal.model_dump_json(), proposal.id))
    review.accept(store, proposal.id, write_back=True, timestamp=TIMESTAMP)
    return path, original, store, proposal


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if block.get("type") == "text":
            parts.append(block["text"])
        elif block.get("type") == "tool_result":
            parts.append(_text(block.get("content") or []))
        elif block.get("type") == "tool_use":
            parts.append(f"[tool {block['name']}]")
    return "\n".join(parts)


def _preview_text(message: Message) -> str:
    parts = [b.text for b in message.content if isinstance(b, TextBlock)]
    parts += [f"[tool {c.name}]" for c in message.tool_calls()]
    return "\n".join(parts)


def check_request(body: dict[str, Any], proposal: Proposal) -> None:
    """cutline's summary first, then exactly the kept messages the preview showed, in order, then the new prompt."""
    messages = body["messages"]
    assert messages[0]["role"] == "user"
    assert _text(messages[0]["content"]) == WRAP.format(proposal.entry_summary())
    kept = [m for i, m in enumerate(proposal.context) if i != proposal.summary_index]
    sent = messages[1:-1]
    assert [("assistant" if m.role == "assistant" else "user") for m in kept] == [m["role"] for m in sent]
    for preview, request in zip(kept, sent, strict=True):
        assert _text(request["content"]).startswith(_preview_text(preview)) or _preview_text(preview) == ""
    assert _text(messages[-1]["content"]) == PROMPT
    assert SUMMARY in messages[0]["content"][0]["text"]


def run_pi(version: str, session: Path, out: Path) -> dict[str, Any]:
    pi, node = program(version)
    done = run_grouped(  # pi and its fake server die with it, whatever happens
        [sys.executable, "-m", "tests.support.live_pi", str(pi), str(node or "-"), str(session), PROMPT, str(out)],
        cwd=ROOT,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    body: dict[str, Any] = json.loads(out.read_text())
    return body


@pytest.mark.parametrize("version", VERSIONS)
def test_real_pi_resumes_from_the_write_back_and_from_the_undone_file(tmp_path: Path, version: str) -> None:
    program(version)
    path, original, store, proposal = written_session(tmp_path, version)
    try:
        original_copy = tmp_path / "original.jsonl"
        original_copy.write_bytes(original)
        written = tmp_path / "written.jsonl"
        written.write_bytes(path.read_bytes())
        written_sha = sha256_hex(written.read_bytes())  # before pi appends its turn to it
        body = run_pi(version, written, tmp_path / "resumed.json")
        check_request(body, proposal)
        assert session_writes.undo(store, proposal.id).how == "exact"
        assert path.read_bytes() == original
        after_undo = run_pi(version, path, tmp_path / "after-undo.json")
        from_original = run_pi(version, original_copy, tmp_path / "from-original.json")
        assert after_undo["messages"] == from_original["messages"]
    finally:
        store.close()
    if os.environ.get("CUTLINE_UPDATE_GOLDENS") == "1":
        GOLDEN.mkdir(parents=True, exist_ok=True)
        golden = {"written_sha256": written_sha, "request": body}
        (GOLDEN / f"pi-{version}-resume.json").write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n")


@pytest.mark.parametrize("version", VERSIONS)
def test_golden_request_matches_what_cutline_writes_today(tmp_path: Path, version: str) -> None:
    """No node: the file cutline writes is the one pi resumed from, and pi's request carried what the preview showed."""
    golden = json.loads((GOLDEN / f"pi-{version}-resume.json").read_text())
    path, _, store, proposal = written_session(tmp_path, version)
    try:
        assert sha256_hex(path.read_bytes()) == golden["written_sha256"]
        check_request(golden["request"], proposal)
    finally:
        store.close()
