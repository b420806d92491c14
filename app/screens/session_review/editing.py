"""The summary editor tab: versions saved as typed (autosaved), diffed and reverted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.widgets import Static, TabbedContent, TextArea

from cutline.app.screens.session_review.messages import (
    VersionSaved,
)
from cutline.app.screens.session_review.state import ReviewState, chars4_tokens
from cutline.app.screens.versions import DiffScreen
from cutline.app.widgets.labels import plural
from cutline.app.widgets.proposal_view import ProposalView
from cutline.core import workbench

if TYPE_CHECKING:
    from cutline.core.review import Origin


class Editing(ReviewState):
    """The summary editor tab: versions saved as typed (autosaved), diffed and reverted."""

    def _show_proposal(self, load_editor: bool = False) -> None:
        self.query_one(ProposalView).show(self.proposal, self._current_text(), self.proposal_status)
        editor = self.query_one("#summary-editor", TextArea)
        if self.proposal is None:
            editor.disabled = True
            self.query_one("#editor-tokens", Static).update(Text("no proposal to edit yet", style="dim"))
            self._update_gauge()
            return
        editable = self.proposal_status == "open"
        # the editor being typed in stays focused when the proposal stops being editable under it (a decision
        # made elsewhere): read-only, it swallows the letters, which never run as the screen's commands
        editor.read_only = not editable
        editor.disabled = not editable and not editor.has_focus
        if load_editor:
            self._load_editor(editor, self._current_text() or "")
        self._update_editor_tokens(self._current_text() or "")
        self._update_saved_label()
        self._update_gauge()
        self.refresh_bindings()

    def _load_editor(self, editor: TextArea, text: str) -> None:
        """Put `text` in the editor; the same text (a reload under the person typing) leaves the cursor where it is."""
        if editor.text == text:
            return
        self._loading_editor = True
        editor.load_text(text)
        self.call_after_refresh(self._editor_loaded)

    def _editor_loaded(self) -> None:
        self._loading_editor = False

    def action_edit(self) -> None:
        if self._queue("edit"):
            return
        if self.proposal is None:
            return
        self.query_one(TabbedContent).active = "tab-summary"
        editor = self.query_one("#summary-editor", TextArea)
        if not editor.disabled:
            editor.focus()

    def _update_editor_tokens(self, text: str) -> None:
        chars4 = chars4_tokens(text)
        label = Text()
        label.append(f"{chars4:,}", style="bold")
        label.append(" tokens (chars4)")
        if self.proposal is not None and self.plan is not None:
            label.append(f" · ≈{self.plan.keptTokens + chars4:,} after", style="dim")
        if self.proposal_status != "open":
            label.append(f" · {self.proposal_status}, read-only", style="bold")
        self.query_one("#editor-tokens", Static).update(label)

    def _update_saved_label(self) -> None:
        if self.pending_text is not None:
            text = "editing… (autosaved)"
        elif self.versions:
            last = self.versions[-1]
            text = f"v{last.n} {last.origin} · {plural(len(self.versions), 'version', 'versions')}"
        else:
            text = ""
        self.query_one("#editor-saved", Static).update(Text(text))

    @on(TextArea.Changed, "#summary-editor")
    def _summary_edited(self, event: TextArea.Changed) -> None:
        if self._loading_editor or self.proposal is None:
            return
        text = event.text_area.text
        if self.versions and text == self.versions[-1].text:
            self.pending_text = None
        else:
            self.pending_text = text
        self._update_editor_tokens(text)
        self._update_saved_label()
        self._update_gauge()
        if self._autosave is not None:
            self._autosave.stop()
        self._autosave = self.set_timer(self.desk.autosave_seconds, self._autosave_now)

    @on(TabbedContent.TabActivated, "#side")
    def _proposal_shown(self, event: TabbedContent.TabActivated) -> None:
        """The proposal pane shows the text being typed (and the guard's verdict on it), not the last one saved."""
        if event.pane.id == "tab-proposal" and self.pending_text is not None:
            self.query_one(ProposalView).show(self.proposal, self._current_text(), self.proposal_status)

    def _autosave_now(self) -> None:
        self._autosave = None
        if self.pending_text is not None and self.proposal is not None:
            self.save_version(self.proposal.id, self.pending_text, "edited")

    @work(thread=True, group="autosave", exit_on_error=False, description="Saving the summary")
    def save_version(self, proposal_id: str, text: str, origin: Origin) -> None:
        row = workbench.save_edit(self.desk.store, proposal_id, text, origin)
        self.post_message(VersionSaved(self._version(row)))

    @on(VersionSaved)
    def _version_saved(self, message: VersionSaved) -> None:
        version = message.version
        if not any(v.n == version.n for v in self.versions):
            self.versions.append(version)
            self.versions.sort(key=lambda v: v.n)
        if self.pending_text == version.text:
            self.pending_text = None
        self._update_saved_label()
        self.query_one(ProposalView).show(self.proposal, self._current_text(), self.proposal_status)
        self.refresh_context()

    def flush_pending(self) -> None:
        """Save an edit that the debounce timer has not saved yet (on quit, back, accept, run)."""
        if self._autosave is not None:
            self._autosave.stop()
            self._autosave = None
        if self.pending_text is None or self.proposal is None:
            return
        row = workbench.save_edit(self.desk.store, self.proposal.id, self.pending_text)
        version = self._version(row)
        self.versions.append(version)
        self.pending_text = None

    def action_diff(self) -> None:
        if self._queue("diff"):
            return
        if self.proposal is None:
            return
        self.flush_pending()
        if len(self.versions) < 1:
            return

        def chosen(result: int | None) -> None:
            if result is not None:
                self.revert_to(result)

        self.app.push_screen(DiffScreen(self.versions), chosen)

    def revert_to(self, n: int) -> None:
        version = next((v for v in self.versions if v.n == n), None)
        if version is None or self.proposal is None or self.proposal_status != "open":
            return
        self.save_version(self.proposal.id, version.text, "reverted")
        self.pending_text = None
        self._loading_editor = True
        self.query_one("#summary-editor", TextArea).load_text(version.text)
        self.call_after_refresh(self._editor_loaded)
        self._update_editor_tokens(version.text)
        self.set_status(f"reverted to v{n}")
