"""Which planner rule set a session calls for: its own entries tell, else the override or the settings decide.

`pi-0.73` is pi 0.73.1 (`@mariozechner/pi-coding-agent`), `pi` is current pi (0.87.1,
the same planner as 1.5.2), `openclaw-2026.9` is OpenClaw 2026.9. A session shows its
writer: system, `context_edit` or `usage` entries only exist in current pi's files,
`reset` entries, version-4 headers and OpenClaw stores only in OpenClaw's.
"""

from __future__ import annotations

from typing import NamedTuple

from cutline.core import agent_releases
from cutline.core.engine.path_index import PathIndex
from cutline.core.errors import CutlineError
from cutline.core.models import Entry

PI_073 = "pi-0.73"
PI_CURRENT = "pi"
OPENCLAW = "openclaw-2026.9"
QWEN_CODE = "qwen-code-0.24"
OPENCODE = "opencode-1.18"


def canonical(name: str) -> str:
    """A rule set's name with aliases (`pi-0.87`, `openclaw`, …) resolved; an unknown name is one clear error."""
    release = agent_releases.find(name)
    if release is None:
        raise CutlineError(f"unknown planner rules {name!r} (known: {', '.join(sorted(agent_releases.names()))})")
    return release.name


def evidence(path: list[Entry], session_format: str | None = None, version: int | None = None) -> str | None:
    """The rule set a session's own records call for, or None when they do not tell."""
    if session_format == "qwen_code":
        return QWEN_CODE
    if session_format == "opencode":
        return OPENCODE
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
        flags = index.evidence_flags  # an index built from stored facts knows without walking its path
        cache["evidence"] = (
            evidence(index.path) if flags is None else OPENCLAW if flags[0] else PI_CURRENT if flags[1] else None
        )
    found = cache["evidence"]
    return found if isinstance(found, str) else canonical(setting or PI_CURRENT)


class Writer(NamedTuple):
    """The rule set a past compaction is explained with, why, and whether the file told (else it was assumed)."""

    rules: str
    reason: str
    told: bool


def _current_pi_sign(path: list[Entry]) -> str | None:
    """What on a pi path shows current pi (0.87 or later) wrote it, None when nothing does."""
    for entry in path:
        kind = entry.sourceType if entry.type in ("other", "context_edit", "usage") else None
        if kind in ("context_edit", "usage"):
            return f"{kind} entries"
        message = entry.message
        if (
            entry.type == "message"
            and entry.sourceType == "message"
            and message is not None
            and message.role == "system"
        ):
            return "a system entry"
        if (
            entry.type == "compaction"
            and '"systemMessage"' in entry.raw_line
            and isinstance(entry.raw.get("systemMessage"), dict)
        ):
            return "a compaction with a systemMessage"
    return None


def written_by(
    path: list[Entry],
    session_format: str | None = None,
    version: int | None = None,
    setting: str | None = None,
    override: str | None = None,
) -> Writer:
    """The rules of the agent version that wrote `path` (a compaction and what led to it), with the reason.

    OpenClaw: an OpenClaw store, a version-4 header or `reset` entries. Current pi: system
    entries, `context_edit` or `usage` entries, or compactions carrying a `systemMessage`.
    pi 0.73: a pi file with none of these — pi 0.87 and later write a system entry when a
    session starts, so a file without one was written by an older pi. Other formats do not
    tell: the `rules` setting (else current pi) is assumed, and the reason says so.
    """
    if override:
        return Writer(canonical(override), "given explicitly", True)
    if session_format == "openclaw":
        return Writer(OPENCLAW, "an OpenClaw store: OpenClaw 2026.9 wrote it", True)
    if session_format == "qwen_code":
        return Writer(QWEN_CODE, "a Qwen Code chat: Qwen Code 0.24 wrote it", True)
    if session_format == "opencode":
        return Writer(OPENCODE, "an opencode store: opencode 1.18 wrote it", True)
    if version == 4:
        return Writer(OPENCLAW, "a version-4 header: OpenClaw 2026.9 wrote it", True)
    if any(entry.type == "other" and entry.sourceType == "reset" for entry in path):
        return Writer(OPENCLAW, "reset entries: OpenClaw 2026.9 wrote it", True)
    sign = _current_pi_sign(path)
    if sign is not None:
        return Writer(PI_CURRENT, f"{sign}: current pi (0.87 or later) wrote it", True)
    if session_format == "pi":
        return Writer(
            PI_073,
            "no system entry, which pi 0.87 and later write when a session starts: pi 0.73 (or older) wrote it",
            True,
        )
    assumed = canonical(setting or PI_CURRENT)
    source = "the rules setting" if setting else "the default"
    return Writer(assumed, f"assumed ({source}): a {session_format or 'session'} file does not tell", False)


def label(rules: str) -> str:
    """A rule set as a person names the agent (the registry's label): `pi` is "current pi", `pi-0.73` "pi 0.73"."""
    release = agent_releases.find(rules)
    return release.label if release is not None and release.name == rules else rules


def resume_rules(writer: Writer, setting: str | None = None) -> str:
    """The rules `plan` and `compact` use for a file `writer` describes: those of the agent that will resume it.

    Only an older pi's file differs: it is explained with pi 0.73's rules (its writer) but
    planned with the `rules` setting's (else current pi's), the pi a user resumes it with.
    """
    if writer.rules == PI_073 and writer.reason != "given explicitly":
        return canonical(setting or PI_CURRENT)
    return writer.rules


def both_rules(planned: str, written: str) -> str | None:
    """Both rule sets in words when they differ ("current pi — the file was written by pi 0.73"), else None."""
    if planned == written:
        return None
    return f"{label(planned)} — the file was written by {label(written)}"
