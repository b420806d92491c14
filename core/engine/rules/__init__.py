"""Planner rule sets by name: each agent release's way of deciding where a compaction cuts.

A rule set is an object with a `name` and `plan(PlanRequest) -> CompactionPlan`
(the `PlannerRules` protocol in `base`). Modes that cut the way pi does (`pi`,
`safeguard`) hand the planning to the rule set they are given; the seed modes
plan on their own. The rule sets are the agent releases of `core.agent_releases`
(current pi, the default; pi 0.73.1; OpenClaw 2026.9; Qwen Code 0.24; opencode 1.18):
each one's planner is its folder's `PLANNER` (`core/releases/<release>/`), looked
up here by name. This package holds what the planners share: the request and protocol
(`base`), pi's walk (`walk`), the plan assembly (`assemble`), the estimates and the
choice of a session's rule set (`choice`). Adding one — another pi or OpenClaw
release — is a folder under `core/releases/` that decides first and describes after
(as `pi_0_73`'s `decide` and `explain` do) and a line in `core.agent_releases.RELEASES`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import cast

from cutline.core import agent_releases
from cutline.core.engine.rules.base import PlannerRules, PlanRequest
from cutline.core.errors import CutlineError


class _Rules(Mapping[str, PlannerRules]):
    """The registry's planners by rule-set name, read from `core.agent_releases` at each look-up."""

    def __getitem__(self, name: str) -> PlannerRules:
        if name not in agent_releases.names():
            raise KeyError(name)
        return cast(PlannerRules, agent_releases.load(name).PLANNER)

    def __iter__(self) -> Iterator[str]:
        return iter(agent_releases.names())

    def __len__(self) -> int:
        return len(agent_releases.RELEASES)


RULES: Mapping[str, PlannerRules] = _Rules()
DEFAULT_RULES = agent_releases.RELEASES[0].name

__all__ = ["DEFAULT_RULES", "RULES", "PlanRequest", "PlannerRules", "get_rules"]


def get_rules(name: str) -> PlannerRules:
    """The rule set called `name`; an unknown name is one clear error naming the known ones."""
    try:
        return RULES[name]
    except KeyError:
        known = ", ".join(sorted(RULES))
        raise CutlineError(f"unknown planner rules {name!r} (known: {known})") from None
