"""The mode and rule-set registries: every configurable mode is registered, and the engine plans through them."""

from __future__ import annotations

import sys
import types

import pytest

from cutline.core import agent_releases
from cutline.core.config.settings import MODES as SETTING_MODES
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine import modes
from cutline.core.engine.compaction_plan import CompactionPlan
from cutline.core.engine.modes.pi import PiMode
from cutline.core.engine.path_index import PathIndex
from cutline.core.engine.plan import plan
from cutline.core.engine.rules import DEFAULT_RULES, RULES, PlannerRules, get_rules
from cutline.core.errors import CutlineError
from cutline.core.models import Entry, Message, TextBlock


def _path() -> list[Entry]:
    entries: list[Entry] = []
    for i, role in enumerate(["user", "assistant", "user", "assistant"]):
        message = Message(role=role, content=[TextBlock(text=f"message {i} " * 50)])
        entries.append(Entry(id=f"e{i}", parentId=f"e{i - 1}" if i else None, type="message", message=message))
    return entries


def test_every_configurable_mode_is_registered() -> None:
    assert set(modes.MODES) == set(SETTING_MODES)
    for name, mode in modes.MODES.items():
        assert mode.name == name


def test_pi_and_safeguard_share_plans_and_the_seeds_do_not() -> None:
    assert modes.same_plans("pi", "safeguard")
    assert not modes.same_plans("pi", "first-and-tail")
    assert not modes.same_plans("first-and-tail", "system-and-summary")


def test_unknown_names_are_one_clear_error() -> None:
    with pytest.raises(CutlineError, match="unknown compaction mode 'nope'"):
        modes.get_mode("nope")
    with pytest.raises(CutlineError, match="unknown planner rules 'pi-9'"):
        get_rules("pi-9")
    with pytest.raises(CutlineError, match="unknown planner rules"):
        plan(_path(), CompactionSettings(keepRecentTokens=10), rules="pi-9")


def test_the_engine_plans_through_the_registry_and_the_named_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule set registered under a new name is what `plan` uses for the pi modes: the seam the next rule sets fill."""
    asked: list[str] = []

    class Recording:
        name = "recording"

        def plan(self, request: object) -> CompactionPlan:
            asked.append(getattr(request, "mode", ""))
            return RULES[DEFAULT_RULES].plan(request)  # type: ignore[arg-type]

    recording: PlannerRules = Recording()
    folder = types.ModuleType("throwaway.recording")
    folder.PLANNER = recording  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, folder.__name__, folder)
    monkeypatch.setattr(
        agent_releases, "RELEASES", [*agent_releases.RELEASES, agent_releases.Release("recording", folder.__name__, "")]
    )
    settings = CompactionSettings(keepRecentTokens=10)
    assert plan(_path(), settings, rules="recording") == plan(_path(), settings)
    assert plan(_path(), settings.with_overrides(mode="safeguard"), rules="recording").mode == "safeguard"
    assert asked == ["pi", "safeguard"]

    class Other(PiMode):
        @property
        def name(self) -> str:
            return "pi"

        def plan(
            self, index: PathIndex, settings: CompactionSettings, rules: PlannerRules, *, entry_tokens: bool
        ) -> CompactionPlan:
            result = super().plan(index, settings, rules, entry_tokens=entry_tokens)
            result.explanation = result.explanation[:1]
            return result

    monkeypatch.setitem(modes.MODES, "pi", Other())
    assert len(plan(_path(), settings).explanation) == 1
