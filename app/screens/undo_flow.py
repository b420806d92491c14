"""Undo a write-back from the desk, as `cutline undo` does: say what will be restored and from where, then undo.

When the agent wrote after the compaction, the workbench's undo refuses naming the
choices (`--branch`: continue from before the compaction, pi only; `--from-backup`:
restore the backup, a copy of the file as it is now kept); the desk offers them as keys.
Every store and file step runs in a thread worker that posts a typed message; the
screens that offer undo (the review screen, the history) mix this in.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual.message import Message
from textual.screen import Screen

from cutline.app.screens.modals import ChoiceScreen, ConfirmScreen
from cutline.app.widgets.safe_text import short_path
from cutline.core import workbench
from cutline.core.agents.writeback import UndoChoice, UndoNeedsChoice

if TYPE_CHECKING:
    from cutline.app.tui import CutlineApp
    from cutline.core.agents.writeback import UndoResult
    from cutline.core.session_writes import UndoPlan

# what each choice does, in `cutline undo`'s words (its option named, for who knows the CLI)
CHOICE_WORDS: dict[UndoChoice, tuple[str, str]] = {
    "branch": ("b", "Continue from before the compaction (--branch)"),
    "from_backup": ("f", "Restore the backup (--from-backup)"),
}


class UndoPlanned(Message):
    """What undoing would restore and from where, read from the store's record (before asking)."""

    def __init__(self, plan: UndoPlan) -> None:
        self.plan = plan
        super().__init__()


class UndoChoiceAsked(Message):
    """The agent wrote since: the exact file cannot be restored; the choices `cutline undo` names."""

    def __init__(self, plan: UndoPlan, reason: str, choices: tuple[UndoChoice, ...]) -> None:
        self.plan = plan
        self.reason = reason
        self.choices = choices
        super().__init__()


class Undone(Message):
    """The write-back was taken back: what undo did (its message names the file and any copy kept)."""

    def __init__(self, plan: UndoPlan, result: UndoResult) -> None:
        self.plan = plan
        self.result = result
        super().__init__()


def undo_question(plan: UndoPlan) -> tuple[str, str]:
    """The confirm dialog's intro and body: what will be restored, from where, and what follows."""
    intro = f"Undo proposal {plan.proposal_id}'s write-back to {short_path(plan.path)}?"
    choices = "--branch (continue from before the compaction) or --from-backup" if plan.branches else "--from-backup"
    lines = [
        f"Restores: {plan.restores.replace(plan.path, short_path(plan.path))}.",
        f"The proposal is open again afterwards. If the agent wrote since, nothing is changed and you choose: {choices}.",
    ]
    return intro, "\n\n".join(lines)


class AsksUndo:
    """Mixed into a desk screen: `start_undo(proposal_id)` asks, undoes in a worker, and calls `undone` when done."""

    def start_undo(self, proposal_id: str) -> None:
        """Read what undo would restore (worker), then ask."""
        screen = cast("Screen[Any]", self)
        screen.run_worker(
            partial(self._plan_undo, proposal_id),
            thread=True,
            group="undo",
            exclusive=True,
            exit_on_error=False,
            description="Reading the write-back record",
        )

    def _plan_undo(self, proposal_id: str) -> None:
        screen = cast("Screen[Any]", self)
        app = cast("CutlineApp", screen.app)
        screen.post_message(UndoPlanned(workbench.undo_plan(app.store, proposal_id)))

    def on_undo_planned(self, message: UndoPlanned) -> None:
        screen = cast("Screen[Any]", self)
        plan = message.plan
        intro, body = undo_question(plan)

        def answered(yes: bool | None) -> None:
            if yes:
                self._run_undo(plan, None)

        screen.app.push_screen(ConfirmScreen("Undo this write-back?", intro, body, "Undo"), answered)

    def _run_undo(self, plan: UndoPlan, choice: UndoChoice | None) -> None:
        screen = cast("Screen[Any]", self)
        screen.run_worker(
            partial(self._undo, plan, choice),
            thread=True,
            group="undo",
            exclusive=True,
            exit_on_error=False,
            description="Undoing the write-back",
        )

    def _undo(self, plan: UndoPlan, choice: UndoChoice | None) -> None:
        screen = cast("Screen[Any]", self)
        app = cast("CutlineApp", screen.app)
        try:
            result = workbench.undo(
                app.store, plan.proposal_id, branch=choice == "branch", from_backup=choice == "from_backup"
            )
        except UndoNeedsChoice as exc:
            offered = tuple(c for c in exc.choices if c != "branch" or plan.branches)
            screen.post_message(UndoChoiceAsked(plan, str(exc), offered))
            return
        screen.post_message(Undone(plan, result))

    def on_undo_choice_asked(self, message: UndoChoiceAsked) -> None:
        screen = cast("Screen[Any]", self)
        plan = message.plan
        choices = [(choice, *CHOICE_WORDS[choice]) for choice in message.choices]
        words = {
            "branch": "continue from before the compaction: a new branch in the file; the agent's later lines stay "
            "on the old one (--branch)",
            "from_backup": f"restore the backup made before the write-back ({plan.backup_path or 'none recorded'}); "
            "the file as it is now is kept in a copy (--from-backup)",
        }
        intro = "\n".join(
            [
                f"Nothing was changed: {message.reason}.",
                "",
                "You can:",
                *(f"  {CHOICE_WORDS[c][0]}: {words[c]}" for c in message.choices),
            ]
        )

        def chosen(choice: str | None) -> None:
            if choice == "branch":
                self._run_undo(plan, "branch")
            elif choice == "from_backup":
                self._run_undo(plan, "from_backup")

        screen.app.push_screen(ChoiceScreen("The agent wrote since: how to undo?", intro, choices), chosen)

    def on_undone(self, message: Undone) -> None:
        screen = cast("Screen[Any]", self)
        screen.notify(f"Undone: {message.result.message}", timeout=8, markup=False)
        self.undone(message.plan, message.result)

    def undone(self, plan: UndoPlan, result: UndoResult) -> None:
        """What the screen shows after an undo (the proposal is open again): the screen's."""
