"""The keepRecentTokens that would leave something to summarize, when the settings' leave nothing.

Why: a session over its threshold whose recent tail alone is larger than keepRecentTokens
cannot be compacted under those settings; `plan` and `compact` say which value would work
instead of only that nothing can be done. Found with the planner itself (a binary search
over the value, re-planning the same index), so it agrees with what `compact` will do.
"""

from __future__ import annotations

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan
from cutline.core.engine.path_index import PathIndex
from cutline.core.engine.plan import plan


def over_threshold_with_nothing_to_summarize(result: CompactionPlan) -> bool:
    """The case `plan` used to call "would not compact yet": over the threshold, but no history to summarize."""
    return result.nothingToCompact and not result.alreadyCompacted and result.tokensBefore > result.threshold


def _summarizes(index: PathIndex, settings: CompactionSettings, keep: int, rules: str | None) -> bool:
    trial = settings.model_copy(update={"keepRecentTokens": keep})
    result = plan(index, trial, index.counter, entry_tokens=False, rules=rules)
    return not (result.nothingToCompact or result.alreadyCompacted or result.refusal)


def _round_down(value: int) -> int:
    """Two significant digits, rounded down (12,345 -> 12,000; 987 -> 980): a value a person types."""
    if value < 100:
        return value
    step = 10 ** (len(str(value)) - 2)
    rounded: int = value // step * step
    return rounded


def keep_recent_that_summarizes(index: PathIndex, settings: CompactionSettings, rules: str | None = None) -> int | None:
    """The largest round keepRecentTokens below the settings' whose plan summarizes something (None: no value does)."""
    low, high = 1, settings.keepRecentTokens - 1
    if high < low or not _summarizes(index, settings, low, rules):
        return None
    while low < high:  # the largest value that still summarizes: a smaller one only cuts later
        middle = (low + high + 1) // 2
        if _summarizes(index, settings, middle, rules):
            low = middle
        else:
            high = middle - 1
    rounded = _round_down(low)
    return rounded if rounded >= 1 and _summarizes(index, settings, rounded, rules) else low
