"""Planner rule sets by name, and which one a session calls for.

`pi-0.73` is pi 0.73.1 (`@mariozechner/pi-coding-agent`, today's engine), `pi` is
current pi (0.87.1, the same planner as 1.5.2), `openclaw-2026.9` is OpenClaw 2026.9.
A session shows its writer: system, `context_edit` or `usage` entries only exist in
current pi's files, `reset` entries and version-4 headers only in OpenClaw's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.plan import CompactionPlan, PathIndex
from cutline.core.errors import CutlineError
from cutline.core.models import Entry

PI_073 = "pi-0.73"
PI_CURRENT = "pi"
OPENCLAW = "openclaw-2026.9"
DEFAULT_RULES = PI_CURRENT
ALIASES = {
    "pi-0.73.1": PI_073,
    "pi-current": PI_CURRENT,
    "pi-0.87": PI_CURRENT,
    "pi-0.87.1": PI_CURRENT,
    "pi-1.5": PI_CURRENT,
    "pi-1.5.2": PI_CURRENT,
    "openclaw": OPENCLAW,
    "openclaw-2026.9.6": OPENCLAW,
}

Planner = Callable[[PathIndex, CompactionSettings, bool], CompactionPlan]


@dataclass(frozen=True)
class RuleSet:
    """A planner rule set: its name, the agent version it reproduces and its planner."""

    name: str
    agent: str
    planner: Planner


def _pi_073(index: PathIndex, settings: CompactionSettings, entry_tokens: bool) -> CompactionPlan:
    from cutline.core.engine.plan import _pi_plan

    result = _pi_plan(index, settings, entry_tokens)
    result.rules = PI_073
    return result


def _pi_current(index: PathIndex, settings: CompactionSettings, entry_tokens: bool) -> CompactionPlan:
    from cutline.core.engine.rules import pi_current

    return pi_current.plan(index, settings, entry_tokens)


def _openclaw(index: PathIndex, settings: CompactionSettings, entry_tokens: bool) -> CompactionPlan:
    from cutline.core.engine.rules import openclaw_2026_9

    return openclaw_2026_9.plan(index, settings, entry_tokens)


RULES: dict[str, RuleSet] = {
    PI_073: RuleSet(PI_073, "pi 0.73.1 (@mariozechner/pi-coding-agent)", _pi_073),
    PI_CURRENT: RuleSet(PI_CURRENT, "pi 0.87.1 = 1.5.2 (@earendil-works/pi-coding-agent)", _pi_current),
    OPENCLAW: RuleSet(OPENCLAW, "OpenClaw 2026.9.6", _openclaw),
}
RULE_NAMES: tuple[str, ...] = tuple(RULES)


def canonical(name: str) -> str:
    """A rule set's canonical name (aliases such as `pi-0.87` or `openclaw` accepted); a one-line error otherwise."""
    name = ALIASES.get(name, name)
    if name not in RULES:
        raise CutlineError(f"unknown rules {name!r}: use one of {', '.join(RULE_NAMES)}")
    return name


def evidence(path: list[Entry], session_format: str | None = None, version: int | None = None) -> str | None:
    """The rule set a session's own records call for, or None when they do not tell."""
    if session_format == "openclaw" or version == 4:
        return OPENCLAW
    for entry in path:
        if entry.type == "other" and entry.sourceType == "reset":
            return OPENCLAW
    for entry in path:
        if entry.type == "other" and entry.sourceType in ("context_edit", "usage"):
            return PI_CURRENT
        message = entry.message
        if (
            entry.type == "message"
            and entry.sourceType == "message"
            and message is not None
            and message.role == "system"
        ):
            return PI_CURRENT  # a pi message record (Claude Code's and Codex's system records are other types)
    return None


def choose(
    path: list[Entry],
    setting: str = DEFAULT_RULES,
    override: str | None = None,
    *,
    session_format: str | None = None,
    version: int | None = None,
) -> str:
    """An explicit override, else what the session shows, else the `rules` setting."""
    if override:
        return canonical(override)
    return evidence(path, session_format, version) or canonical(setting)


def choose_for_index(index: PathIndex, setting: str = DEFAULT_RULES, override: str | None = None) -> str:
    """`choose` for an indexed path, the session's evidence cached on the index."""
    if override:
        return canonical(override)
    cache: dict[str, object] = index.__dict__.setdefault("_rules_cache", {})
    if "evidence" not in cache:
        cache["evidence"] = evidence(index.path)
    found = cache["evidence"]
    return found if isinstance(found, str) else canonical(setting)


def plan_with_rules(
    index: PathIndex, settings: CompactionSettings, entry_tokens: bool = True, override: str | None = None
) -> CompactionPlan:
    """Plan with the rule set the session, the override or the settings choose."""
    name = choose_for_index(index, settings.rules, override)
    return RULES[name].planner(index, settings, entry_tokens)
