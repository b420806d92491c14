"""After a decision: undo the write-back (`u`, as `cutline undo`), write back later a proposal accepted into the store only (`W`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work

from cutline.app.screens.modals import AcceptScreen
from cutline.app.screens.session_review.messages import Decided, WriteLaterPrepared
from cutline.app.screens.session_review.state import ReviewState
from cutline.app.screens.undo_flow import AsksUndo
from cutline.app.widgets.safe_text import short_path
from cutline.core import workbench

if TYPE_CHECKING:
    from cutline.core.agents.writeback import UndoResult
    from cutline.core.session_writes import UndoPlan


class Afterwards(AsksUndo, ReviewState):
    """Undo the accepted proposal's write-back; write back one accepted into the store only."""

    def action_undo(self) -> None:
        if self._queue("undo"):
            return
        if self.proposal is None or self.proposal_status != "accepted" or self.running:
            return
        self.said_before_reload = ""
        self.set_status(f"undo proposal {self.proposal.id}: asking first (nothing is changed before you answer)")
        self.start_undo(self.proposal.id)

    def undone(self, plan: UndoPlan, result: UndoResult) -> None:
        if self.proposal is not None and self.proposal.id == plan.proposal_id:
            self.proposal_status = "open"
            self._show_proposal()
        said = f"undone: {result.message} · proposal {plan.proposal_id} is open again"
        self.set_status(said)
        self.said_before_reload = said
        self.refresh_bindings()
        self.reload()

    # -- write back later ---------------------------------------------------------

    def action_write_back_later(self) -> None:
        if self._queue("write_back_later"):
            return
        if self.proposal is None or self.proposal_status != "accepted" or self.running:
            return
        self.said_before_reload = ""
        self.prepare_write_later(self.proposal.id)

    @work(thread=True, exclusive=True, group="decide", exit_on_error=False, description="Preparing the write")
    def prepare_write_later(self, proposal_id: str) -> None:
        written = workbench.written_back_to(self.desk.store, proposal_id)
        if written is not None:
            self.post_message(WriteLaterPrepared(None, written))
            return
        self.post_message(WriteLaterPrepared(workbench.accept_preview(self.desk.store, proposal_id, self.desk.clock())))

    @on(WriteLaterPrepared)
    def _confirm_write_later(self, message: WriteLaterPrepared) -> None:
        preview = message.preview
        if preview is None:
            self.set_status(f"already written back, to {short_path(message.written_to or '')}; u undoes it")
            return
        plan, session = preview.write_back, self.session
        if not plan.possible or session is None or not session.source_path:
            self.desk.show_error("No write-back", f"{plan.reason}; the proposal stays accepted in the store only.")
            return
        where = short_path(session.source_path)
        if plan.how == "append":
            intro = f"This line will be appended to {where} (backed up before the first write)"
        else:
            intro = f"Written to {where}: {plan.reason}"
        intro += ". The proposal was accepted into the store only; it stays accepted. The line:"
        proposal_id, timestamp = preview.proposal_id, preview.timestamp

        def answered(yes: bool | None) -> None:
            if yes:
                self.show_writing(where)
                self.write_later(proposal_id, timestamp)

        fields = self._accept_fields(preview.line, preview.summary, True)
        screen = AcceptScreen(
            "Write this accepted compaction back?", intro, preview.summary, fields, preview.line, "Write back"
        )
        self.app.push_screen(screen, answered)

    @work(thread=True, exclusive=True, group="decide", exit_on_error=False, description="Writing back")
    def write_later(self, proposal_id: str, timestamp: str) -> None:
        result = workbench.write_back_later(self.desk.store, proposal_id, timestamp=timestamp)
        detail = f"entry {result.entry_id} written to {short_path(result.written_to or '')}"
        self.post_message(Decided("accepted", detail, list(result.notes)))
