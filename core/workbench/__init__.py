"""The workbench: one way to open, plan, propose, edit, accept and undo, that the CLI and the desk (and so the web) call.

Front ends parse, make one call here, and show the answer:

- `open_for_plan` (CLI) / `open_for_review` (desk): a stored session or a session file,
  its path held in the shape chosen here once (whole, a `PathWindow` of the stored
  path, or a `StoredPath` of its columns), with the plan's `PathIndex`.
- `PlanTarget.plan` / `core.engine.plan.plan` on `Opened.path_index`: the plan, with the
  rule set given or shown by the session (`rules_for`).
- `propose`: summarizer and model defaults, key checks, hooks, deadline, window; a
  `Proposal`, or a `Refusal` the caller shows (desk) or raises (CLI). `store_proposal` keeps it.
- `save_edit`, `accept_preview`, `accept`, `write_back_later`, `reject`, `undo_plan`, `undo`: the decision and its undo.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cutline.core.lazy import lazy_names

if TYPE_CHECKING:
    from cutline.core.workbench.deciding import (
        AcceptPreview,
        Latest,
        accept,
        accept_preview,
        latest_proposal,
        reject,
        save_edit,
        undo,
        undo_plan,
        write_back_later,
        write_back_of,
        written_back_to,
    )
    from cutline.core.workbench.opened import OpenedSession
    from cutline.core.workbench.opening import (
        LAZY_ENTRIES,
        PREVIEW_ENTRIES,
        Opened,
        Watcher,
        counted,
        index_for,
        open_for_review,
    )
    from cutline.core.workbench.planning import (
        PlanTarget,
        compaction_window,
        open_for_plan,
        plan_on,
        refuse_reserve_over_window,
        rules_for,
        session_id_for,
        settings_of_proposal,
        warmed,
    )
    from cutline.core.workbench.proposing import Refusal, checked_settings, propose, store_proposal, verdict

__all__ = [
    "LAZY_ENTRIES",
    "PREVIEW_ENTRIES",
    "AcceptPreview",
    "Latest",
    "Opened",
    "OpenedSession",
    "PlanTarget",
    "Refusal",
    "Watcher",
    "accept",
    "accept_preview",
    "checked_settings",
    "compaction_window",
    "counted",
    "index_for",
    "latest_proposal",
    "open_for_plan",
    "open_for_review",
    "plan_on",
    "propose",
    "refuse_reserve_over_window",
    "reject",
    "rules_for",
    "save_edit",
    "session_id_for",
    "settings_of_proposal",
    "store_proposal",
    "undo",
    "undo_plan",
    "verdict",
    "warmed",
    "write_back_later",
    "write_back_of",
    "written_back_to",
]

# The names above, each imported from its module when first asked for (PEP 562): `plan` imports the
# planning, not the proposing, deciding and review modules (and what they import) it never calls.
_LAZY: dict[str, str] = {
    "AcceptPreview": "cutline.core.workbench.deciding",
    "Latest": "cutline.core.workbench.deciding",
    "accept": "cutline.core.workbench.deciding",
    "accept_preview": "cutline.core.workbench.deciding",
    "latest_proposal": "cutline.core.workbench.deciding",
    "reject": "cutline.core.workbench.deciding",
    "save_edit": "cutline.core.workbench.deciding",
    "undo": "cutline.core.workbench.deciding",
    "undo_plan": "cutline.core.workbench.deciding",
    "write_back_later": "cutline.core.workbench.deciding",
    "write_back_of": "cutline.core.workbench.deciding",
    "written_back_to": "cutline.core.workbench.deciding",
    "OpenedSession": "cutline.core.workbench.opened",
    "LAZY_ENTRIES": "cutline.core.workbench.opening",
    "PREVIEW_ENTRIES": "cutline.core.workbench.opening",
    "Opened": "cutline.core.workbench.opening",
    "Watcher": "cutline.core.workbench.opening",
    "counted": "cutline.core.workbench.opening",
    "index_for": "cutline.core.workbench.opening",
    "open_for_review": "cutline.core.workbench.opening",
    "PlanTarget": "cutline.core.workbench.planning",
    "compaction_window": "cutline.core.workbench.planning",
    "open_for_plan": "cutline.core.workbench.planning",
    "plan_on": "cutline.core.workbench.planning",
    "refuse_reserve_over_window": "cutline.core.workbench.planning",
    "rules_for": "cutline.core.workbench.planning",
    "session_id_for": "cutline.core.workbench.planning",
    "settings_of_proposal": "cutline.core.workbench.planning",
    "warmed": "cutline.core.workbench.planning",
    "Refusal": "cutline.core.workbench.proposing",
    "checked_settings": "cutline.core.workbench.proposing",
    "propose": "cutline.core.workbench.proposing",
    "store_proposal": "cutline.core.workbench.proposing",
    "verdict": "cutline.core.workbench.proposing",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())
