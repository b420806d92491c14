"""The desk's accept dialog shows what the summary contradicts or loses before anything is written."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

from textual.app import App
from textual.screen import Screen
from textual.widgets import Static

from cutline.app.screens.modals import AcceptScreen
from cutline.core import review
from cutline.core.store import Store
from tests.support.tui_app import rendered_text, settle_pilot
from tests.unit.test_accept_findings import _proposal


class _Under(Screen[None]):
    """Stands for the review screen: the open proposal and the desk's store."""

    def __init__(self, proposal: object, store: Store) -> None:
        super().__init__()
        self.proposal = proposal
        self.desk = SimpleNamespace(store=store)


def test_the_accept_dialog_names_the_contradicted_fact(tmp_path: Path) -> None:
    _, db, proposal_id = _proposal(tmp_path)  # made by `cutline compact` (its own event loop), before the app runs
    with Store(db) as store:
        review.add_version(
            store,
            proposal_id,
            "## Key Decisions\n- I'll stream the reply with WebSockets instead of server-sent events.",
        )
        proposal = review.load_proposal(store, proposal_id)
        answers: list[bool | None] = []

        class _App(App[None]):
            def on_mount(self) -> None:
                self.push_screen(_Under(proposal, store))
                self.push_screen(AcceptScreen("Accept?", "intro", "summary", [("tokens", "1 -> 2")]), answers.append)

        async def run() -> str:
            app = _App()
            async with app.run_test(size=(100, 40)) as pilot:
                await settle_pilot(pilot)
                shown = app.screen.query_one("#accept-findings", Static)
                text = rendered_text(shown.render()) if shown.display else ""
                await pilot.press("n")
                await settle_pilot(pilot)
            return text

        text = asyncio.run(run())
        assert "the summary contradicts 1 fact" in text
        assert "server-sent events instead of WebSockets" in text
        assert answers == [False]
