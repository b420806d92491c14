"""The audit screen's `p`: a proposal's model check, the cost asked first in a dialog, run in a worker against a
loopback fake, its grades shown in the Warnings pane and again when the audit is opened later."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import Static

from cutline.app.screens.audit import AuditScreen
from cutline.app.screens.modals import ConfirmScreen
from cutline.core.engine.proposal import Proposal
from cutline.core.store import Store
from tests.support.fake_anthropic import Step
from tests.support.fake_openai import FakeOpenAI
from tests.support.paths import SAMPLES
from tests.support.writeback import propose

REPLY = "\n".join(
    [
        "1. Do not rate-limit the public redirect GET /{code}.",
        *(f"{n}. UNKNOWN" for n in range(2, 9)),
        "9. Commit on a branch `ratelimit` and push it.",
        "10. UNKNOWN",
    ]
)


class _App(App[None]):
    def __init__(self, screen: AuditScreen) -> None:
        super().__init__()
        self.audit_screen = screen

    def on_mount(self) -> None:
        self.push_screen(self.audit_screen)


@pytest.fixture
def proposed(tmp_path: Path) -> tuple[Path, Proposal]:
    path = tmp_path / "pi.jsonl"
    shutil.copy(SAMPLES / "pi-coding-session.jsonl", path)
    db = tmp_path / "db"
    with Store(db) as store:
        return db, propose(store, path, keep_recent_tokens=2000)


async def test_p_asks_the_cost_then_runs_the_check_and_shows_it(
    proposed: tuple[Path, Proposal], monkeypatch: pytest.MonkeyPatch
) -> None:
    db, proposal = proposed
    fake = FakeOpenAI().start()
    try:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.setenv("OPENAI_BASE_URL", fake.v1)
        fake.script([Step(text=REPLY)])
        app = _App(AuditScreen(db, proposal.session_id, proposal_id=proposal.id))
        async with app.run_test(size=(140, 48)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.press("p")
            await app.workers.wait_for_complete()
            await pilot.pause()
            dialog = app.screen
            assert isinstance(dialog, ConfirmScreen)
            assert "tokens in" in dialog.intro and "price unknown" in dialog.intro
            assert fake.calls() == []  # nothing sent before the answer
            await pilot.press("y")
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert isinstance(app.screen, AuditScreen)
            warnings = str(app.screen.query_one("#audit-warnings", Static).render())
            assert "1 right, 1 wrong, 8 missed of 10" in warnings
            assert len(fake.calls()) == 1
        again = _App(AuditScreen(db, proposal.session_id, proposal_id=proposal.id))
        async with again.run_test(size=(140, 48)) as pilot:
            await again.workers.wait_for_complete()
            await pilot.pause()
            warnings = str(again.screen.query_one("#audit-warnings", Static).render())
            assert "1 right, 1 wrong, 8 missed of 10" in warnings
        assert len(fake.calls()) == 1
    finally:
        fake.stop()
