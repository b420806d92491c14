"""Compaction modes by name: each mode owns its planning and its rebuild of the context.

A mode is an object satisfying `CompactionMode` (in `base`): its reserve and trigger
threshold, `plan(index, settings, rules)` and `rebuild(job, run)`, which summarizes
through the engine's `SummaryRun` and answers with a `Rebuilt` value; the engine
(`core.engine.plan.plan`, `core.engine.compact.compact`) looks the mode up here and
never branches on its name.

- `pi`: pi's compact(); `safeguard`: the same with OpenClaw's safeguard on top.
- `first-and-tail`, `system-and-summary`: the two other designs in the seeds.

Planner rule sets are the second seam (`core.engine.rules`): `pi` and `safeguard`
hand the cut to the rule set they are given — today `pi-0.73`; current pi and
OpenClaw's releases plug in there by name without touching the modes. Adding a mode
is adding a module here and a line in `MODES`.
"""

from __future__ import annotations

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.modes.base import PI_FAMILY, CompactionJob, CompactionMode, Rebuilt
from cutline.core.engine.modes.first_and_tail import FIRST_AND_TAIL
from cutline.core.engine.modes.pi import PI
from cutline.core.engine.modes.safeguard import SAFEGUARD
from cutline.core.engine.modes.system_and_summary import SYSTEM_AND_SUMMARY
from cutline.core.errors import CutlineError

MODES: dict[str, CompactionMode] = {mode.name: mode for mode in (PI, SAFEGUARD, FIRST_AND_TAIL, SYSTEM_AND_SUMMARY)}

__all__ = ["MODES", "PI_FAMILY", "CompactionJob", "CompactionMode", "Rebuilt", "get_mode", "reserve_for", "same_plans"]


def get_mode(name: str) -> CompactionMode:
    """The mode called `name`; an unknown name is one clear error naming the known ones."""
    try:
        return MODES[name]
    except KeyError:
        raise CutlineError(f"unknown compaction mode {name!r} (known: {', '.join(MODES)})") from None


def reserve_for(settings: CompactionSettings) -> int:
    """The reserve the settings' mode keeps (pi's own value, OpenClaw's floored one)."""
    return get_mode(settings.mode).reserve_tokens(settings)


def same_plans(a: str, b: str) -> bool:
    """Whether a plan made under mode `a` serves mode `b` (both plan alike, as pi and safeguard do)."""
    return a == b or get_mode(a).plan_family == get_mode(b).plan_family
