"""Which planner rule set a session calls for: its own entries tell, else the override or the settings decide.

`pi-0.73` is pi 0.73.1 (`@mariozechner/pi-coding-agent`), `pi` is current pi (0.87.1,
the same planner as 1.5.2), `openclaw-2026.9` is OpenClaw 2026.9. A session shows its
writer: system, `context_edit` or `usage` entries only exist in current pi's files,
`reset` entries, version-4 headers and OpenClaw stores only in OpenClaw's.
"""

from __future__ import annotations

from cutline.core.engine.path_index import PathIndex
from cutline.core.errors import CutlineError
from cutline.core.models import Entry

PI_073 = "pi-0.73"
PI_CURRENT = "pi"
OPENCLAW = "openclaw-2026.9"
ALIASES = {
    "pi-0.73.1": PI_073,
    "pi-current": PI_CURRENT,
    "pi-0.87": PI_CURRENT,
    "pi-0.87.1": PI_CURRENT,
    "pi-1.5.2": PI_CURRENT,
    "openclaw": OPENCLAW,
    "openclaw-2026.9.6": OPENCLAW,
}


def canonical(name: str) -> str:
    """A rule set's name with aliases (`pi-0.87`, `openclaw`, …) resolved; an unknown name is one clear error."""
    from cutline.core.engine.rules import RULES

    resolved = ALIASES.get(name, name)
    if resolved not in RULES:
        raise CutlineError(f"unknown planner rules {name!r} (known: {', '.join(sorted(RULES))})")
    return resolved


def evidence(path: list[Entry], session_format: str | None = None, version: int | None = None) -> str | None:
    """The rule set a session's own records call for, or None when they do not tell."""
    if session_format == "openclaw" or version == 4:
        return OPENCLAW
    if any(entry.type == "other" and entry.sourceType == "reset" for entry in path):
        return OPENCLAW
    for entry in path:
        if entry.type in ("context_edit", "usage"):
            return PI_CURRENT
        message = entry.message
        # a pi message record (Claude Code's and Codex's system records have other source types)
        if (
            entry.type == "message"
            and entry.sourceType == "message"
            and message is not None
            and message.role == "system"
        ):
            return PI_CURRENT
    return None


def choose(
    path: list[Entry],
    setting: str | None = None,
    override: str | None = None,
    *,
    session_format: str | None = None,
    version: int | None = None,
) -> str:
    """An explicit override, else what the session shows, else the `rules` setting, else current pi."""
    if override:
        return canonical(override)
    return evidence(path, session_format, version) or canonical(setting or PI_CURRENT)


def choose_for_index(index: PathIndex, setting: str | None = None, override: str | None = None) -> str:
    """`choose` for an indexed path, the session's evidence cached on the index."""
    if override:
        return canonical(override)
    cache: dict[str, object] = index.__dict__.setdefault("_rules_cache", {})
    if "evidence" not in cache:
        cache["evidence"] = evidence(index.path)
    found = cache["evidence"]
    return found if isinstance(found, str) else canonical(setting or PI_CURRENT)
