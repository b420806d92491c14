"""cutline's context == the messages of the request the real program sent next, for every corpus entry.

The corpus (tests/fixtures/corpus, its README has the format notes) pairs each session file
state written by a real agent with the request that agent sent next from exactly that
state. `cutline context --json` of the file must equal the request's messages, message by
message, once what the program adds on every request is taken out: those normalizations
are listed per agent in NORMALIZATIONS (tests/conformance/normalizations.py), each with a docstring saying what it removes
and why. The request converters (tests/conformance/requests.py) only drop wire shape.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cutline.app.cli import cli
from cutline.core.agents.wire import WireMessage
from tests.conformance.normalizations import NORMALIZATIONS
from tests.conformance.requests import CORPUS, load_manifest, request_messages

# Entries whose agent's reader is not conformant yet: xfail(strict), so a pass is noticed.
# Every agent's reader is now: the list stays for the next agent version added to the corpus.
EXPECTED_TO_FAIL: frozenset[str] = frozenset()


# ---------------------------------------------------------------------------
# The test
# ---------------------------------------------------------------------------

_ENTRIES = load_manifest()


def _param(entry: dict[str, Any]) -> Any:
    marks = []
    if entry["id"] in EXPECTED_TO_FAIL:
        marks.append(pytest.mark.xfail(strict=True, reason="this agent's reader is not conformant yet"))
    return pytest.param(entry, id=entry["id"], marks=marks)


def _cutline_context(session_file: Path) -> tuple[str, list[WireMessage]]:
    result = CliRunner().invoke(cli, ["context", "--json", str(session_file)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    return data["agent"], [WireMessage.model_validate(m) for m in data["messages"]]


def _show(message: WireMessage | None) -> str:
    if message is None:
        return "(none)"
    text = json.dumps(message.model_dump(mode="json"), ensure_ascii=False)
    return text if len(text) < 1500 else text[:1500] + "…"


def test_every_corpus_agent_has_normalizations_listed() -> None:
    assert {e["agent"] for e in _ENTRIES} <= set(NORMALIZATIONS)


@pytest.mark.parametrize("entry", [_param(e) for e in _ENTRIES])
def test_context_equals_the_next_request(entry: dict[str, Any]) -> None:
    agent, context = _cutline_context(CORPUS / entry["session_file"])
    request = request_messages(entry)
    for normalize in NORMALIZATIONS[entry["agent"]].values():
        request, context = normalize(request, context)
    for i in range(max(len(request), len(context))):
        sent = request[i] if i < len(request) else None
        mine = context[i] if i < len(context) else None
        assert mine == sent, (
            f"{entry['id']} ({agent}, normalized: {', '.join(NORMALIZATIONS[entry['agent']])}): "
            f"message {i} differs\n  request: {_show(sent)}\n  cutline: {_show(mine)}"
        )
