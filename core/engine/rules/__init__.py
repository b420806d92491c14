"""Planner rule sets by name: each agent version's way of deciding where a compaction cuts.

A rule set is an object with a `name` and `plan(PlanRequest) -> CompactionPlan`
(the `PlannerRules` protocol in `base`). Modes that cut the way pi does (`pi`,
`safeguard`) hand the planning to the rule set they are given; the seed modes
plan on their own. Four rule sets: `pi-0.73` (pi 0.73.1, exact), `pi` (current pi,
0.87.1 = 1.5.2, the default), `openclaw-2026.9`, `qwen-code-0.24` (Qwen Code 0.24.4) and `opencode-1.18` (opencode 1.18.33); `choice` picks one for a session.
Adding one — another pi or OpenClaw release — is adding a module here that
decides first and describes after (as `pi_073_decide`, `pi_073_explain` and `pi_073` do) and a line
in `RULES`. The `PathIndex` in a request holds pi 0.73's view of the path (its cut
points, message tokens, context estimate); a rule set that counts or cuts otherwise
(docs/rules/pi-current.md, docs/rules/openclaw-2026.9.md) indexes
`request.index.path` and `request.index.tokens` its own way.
"""

from __future__ import annotations

from cutline.core.engine.rules.base import PlannerRules, PlanRequest
from cutline.core.errors import CutlineError
from cutline.core.releases.openclaw_2026_9.planner import OPENCLAW_2026_9
from cutline.core.releases.opencode_1_18.planner import OPENCODE_1_18
from cutline.core.releases.pi_0_73.planner import PI_0_73
from cutline.core.releases.pi_0_87.planner import PI_CURRENT
from cutline.core.releases.qwen_code_0_24.planner import QWEN_CODE_0_24

RULES: dict[str, PlannerRules] = {
    r.name: r for r in (PI_CURRENT, PI_0_73, OPENCLAW_2026_9, QWEN_CODE_0_24, OPENCODE_1_18)
}
DEFAULT_RULES = PI_CURRENT.name

__all__ = ["DEFAULT_RULES", "RULES", "PlanRequest", "PlannerRules", "get_rules"]


def get_rules(name: str) -> PlannerRules:
    """The rule set called `name`; an unknown name is one clear error naming the known ones."""
    try:
        return RULES[name]
    except KeyError:
        known = ", ".join(sorted(RULES))
        raise CutlineError(f"unknown planner rules {name!r} (known: {known})") from None
