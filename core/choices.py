"""Every name a person picks from, listed once: modes, planner rule sets, token counters, summarizers, agents.

The CLI's `click.Choice`s, the desk's settings panel, the help texts and the settings'
validation all read these tuples; the registries that implement the names (the mode
registry `core.engine.modes.MODES`, the rule sets of `core.agent_releases.RELEASES`, the counters
of `core.tokens.get_counter`, `core.summarizers.get_summarizer`, the agent adapters of
`core.agents.registry.ADAPTERS`) are held to them by tests/unit/test_choices.py.

Only the standard library here: the CLI imports it at start-up (no pydantic; the release
registry is a plain list). Adding a name: implement it in its registry, add it here (a rule
set: a line in `core.agent_releases.RELEASES`), and every front end offers it.
"""

from __future__ import annotations

from cutline.core import agent_releases

# compaction modes (core.engine.modes)
MODES: tuple[str, ...] = ("pi", "safeguard", "first-and-tail", "system-and-summary")
# planner rule sets, one per agent release, from the release registry (core.agent_releases): current pi
# (0.87.1 = 1.5.2), pi 0.73.1, OpenClaw 2026.9, Qwen Code 0.24, opencode 1.18
RULE_SETS: tuple[str, ...] = agent_releases.names()
# token counters (core.tokens); the last ones count through a provider's API (a key, the network)
COUNTERS: tuple[str, ...] = ("chars4", "tiktoken", "calibrated", "anthropic")
NETWORK_COUNTERS: tuple[str, ...] = ("anthropic",)
# what the desk and the audit offer: the counters that work offline
LOCAL_COUNTERS: tuple[str, ...] = tuple(c for c in COUNTERS if c not in NETWORK_COUNTERS)
# what `cutline compact` counts a proposal with (the store caches their per-entry counts)
PROPOSAL_COUNTERS: tuple[str, ...] = ("chars4", "tiktoken")
# summarizers (core.summarizers): offline first
SUMMARIZERS: tuple[str, ...] = ("extractive", "anthropic", "openai")
# session formats of the agents cutline reads (core.agents.registry)
AGENTS: tuple[str, ...] = ("codex", "qwen_code", "claude_code", "openclaw", "pi", "opencode")


def listed(names: tuple[str, ...]) -> str:
    """Names for a help text: `a, b or c`."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
