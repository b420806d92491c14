"""What a planner rule set is: an agent version's way of deciding where a compaction cuts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan
from cutline.core.engine.path_index import PathIndex


@dataclass(frozen=True)
class PlanRequest:
    """Everything a rule set plans from: the indexed path, the settings and what the mode fixes.

    `reserve` is the mode's reserve policy (pi's own value, or OpenClaw's floored one);
    `mode` names the plan; `entry_tokens` asks for every entry's count in the plan.
    """

    index: PathIndex
    settings: CompactionSettings
    mode: str
    reserve: int
    entry_tokens: bool = True


class PlannerRules(Protocol):
    """A planner rule set: `plan` answers a request with the cut, the figures and the steps that explain them."""

    @property
    def name(self) -> str:
        """The rule set's name, as settings and the command line spell it (e.g. `pi-0.73`)."""
        ...

    def plan(self, request: PlanRequest) -> CompactionPlan:
        """Plan a compaction of the request's path."""
        ...
