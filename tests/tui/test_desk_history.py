"""The history (`H`) is no dead end (issue 27, item 2): its rows are selected and acted on, keys typed as a person types.

Enter opens the audit of the selected compaction or proposal, `g` shows it in the list,
space marks a row and `c` compares two summaries, `u` undoes a proposal's write-back.
"""

from __future__ import annotations

from pathlib import Path

from cutline.app.screens.audit import AuditScreen
from cutline.app.screens.modals import ConfirmScreen
from cutline.app.screens.session_review import ReviewScreen
from cutline.app.screens.versions import DiffScreen, HistoryScreen
from cutline.app.widgets.message_list import MessageList
from cutline.core.store import Store
from tests.support.audit_builders import audit_demo_session
from tests.support.desk_accept import accept_proposal
from tests.support.keys import SIZE, type_keys
from tests.support.tui_app import rendered_text, test_app
from tests.support.tui_app import settle_pilot as settle


async def test_g_shows_the_compaction_in_the_list_and_enter_opens_its_audit(tmp_path: Path) -> None:
    store = tmp_path / "store.db"
    session = audit_demo_session()
    with Store(store) as s:
        s.import_session(session)
    [(index, compaction)] = [(i, e) for i, e in enumerate(session.active_path()) if e.type == "compaction"]
    app = test_app(store, "audit-demo")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        screen.query_one(MessageList).cursor = 0
        await type_keys(pilot, "H")
        await settle(pilot)
        assert isinstance(app.screen, HistoryScreen)
        await type_keys(pilot, "g")
        await settle(pilot)
        assert app.screen is screen, "g closes the history"
        assert screen.path[screen.query_one(MessageList).cursor].id == compaction.id
        assert screen.query_one(MessageList).cursor == index

        await type_keys(pilot, "H")
        await settle(pilot)
        await type_keys(pilot, "\r")
        await settle(pilot)
        audit = app.screen
        assert isinstance(audit, AuditScreen), "enter opens the audit of the selected compaction"
        assert audit.compaction_entry_id == compaction.id


async def test_space_and_c_compare_two_rows_and_u_undoes_a_write_back(tmp_path: Path, ledger: Path) -> None:
    original = ledger.read_bytes()
    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await accept_proposal(pilot, screen)
        assert screen.proposal is not None
        proposal_id = screen.proposal.id

        await type_keys(pilot, "H")
        await settle(pilot)
        history = app.screen
        assert isinstance(history, HistoryScreen)
        assert [(r.kind, r.status) for r in history.rows] == [("file", "in file"), ("proposal", "accepted")]
        await type_keys(pilot, " ")  # mark the compaction in the file
        await pilot.press("down")
        await type_keys(pilot, "c")
        await settle(pilot)
        diff = app.screen
        assert isinstance(diff, DiffScreen)
        assert [v.origin for v in diff.versions] == [
            f"compaction {history.rows[0].key[:8]}",
            f"proposal {proposal_id[:8]}",
        ]
        shown = rendered_text(diff.query_one("#diff-body").content)
        assert "identical" in shown, "the written compaction's summary is the proposal's"
        await pilot.press("escape")  # a lone ESC reaches the parser as a key only after its timeout
        await settle(pilot)
        assert app.screen is history

        await type_keys(pilot, "u")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await type_keys(pilot, "y")
        await settle(pilot)
        assert ledger.read_bytes() == original, "undone from the history, byte for byte"
        assert app.screen is history
        assert [r.status for r in history.rows if r.kind == "proposal"] == ["open"]
