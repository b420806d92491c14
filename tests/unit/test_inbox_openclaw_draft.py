"""OpenClaw's held compaction starts from a real summary of the messages its provider receives.

The fixture is what the real OpenClaw 2026.9.6 sent through cutline's provider plugin in the
live review test (tests/fixtures/inbox/README.md). OpenClaw names no session file, so the
summary a person starts from is cutline's extractive one of those messages: before the fix
the user turns (bare-string content) were dropped and every section read "(none)".
"""

from __future__ import annotations

import json
from pathlib import Path

from cutline.core.inbox.answers import extractive_draft, make_proposal, summary_of
from cutline.core.inbox.channel import _new_item
from cutline.core.inbox.items import Inbox
from cutline.core.inbox.wire import Hold
from cutline.core.store import Store
from tests.support.paths import TESTS

HOLD = TESTS / "fixtures" / "inbox" / "openclaw-2026.9.6-hold.json"
OPENCLAW_SECTIONS = [
    "## Decisions",
    "## Open TODOs",
    "## Constraints/Rules",
    "## Pending user asks",
    "## Exact identifiers",
]


def _hold() -> Hold:
    return Hold.model_validate(json.loads(HOLD.read_text(encoding="utf-8")))


def test_the_draft_of_what_openclaw_sends_summarizes_its_messages_in_its_own_sections() -> None:
    draft = extractive_draft(_hold().preparation, "openclaw")
    assert [line for line in draft.splitlines() if line.startswith("## ")] == OPENCLAW_SECTIONS
    pending = draft.split("## Pending user asks", 1)[1].split("## Exact identifiers", 1)[0]
    assert "Big usage turn" in pending  # the user's last ask, which no assistant turn answered
    assert "First turn: hello" in draft
    assert draft.split("## Exact identifiers", 1)[1].strip() != "- (none)"


def test_a_held_openclaw_compaction_offers_that_draft_to_edit(tmp_path: Path) -> None:
    hold = _hold()
    with Store(tmp_path / "store.db") as store:
        inbox = Inbox(store)
        item = inbox.add(_new_item(hold))
        make_proposal(store, item, hold)
        text, version = summary_of(store, inbox.get(item.id))
    assert version is None and "Big usage turn" in text and text.count("(none)") <= 2
