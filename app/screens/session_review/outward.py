"""What leaves the screen: the agent's context tab, the history and audit screens, the downloads."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.widgets import TabbedContent

from cutline.app.screens.session_review.messages import (
    ContextReady,
)
from cutline.app.screens.session_review.state import ReviewState
from cutline.app.screens.versions import HistoryChoice, HistoryScreen
from cutline.app.widgets.context_view import ContextView
from cutline.app.widgets.message_list import MessageList
from cutline.core.agents import session_wire_context
from cutline.core.agents.wire import context_text
from cutline.core.config.settings import CompactionSettings
from cutline.core.models import Session
from cutline.core.review import context_after_accept

if TYPE_CHECKING:
    pass


class Outward(ReviewState):
    """What leaves the screen: the agent's context tab, the history and audit screens, the downloads."""

    def refresh_context(self) -> None:
        """Work out the Context tab again (after a load, a new proposal, an edit or a decision)."""
        if self.session is None:
            return
        if self._stored is not None and self.query_one(TabbedContent).active != "tab-context":
            # the context of a session shown from stored columns needs it whole: worked out when the tab is opened
            self._context_wanted = True
            self.query_one(ContextView).show("open this tab to work out the context", None, "")
            return
        self._context_wanted = False
        open_id = self.proposal.id if self.proposal is not None and self.proposal_status == "open" else None
        self.compute_context(self.session, open_id)

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "tab-context" and self._context_wanted:
            self.refresh_context()

    @work(thread=True, exclusive=True, group="context", exit_on_error=False, description="Working out the context")
    def compute_context(self, session: Session, proposal_id: str | None) -> None:
        whole = self._whole(session)
        now = context_text(session_wire_context(whole))
        if whole is not session:
            let_go(whole)
        after: str | None = None
        note = "no open proposal: run one (r) to see the context it leaves"
        if proposal_id is not None:
            context = context_after_accept(self.desk.store, proposal_id)
            after = context_text(context) if context is not None else None
            note = (
                ""
                if context is not None
                else "cutline cannot tell what this session sends after the proposal (see the accept dialog)"
            )
        self.post_message(ContextReady(now, after, note))

    @on(ContextReady)
    def _context_ready(self, message: ContextReady) -> None:
        self.query_one(ContextView).show(message.now, message.after, message.after_note)

    def action_history(self) -> None:
        if self._queue("history"):
            return
        if self.session is None:
            return
        stored = self._stored
        compactions = [i for i, kind in enumerate(stored.kinds) if kind == "compaction"] if stored else None
        self.app.push_screen(HistoryScreen(self.session.id, self.path, compactions), self._history_chosen)

    def _history_chosen(self, choice: HistoryChoice | None) -> None:
        """What a history row asked for: its audit, or its entry shown in the list."""
        from cutline.app.screens.audit import AuditScreen  # loaded when first used: not at the desk's start

        if choice is None or self.session is None:
            return
        what, key = choice
        if what == "audit-compaction":
            self.app.push_screen(AuditScreen(self.session.id, compaction_entry_id=key))
        elif what == "audit-proposal":
            self.app.push_screen(AuditScreen(self.session.id, proposal_id=key))
        elif not self.show_entry(key):
            self.notify(f"Entry {key} is not on the list's path.", timeout=4, markup=False)

    def action_audit(self) -> None:
        """Audit the compaction under the cursor, else the current proposal, else the latest compaction."""
        if self._queue("audit"):
            return
        from cutline.app.screens.audit import AuditScreen  # loaded when first used: not at the desk's start

        if self.session is None:
            return
        cursor = self.query_one(MessageList).cursor
        entry = self.path[cursor] if 0 <= cursor < len(self.path) else None
        if entry is not None and entry.type == "compaction":
            self.app.push_screen(AuditScreen(self.session.id, compaction_entry_id=entry.id))
        elif self.proposal is not None:
            self.app.push_screen(AuditScreen(self.session.id, proposal_id=self.proposal.id))
        elif (
            "compaction" in self._stored.kinds
            if self._stored is not None
            else any(e.type == "compaction" for e in self.path)
        ):
            self.app.push_screen(AuditScreen(self.session.id))
        else:
            self.notify(
                "This session has no compaction and no proposal yet: run one (r), then audit what it would lose.",
                title="Nothing to audit",
                timeout=6,
                markup=False,
            )

    def action_export_session(self) -> None:
        if self._queue("export_session"):
            return
        if self.session is not None:
            self._export_session(self.session)

    def action_export_timeline(self) -> None:
        if self._queue("export_timeline"):
            return
        if self.session is not None:
            self._export_timeline(self.session, self.settings)

    @work(thread=True, group="export", exit_on_error=False, description="Exporting the session")
    def _export_session(self, session: Session) -> None:
        from cutline.core.agents.pi.writer import export_pi  # loaded when first used: not at the desk's start

        whole = self._whole(session)
        text = export_pi(whole)
        if whole is not session:
            let_go(whole)
        self.app.call_from_thread(
            self.desk.deliver_download, text, f"{download_stem(session)}.jsonl", "application/x-ndjson"
        )

    @work(thread=True, group="export", exit_on_error=False, description="Drawing the timeline")
    def _export_timeline(self, session: Session, settings: CompactionSettings) -> None:
        from cutline.core.audit.timeline import (
            build_timeline,
            render_svg,
        )  # loaded when first used: not at the desk's start

        whole = self._whole(session)
        svg = render_svg(build_timeline(whole, settings), title=f"cutline — {download_stem(session)}")
        if whole is not session:
            let_go(whole)
        self.app.call_from_thread(
            self.desk.deliver_download, svg, f"{download_stem(session)}-timeline.svg", "image/svg+xml"
        )


def download_stem(session: Session) -> str:
    """A file-name-safe stem for a session's downloads."""
    raw = session.name or (Path(session.source_path).stem if session.source_path else session.id)
    stem = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in raw).strip("-.")
    return stem or "session"


def let_go(session: Session) -> None:
    """Free a session rebuilt for one job a slice of entries at a time (see `Session.let_go`)."""
    session.let_go()
