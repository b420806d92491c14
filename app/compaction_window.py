"""Whether a compaction of a stored session may read a window of its path instead of the whole session.

Why: `cutline compact` and the desk's run both summarize a 100,000-entry pi session
from the span after its latest compaction; rebuilding every entry as a model for it
cost ~2.3 s of CPU and ~900 MB. One rule for both, so they make the same proposal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cutline.core.agents.path_window import PathWindow
    from cutline.core.store import Store


def compaction_window(
    store: Store,
    session_id: str,
    mode: str,
    counter: str,
    rules: str | None,
    configured: str | None,
    *,
    flags_only: bool = False,
    lazy: bool = False,
) -> PathWindow | None:
    """The session's path as a `PathWindow` when a compaction reads only its end, else None (load the whole session).

    Windowed: pi files the store can window (`Sessions.path_window`), in mode `pi`, planned
    with pi 0.73's or current pi's rules (OpenClaw 2026.9's planner and context walk the
    whole path; the other modes were not checked entry by entry), with every entry's
    `counter` count cached. The rule set is `rules` when given, current pi where the
    session shows its signs, else the `configured` one (pi when none). The proposal is the same either way (tests compare them).
    `flags_only` is for a caller that has planned already, `lazy` for a process that plans
    or compacts once (both: `Sessions.path_window`).
    """
    from cutline.core.engine.rules.choice import OPENCLAW, canonical

    if mode != "pi":
        return None
    window = store.sessions.path_window(session_id, counter, flags_only=flags_only, lazy=lazy)
    if window is None:
        return None
    if canonical(rules or ("pi" if window.current_pi_sign() else None) or configured or "pi") == OPENCLAW:
        return None
    return window
