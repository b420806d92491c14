"""Proof by the agent itself: Claude Code and Codex resume from the compaction cutline wrote back, and undo gives the original.

A corpus session (before its compaction) is compacted with cutline's default rules (current
pi's cut) and accepted with write-back; the real program (tests/support/live_clients.py,
offline in a network namespace) resumes it with a new prompt. The request it sends must
carry cutline's summary in the agent's own framing, then exactly the kept messages the
proposal showed, in order, then the new prompt; and it must equal both `cutline context
--proposal` taken before the write-back and `cutline context --json` of the written file
(the conformance normalizations of tests/conformance take out what the program adds on
every request). Here the kept part begins with a user record: Claude Code sends it merged
into the summary's user message, Codex as an item of its own. After `cutline undo` the
file is byte-identical and the resume sends the original context. The requests are
committed (tests/fixtures/writeback/<agent>/) so the same comparison runs without the
programs. Live tests skip where the programs are missing, and fail saying why under CI=true.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cutline.app.cli import cli
from cutline.core import review
from cutline.core.agents.claude_code.compaction import summary_text as cc_summary_text
from cutline.core.agents.codex.compaction import summary_text as codex_summary_text
from cutline.core.agents.wire import WireMessage, WireText, wire_messages
from cutline.core.agents.writeback import UndoNeedsChoice
from cutline.core.session_writes import undo
from cutline.core.store import Store
from tests.conformance.normalizations import NORMALIZATIONS
from tests.conformance.requests import CORPUS, from_anthropic_messages, from_openai_responses
from tests.support import live_clients
from tests.support.live_resume import cutline_context, program_or_fail
from tests.support.paths import TESTS

GOLDEN = TESTS / "fixtures" / "writeback"
ROOT_MARK = "/CUTLINE-LIVE-ROOT"
STAMP = "2026-11-25T08:00:00.000Z"
PROMPT = "Turn after cutline's compaction. MARK-WB-LIVE"


@dataclass(frozen=True)
class Case:
    agent: str  # the session format
    corpus: str  # corpus agent folder (its normalizations)
    source: str  # a corpus file whose last `appended` lines are a third-party compaction
    appended: int
    keep_recent_tokens: int
    program: str = ""  # a key of live_clients.PROGRAMS: another release of the agent than its default


CASES = {
    "claude_code": Case("claude_code", "claude-code", "claude-code/thirdparty/session.jsonl", 2, 1000),
    "codex": Case("codex", "codex", "codex/thirdparty/rollout.jsonl", 1, 300),
}
# today's releases resume the same write-back (live only: the goldens are the first releases')
RELEASES = {
    **CASES,
    "claude_code@2.1.332": Case(
        "claude_code", "claude-code", "claude-code/thirdparty/session.jsonl", 2, 1000, "claude_code@2.1.332"
    ),
    "codex@0.171.0": Case("codex", "codex", "codex/thirdparty/rollout.jsonl", 1, 300, "codex@0.171.0"),
}


def _original(case: Case) -> bytes:
    """The corpus session before any compaction: the third-party file without the lines its writer appended."""
    lines = (CORPUS / case.source).read_bytes().splitlines(keepends=True)
    return b"".join(lines[: -case.appended])


def _session_id(case: Case, data: bytes) -> str:
    first = json.loads(data.splitlines()[0])
    if case.agent == "codex":
        return str(first["payload"]["id"])
    return next(str(json.loads(line)["sessionId"]) for line in data.splitlines() if b'"sessionId"' in line)


def _place(case: Case, root: Path, data: bytes) -> tuple[Path, str]:
    """The session file where the program looks for it under `root/home`; its session / thread id."""
    work = root / "work"
    work.mkdir(parents=True, exist_ok=True)
    sid = _session_id(case, data)
    if case.agent == "claude_code":
        folder = root / "home" / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(work))
        name = f"{sid}.jsonl"
    else:
        folder = root / "home" / ".codex" / "sessions" / "2026" / "11" / "24"
        name = f"rollout-2026-11-24T23-48-22-{sid}.jsonl"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)
    return folder / name, sid


def _propose(case: Case, file: Path) -> tuple[str, list[WireMessage]]:
    """Compact with cutline's default rules: the proposal's id, and `cutline context --proposal` (the predicted request)."""
    result = CliRunner().invoke(
        cli, ["compact", "--keep-recent-tokens", str(case.keep_recent_tokens), "--json", str(file)]
    )
    assert result.exit_code == 0, result.output
    proposal_id = str(json.loads(result.output)["id"])
    return proposal_id, cutline_context(["--proposal", proposal_id])


def _no_agent_left(file: Path, wait: float = 30.0) -> None:
    """Wait until no agent process the write-back would refuse for is left (an earlier test's, in the same folder).

    The sessions of every case keep the corpus' working folder, and the write-back refuses
    while an agent runs there; the agent a previous run started is killed with its group,
    but may still be exiting. Fails, saying which, if one is still there after `wait`.
    """
    from cutline.core.agents import read_session
    from cutline.core.agents.registry import adapter_for

    session = read_session(file)
    deadline = time.monotonic() + wait
    while (running := adapter_for(session.format).running_agent(session)) is not None:
        assert time.monotonic() < deadline, f"an agent is still running in the session's folder: {running}"
        time.sleep(0.1)


def _compact_and_accept(case: Case, file: Path) -> tuple[review.Proposal, list[WireMessage]]:
    """Compact, then accept with write-back; the proposal, and the context predicted before the write-back."""
    proposal_id, predicted = _propose(case, file)
    _no_agent_left(file)
    with Store() as store:
        review.accept(store, proposal_id, write_back=True, timestamp=STAMP)
        return review.load_proposal(store, proposal_id), predicted


def _undo(proposal_id: str, *, from_backup: bool = False) -> str:
    with Store() as store:
        return undo(store, proposal_id, from_backup=from_backup).message


def _request_messages(case: Case, body: dict[str, Any]) -> list[WireMessage]:
    return from_openai_responses(body) if case.agent == "codex" else from_anthropic_messages(body)


def _normalized(
    case: Case, body: dict[str, Any], context: list[WireMessage]
) -> tuple[list[WireMessage], list[WireMessage]]:
    request = _request_messages(case, body)
    for normalize in NORMALIZATIONS[case.corpus].values():
        request, context = normalize(request, context)
    return request, context


def _assert_same(request: list[WireMessage], context: list[WireMessage], what: str) -> None:
    for i in range(max(len(request), len(context))):
        sent = request[i] if i < len(request) else None
        mine = context[i] if i < len(context) else None
        assert mine == sent, f"{what}: message {i} differs\n  request: {sent}\n  cutline: {mine}"


def _signature(messages: list[WireMessage]) -> list[tuple[str, str]]:
    """What a person checks in a preview, grouping aside: texts, images, thinking, tool calls and results by id."""
    out: list[tuple[str, str]] = []
    for message in messages:
        if message.role == "system":
            continue
        for block in message.content:
            if isinstance(block, WireText):
                if not block.text.startswith("<system-reminder>"):
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


def _summary_text(case: Case, summary: str, file: str) -> str:
    if case.agent == "codex":
        return codex_summary_text(summary)
    return cc_summary_text(summary, file, kept=True)


def _after_summary(request: list[WireMessage], summary: str) -> list[WireMessage]:
    """The request's messages after the summary; the summary first, in the agent's framing.

    Claude Code sends a kept part that begins with a user record merged into the summary's
    user message, the summary's text block ending in the newline of that seam.
    """
    first = request[0]
    assert first.role == "user" and first.content, "the request begins with the summary's user message"
    head = first.content[0]
    rest = first.content[1:]
    assert isinstance(head, WireText) and head.text == (summary + "\n" if rest else summary), (
        "the summary comes first, in the agent's framing"
    )
    return [WireMessage(role="user", content=rest), *request[1:]] if rest else request[1:]


def check_resumed(
    case: Case,
    body: dict[str, Any],
    written: Path,
    proposal: review.Proposal,
    file: str,
    predicted: list[WireMessage],
) -> None:
    """The request after the write-back: what `cutline context --proposal` predicted, and what `cutline context` reads.

    That is cutline's summary, the kept messages as the preview showed them, the new prompt.
    """
    request, context = _normalized(case, body, cutline_context([str(written)]))
    _assert_same(request, context, f"{case.agent} resumed from cutline's compaction vs cutline context")
    request, prediction = _normalized(case, body, predicted)
    _assert_same(request, prediction, f"{case.agent} resumed from cutline's compaction vs cutline context --proposal")
    kept_request = [
        m for m in _after_summary(request, _summary_text(case, proposal.summary, file)) if m.role != "system"
    ]
    kept_preview = wire_messages(proposal.context[1:])
    assert _signature(kept_request) == _signature(kept_preview), "exactly the kept messages of the preview, in order"
    last = _request_messages(case, body)
    assert PROMPT in last[max(i for i, m in enumerate(last) if m.role == "user")].text(), "then the new prompt"


def check_original(case: Case, body: dict[str, Any], original: Path) -> None:
    """The request after undo: the original session's context."""
    request, context = _normalized(case, body, cutline_context([str(original)]))
    _assert_same(request, context, f"{case.agent} resumed after undo vs cutline context of the original")


# ---------------------------------------------------------------------------
# goldens: the same comparison without the programs
# ---------------------------------------------------------------------------


def _to_golden(text: str, root: Path) -> str:
    return text.replace(str(root), ROOT_MARK)


def _golden_case(case: Case) -> Path:
    return GOLDEN / case.agent


def _predicted_offline(case: Case, folder: Path, root: Path) -> list[WireMessage]:
    """`cutline context --proposal` now, for the golden's session placed where the live run had it (paths as in the golden)."""
    file = Path((folder / "transcript-path.txt").read_text(encoding="utf-8").replace(ROOT_MARK, str(root)))
    file.parent.mkdir(parents=True)
    file.write_bytes(_original(case))
    _, predicted = _propose(case, file)
    return [WireMessage.model_validate_json(_to_golden(m.model_dump_json(), root)) for m in predicted]


@pytest.mark.parametrize("agent", sorted(CASES))
def test_golden_requests_matchcutline_context(agent: str, tmp_path: Path) -> None:
    case = CASES[agent]
    folder = _golden_case(case)
    assert (folder / "written.jsonl").is_file(), f"no goldens in {folder}: run this module with the programs installed"
    written = tmp_path / "written.jsonl"
    written.write_bytes((folder / "written.jsonl").read_bytes())
    proposal = review.Proposal.model_validate_json((folder / "proposal.json").read_text(encoding="utf-8"))
    body = json.loads((folder / "request.json").read_text(encoding="utf-8"))
    transcript = (folder / "transcript-path.txt").read_text(encoding="utf-8")
    predicted = _predicted_offline(case, folder, tmp_path / "live")
    check_resumed(case, body, written, proposal, transcript, predicted)
    original = tmp_path / "original.jsonl"
    original.write_bytes(_original(case))
    check_original(case, json.loads((folder / "undo-request.json").read_text(encoding="utf-8")), original)


# ---------------------------------------------------------------------------
# live
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("agent", sorted(RELEASES))
def test_live_resume_after_write_back_and_undo(agent: str, tmp_path: Path) -> None:
    program_or_fail(agent, agent)
    case = RELEASES[agent]
    root = tmp_path / "live"
    original = _original(case)

    # write back, resume: the agent continues from cutline's summary
    file, sid = _place(case, root / "a", original)
    proposal, predicted = _compact_and_accept(case, file)
    written = root / "written.jsonl"
    shutil.copyfile(file, written)
    run = live_clients.LiveRun(
        case.agent, root / "a" / "home", root / "a" / "work", sid, PROMPT, root / "a-requests", case.program
    )
    body = live_clients.resume(run)
    check_resumed(case, body, written, proposal, str(file), predicted)

    # the agent wrote after the compaction: undo says so and offers the backup, which gives the original back
    with pytest.raises(UndoNeedsChoice, match="backup"):
        _undo(proposal.id)
    _undo(proposal.id, from_backup=True)
    assert file.read_bytes() == original

    # write back, undo at once: byte-identical, and the resume sends the original context
    file_b, sid_b = _place(case, root / "b", original)
    proposal_b, _ = _compact_and_accept(case, file_b)
    assert file_b.read_bytes() != original
    _undo(proposal_b.id)
    assert file_b.read_bytes() == original
    run_b = live_clients.LiveRun(
        case.agent, root / "b" / "home", root / "b" / "work", sid_b, PROMPT, root / "b-requests", case.program
    )
    body_b = live_clients.resume(run_b)
    original_file = root / "original.jsonl"
    original_file.write_bytes(original)
    check_original(case, body_b, original_file)

    if os.environ.get("CUTLINE_UPDATE_GOLDENS") == "1" and not case.program:
        folder = _golden_case(case)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "written.jsonl").write_text(
            _to_golden(written.read_text(encoding="utf-8"), root / "a"), encoding="utf-8"
        )
        (folder / "proposal.json").write_text(
            _to_golden(proposal.model_dump_json(indent=1), root / "a"), encoding="utf-8"
        )
        (folder / "transcript-path.txt").write_text(_to_golden(str(file), root / "a"), encoding="utf-8")
        for name, request, where in (("request.json", body, root / "a"), ("undo-request.json", body_b, root / "b")):
            (folder / name).write_text(
                _to_golden(json.dumps(request, indent=1, ensure_ascii=False), where), encoding="utf-8"
            )
