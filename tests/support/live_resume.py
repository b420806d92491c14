"""The live resume tests' common steps (Qwen Code, opencode): cutline compacts and writes back, the real program resumes.

`compact_and_accept` runs `cutline compact` and accepts with write-back, after taking `cutline context
--proposal`; `resume` has the program continue the session against the fake server; `assert_same`
compares the request it sent with a context of cutline's, after the agent's conformance normalizations.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cutline.app.cli import cli
from cutline.core import review
from cutline.core.agents.wire import WireMessage
from cutline.core.engine.compact import Proposal
from cutline.core.store import Store
from tests.conformance.normalizations import NORMALIZATIONS
from tests.conformance.requests import from_openai_chat
from tests.support import live_clients


def program_or_fail(agent: str, name: str) -> None:
    """Skip when the agent's program is missing, but fail under CI=true (a live test must run there)."""
    why = live_clients.missing(agent)
    if why is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"the live {name} test cannot run in CI: {why}")
    pytest.skip(why)


def cutline_context(args: list[str]) -> list[WireMessage]:
    """`cutline context --json ARGS`: the messages cutline says the agent sends."""
    result = CliRunner().invoke(cli, ["context", "--json", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return [WireMessage.model_validate(m) for m in json.loads(result.output)["messages"]]


def compact_and_accept(ref: str, options: list[str], stamp: str) -> tuple[Proposal, list[WireMessage]]:
    """`cutline compact OPTIONS REF`, its predicted context, then accepted with write-back at `stamp`."""
    result = CliRunner().invoke(cli, ["compact", *options, "--json", ref])
    assert result.exit_code == 0, result.output
    proposal_id = str(json.loads(result.output)["id"])
    predicted = cutline_context(["--proposal", proposal_id])
    with Store() as store:
        review.accept(store, proposal_id, write_back=True, timestamp=stamp)
        return review.load_proposal(store, proposal_id), predicted


def assert_same(normalizations: str, body: dict[str, Any], context: list[WireMessage], what: str) -> None:
    """The program's request (Chat Completions `body`) equals `context`, message by message, once normalized."""
    request = from_openai_chat(body)
    for normalize in NORMALIZATIONS[normalizations].values():
        request, context = normalize(request, context)
    for i in range(max(len(request), len(context))):
        sent = request[i] if i < len(request) else None
        mine = context[i] if i < len(context) else None
        assert mine == sent, f"{what}: message {i} differs\n  request: {sent}\n  cutline: {mine}"


def resume(agent: str, root: Path, sid: str, prompt: str, name: str) -> dict[str, Any]:
    """The program resumes session `sid` under `root`/home in `root`/work with `prompt`; the request it sent."""
    run = live_clients.LiveRun(agent, root / "home", root / "work", sid, prompt, root.parent / f"{name}-requests")
    return live_clients.resume(run)
