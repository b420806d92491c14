"""The agent releases cutline plans and summarizes as, one line each: the single list the rule sets derive from.

Each line names a release's rule set (as settings and the command line spell it), its
folder under `core/releases/`, how a person names the agent, and the other spellings
accepted for it. The folder holds the rest: its `PLANNER` (decide, then explain), its
`SUMMARY` flow, its quality-guard specifics `GUARD_SECTIONS` and its texts.
`core.choices.RULE_SETS`, the CLI's `--rules` choices and help texts, the settings'
validation, the desk's settings panel and the rule-set lookup (`core.engine.rules`) all
read this list, so adding "pi 0.90" is one folder (a copy of `pi_0_87`, changed) and one
line here.

Only the standard library here: the CLI reads the names at start-up. A folder is loaded
by name when a plan or a summary first needs it (so the engine, which looks releases up,
does not import the folders that build on it).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import NamedTuple


class Release(NamedTuple):
    """One agent release: its rule set's name, its folder, the agent as a person names it, other spellings."""

    name: str
    folder: str
    label: str
    aliases: tuple[str, ...] = ()

    @property
    def module(self) -> str:
        """The folder as an importable package (a dotted name is taken as given)."""
        return self.folder if "." in self.folder else f"cutline.core.releases.{self.folder}"


# the order is the order every front end offers them in; the first is the default
RELEASES: list[Release] = [
    Release("pi", "pi_0_87", "current pi", ("pi-current", "pi-0.87", "pi-0.87.1", "pi-1.5.2")),
    Release("pi-0.73", "pi_0_73", "pi 0.73", ("pi-0.73.1",)),
    Release("openclaw-2026.9", "openclaw_2026_9", "OpenClaw 2026.9", ("openclaw", "openclaw-2026.9.6")),
    Release("qwen-code-0.24", "qwen_code_0_24", "qwen-code-0.24", ("qwen-code", "qwen-code-0.24.4")),
    Release("opencode-1.18", "opencode_1_18", "opencode-1.18", ("opencode", "opencode-1.18.33")),
]


def names() -> tuple[str, ...]:
    """Every release's rule-set name, in the registry's order."""
    return tuple(release.name for release in RELEASES)


def find(name: str) -> Release | None:
    """The release called `name` or one of its aliases, None when none is."""
    for release in RELEASES:
        if name == release.name or name in release.aliases:
            return release
    return None


def load(name: str) -> ModuleType:
    """The folder of the release called `name` (imported once); KeyError when no release is called so."""
    release = find(name)
    if release is None:
        raise KeyError(name)
    return importlib.import_module(release.module)
