"""Accept and reject: the accept dialog's preview (read in a worker), the decision, what it wrote."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work

from cutline.app.screens.modals import AcceptScreen, ConfirmScreen
from cutline.app.screens.session_review.messages import (
    AcceptPrepared,
    Decided,
)
from cutline.app.screens.session_review.state import ReviewState, chars4_tokens
from cutline.app.widgets.labels import plural
from cutline.app.widgets.safe_text import short_path
from cutline.core import workbench

if TYPE_CHECKING:
    pass


class Deciding(ReviewState):
    """Accept and reject: the accept dialog's preview (read in a worker), the decision, what it wrote."""

    def action_accept_store_only(self) -> None:
        self.action_accept(store_only=True)

    def action_accept(self, store_only: bool = False) -> None:
        if self._queue("accept_store_only" if store_only else "accept"):
            return
        if self.proposal is None or self.proposal_status != "open":
            return
        if not self.proposal.validation.ok:
            self.desk.show_error("This proposal cannot be accepted", self.proposal.validation.summary())
            return
        self.flush_pending()
        self.said_before_reload = ""
        self.prepare_accept(self.proposal.id, store_only)

    @work(thread=True, exclusive=True, group="decide", exit_on_error=False, description="Preparing the write")
    def prepare_accept(self, proposal_id: str, store_only: bool = False) -> None:
        preview = workbench.accept_preview(self.desk.store, proposal_id, self.desk.clock())
        self.post_message(AcceptPrepared(preview, store_only))

    def cut_disagreement(self) -> str | None:
        """One sentence when the cut drawn on the list is not the open proposal's cut, else None."""
        if self.proposal is None or self.proposal_status != "open" or self.plan is None:
            return None
        if self.plan.firstKeptEntryId == self.proposal.firstKeptEntryId:
            return None
        used = self.proposal.settings.get("keepRecentTokens")
        made = f" (made with keepRecentTokens {used:,})" if isinstance(used, int) else ""
        listed = self.plan.firstKeptEntryId or "none"
        return (
            f"The proposal keeps from entry {self.proposal.firstKeptEntryId}{made}; the list shows the cut at "
            f"entry {listed} (keepRecentTokens {self.plan.keepRecentTokens:,}). Accepting writes the proposal's "
            "cut; run again (r) to propose the list's."
        )

    @on(AcceptPrepared)
    def _confirm_accept(self, message: AcceptPrepared) -> None:
        preview, store_only = message.preview, message.store_only
        proposal_id, line, timestamp, plan, summary = (
            preview.proposal_id,
            preview.line,
            preview.timestamp,
            preview.write_back,
            preview.summary,
        )
        session = self.session
        if store_only:
            intro = "The session file is not written (you chose to accept without writing); recorded in the store as:"
            write_back = False
        elif plan.possible and session is not None and session.source_path:
            if plan.how == "append":
                intro = f"This line will be appended to {short_path(session.source_path)} (backed up before the first write):"
            else:
                intro = f"Written to {short_path(session.source_path)}: {plan.reason}. The line:"
            write_back = True
        else:
            intro = f"No write-back: {plan.reason}. Accepting records the compaction in the store only, as:"
            write_back = False
        title = "Accept this compaction?"
        disagreement = self.cut_disagreement()
        if disagreement is not None:
            title = "Accept this compaction? Its cut is not the one on the list"
            intro = f"{disagreement}\n\n{intro}"

        where = short_path(session.source_path) if write_back and session is not None and session.source_path else ""

        def answered(yes: bool | None) -> None:
            if yes:
                self.show_writing(where)
                self.decide(proposal_id, "accepted", timestamp, write_back)

        label = "Accept and write" if write_back else "Accept"
        fields = self._accept_fields(line, summary, write_back)
        self.app.push_screen(AcceptScreen(title, intro, summary, fields, line, label), answered)

    def _accept_fields(self, line: str, summary: str, write_back: bool) -> list[tuple[str, str]]:
        """The accept dialog's figures: tokens before → after, the cut, the rules and the line written back."""
        import json

        p = self.proposal
        if p is None:
            return []
        after = p.tokensAfter + (
            chars4_tokens(summary) - chars4_tokens(p.summary) if summary and summary != p.summary else 0
        )
        edited = " (with the edited summary, ≈)" if summary and summary != p.summary else ""
        try:
            record = json.loads(line)
        except ValueError:
            record = {}
        record = record if isinstance(record, dict) else {}
        kind = record.get("type") or "compaction"
        entry = record.get("id") or record.get("uuid") or p.entryId
        size = f"{kind} entry {entry}, {len(line.encode('utf-8')):,} bytes"
        return [
            ("tokens", f"{p.tokensBefore:,} → {max(0, after):,} ({p.counter}){edited}"),
            (
                "cut",
                f"keeps from entry {p.firstKeptEntryId or '—'} · summarizes {plural(p.summarizedCount, 'entry', 'entries')}"
                f" · keeps {p.keptCount:,} verbatim",
            ),
            ("rules", f"{p.rules or '—'} · mode {p.mode}"),
            ("write-back", f"1 line: {size}" if write_back else f"none; recorded in the store as {size}"),
        ]

    def action_reject(self) -> None:
        if self._queue("reject"):
            return
        if self.proposal is None or self.proposal_status != "open":
            return
        self.flush_pending()
        proposal_id = self.proposal.id

        def answered(yes: bool | None) -> None:
            if yes:
                self.decide(proposal_id, "rejected")

        self.app.push_screen(
            ConfirmScreen(
                "Reject this proposal?",
                "The proposal and its versions stay in the store, marked rejected.",
                "Nothing is written to the session file.",
                "Reject",
            ),
            answered,
        )

    @work(thread=True, exclusive=True, group="decide", exit_on_error=False, description="Recording the decision")
    def decide(self, proposal_id: str, decision: str, timestamp: str | None = None, write_back: bool = True) -> None:
        if decision == "accepted":
            result = workbench.accept(self.desk.store, proposal_id, write_back=write_back, timestamp=timestamp)
            detail = (
                f"entry {result.entry_id} written to {short_path(result.written_to)}"
                if result.written_to
                else "recorded in the store"
            )
            self.post_message(Decided(decision, detail, list(result.notes)))
            return
        workbench.reject(self.desk.store, proposal_id)
        self.post_message(Decided(decision, "nothing written to the session file"))

    def show_writing(self, where: str) -> None:
        """Say at once that the decision is being written (the write and the re-import take seconds on a big file)."""
        self._status_before_writing = self.proposal_status
        self.proposal_status = "writing…"
        self._show_proposal()
        self.set_status(
            f"writing… {f'to {where} ' if where else 'the decision '}(the proposal is accepted once written)"
        )

    def writing_failed(self) -> None:
        """The write failed (its error is shown): the proposal is as it was before "writing…"."""
        if self.proposal_status == "writing…":
            self.proposal_status = self._status_before_writing
            self._show_proposal()
            self.set_status("nothing was accepted: the write failed (see the message)")

    @on(Decided)
    def _decided(self, message: Decided) -> None:
        self.proposal_status = message.decision
        told = " · ".join([message.detail, *message.notes])
        self.notify(f"Proposal {message.decision}: {told}", timeout=8, markup=False)
        said = f"proposal {message.decision}: {told}" + (
            " · u undoes it" if message.decision == "accepted" and "written to" in message.detail else ""
        )
        self.set_status(said)
        self.said_before_reload = said
        self._show_proposal()
        if message.decision == "accepted":
            self.reload()
        else:
            self.refresh_context()
