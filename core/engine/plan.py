"""Where a compaction cuts, what it summarizes and keeps, and why: the settings' mode plans, the rule set decides the cut.

`plan` indexes the path (or takes a `PathIndex`), asks the mode registry
(`core.engine.modes`) for the settings' mode and the rule-set registry
(`core.engine.rules`) for the planner rules, and adds OpenClaw's window guard.
The names below are re-exported so callers keep importing them from here.
"""

from __future__ import annotations

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan, ExplanationStep, Span
from cutline.core.engine.modes import PI_FAMILY, get_mode
from cutline.core.engine.modes.system_and_summary import clean_history
from cutline.core.engine.path_index import PathIndex, index_path, js_sorted
from cutline.core.engine.plan_figures import n
from cutline.core.engine.rules import get_rules
from cutline.core.engine.rules.choice import choose_for_index
from cutline.core.engine.triggers import (
    CONTEXT_WINDOW_HARD_MIN_TOKENS,
    CONTEXT_WINDOW_WARN_BELOW_TOKENS,
    WindowSource,
    guard_context_window,
)
from cutline.core.models import Entry

__all__ = [
    "CompactionPlan",
    "ExplanationStep",
    "PathIndex",
    "Span",
    "clean_history",
    "index_path",
    "js_sorted",
    "plan",
]

_WINDOW_SOURCES: tuple[WindowSource, ...] = ("config", "model", "default")


def plan(
    path: list[Entry] | PathIndex,
    settings: CompactionSettings | None = None,
    counter: str = "chars4",
    tokens: list[int] | None = None,
    *,
    entry_tokens: bool = True,
    rules: str | None = None,
) -> CompactionPlan:
    """Plan a compaction of a path under the settings' mode; `tokens` are per-entry counts from `counter`.

    Pass a `PathIndex` (from `index_path`) to re-plan the same path cheaply. The planner
    rule set (for modes that cut as pi does) is `rules` when given, else the one the
    session's own entries call for, else the settings' `rules` (core.engine.rules.choice).
    """
    settings = settings or CompactionSettings()
    index = path if isinstance(path, PathIndex) else index_path(path, tokens, counter)
    chosen = get_rules(choose_for_index(index, settings.rules, rules))
    mode = get_mode(settings.mode)
    result = mode.plan(index, settings, chosen, entry_tokens=entry_tokens)
    if result.rules is None and mode.plan_family == PI_FAMILY:
        result.rules = chosen.name  # the rule set decided, an empty or already compacted path included
    return _with_window_guard(result)


def _window_source(text: str) -> WindowSource:
    """A plan's window source as the guard knows it (anything else counts as the default)."""
    return next((source for source in _WINDOW_SOURCES if source == text), "default")


def _window_guard_verdict(should_block: bool, should_warn: bool) -> str | None:
    """What OpenClaw's window guard says of a small window, None when it says nothing."""
    limits = f"(block below {n(CONTEXT_WINDOW_HARD_MIN_TOKENS)}, warn below {n(CONTEXT_WINDOW_WARN_BELOW_TOKENS)})"
    if should_block:
        return (
            f"below the hard minimum of {n(CONTEXT_WINDOW_HARD_MIN_TOKENS)} tokens: OpenClaw's window guard blocks it "
            + limits
        )
    if should_warn:
        return (
            f"below {n(CONTEXT_WINDOW_WARN_BELOW_TOKENS)} tokens: OpenClaw's window guard warns that it is small "
            + limits
        )
    return None


def _with_window_guard(result: CompactionPlan) -> CompactionPlan:
    """Attach OpenClaw's context-window guard; a window it warns about or blocks gets an explanation step too."""
    guard = guard_context_window(result.contextWindow, _window_source(result.contextWindowSource))
    result.windowGuard = guard
    verdict = _window_guard_verdict(guard.shouldBlock, guard.shouldWarn)
    if verdict is None:
        return result
    result.explanation.insert(
        0,
        ExplanationStep(
            step="window-guard",
            text=f"context window {n(guard.tokens)} ({guard.source}) is {verdict}",
            data={"contextWindow": guard.tokens, "shouldWarn": guard.shouldWarn, "shouldBlock": guard.shouldBlock},
        ),
    )
    return result
