"""Every registered name is offered everywhere a person picks one: the CLI's choices and help, the desk's settings panel, the settings' validation.

The names are listed once (core.choices); this holds the registries to them and every
front end to the registries: a mode, rule set, counter, summarizer or agent added to its
registry and missing from any of these fails here.
"""

from __future__ import annotations

import click
import pytest
from textual.app import App, ComposeResult
from textual.widgets import Select

from cutline.app.cli import cli
from cutline.app.widgets import settings_panel
from cutline.app.widgets.settings_panel import SettingsPanel
from cutline.core import choices
from cutline.core.agents.registry import ADAPTERS
from cutline.core.config.settings import CompactionSettings, settings_from_dict
from cutline.core.engine.modes import MODES as MODE_REGISTRY
from cutline.core.engine.rules import RULES as RULE_REGISTRY
from cutline.core.errors import CutlineError, SettingsError
from cutline.core.summarizers import get_summarizer
from cutline.core.tokens import get_counter

# every option of the CLI that picks from a vocabulary, and the names it must offer
VOCABULARIES = {
    "mode": choices.MODES,
    "rules": choices.RULE_SETS,
    "summarizer": choices.SUMMARIZERS,
}


def _commands(group: click.Group) -> list[click.Command]:
    found: list[click.Command] = []
    for command in group.commands.values():
        found.extend(_commands(command) if isinstance(command, click.Group) else [command])
    return found


def test_the_registries_implement_exactly_the_listed_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-used")  # built, never called
    assert tuple(MODE_REGISTRY) == choices.MODES
    assert sorted(RULE_REGISTRY) == sorted(choices.RULE_SETS)
    assert tuple(adapter.format for adapter in ADAPTERS) == choices.AGENTS
    for name in choices.COUNTERS:
        kwargs = {"ratio": 1.0} if name == "calibrated" else {}
        assert get_counter(name, **kwargs).name == name
    with pytest.raises(CutlineError, match=", ".join(choices.COUNTERS)):
        get_counter("words")
    for name in choices.SUMMARIZERS:
        assert get_summarizer(name) is not None
    with pytest.raises(CutlineError, match=", ".join(choices.SUMMARIZERS)):
        get_summarizer("haiku-writer")


def test_every_cli_choice_offers_every_registered_name() -> None:
    seen: set[str] = set()
    for command in _commands(cli):
        for param in command.params:
            if not isinstance(param, click.Option) or not isinstance(param.type, click.Choice):
                continue
            name = param.name or ""
            if name in VOCABULARIES:
                assert tuple(param.type.choices) == VOCABULARIES[name], (command.name, name)
                seen.add(name)
            elif name in ("counter", "counters"):
                offered = tuple(param.type.choices)
                assert offered in (choices.COUNTERS, choices.LOCAL_COUNTERS, choices.PROPOSAL_COUNTERS), command.name
                assert offered == tuple(c for c in choices.COUNTERS if c in offered)  # a subset in the listed order
                seen.add("counter")
    assert seen == {*VOCABULARIES, "counter"}


@pytest.mark.parametrize("command", ["plan", "compact", "audit"])
def test_help_texts_name_every_registered_choice(command: str) -> None:
    text = " ".join(cli.commands[command].get_help(click.Context(cli.commands[command])).split())
    for param in cli.commands[command].params:
        if isinstance(param, click.Option) and isinstance(param.type, click.Choice):
            for name in param.type.choices:
                assert str(name) in text, (command, param.name, name)


def test_the_settings_validation_takes_every_name_and_names_them_all_when_refusing() -> None:
    for field, names in (("mode", choices.MODES), ("rules", choices.RULE_SETS), ("summarizer", choices.SUMMARIZERS)):
        for name in names:
            assert getattr(CompactionSettings.model_validate({field: name}), field) == name
        with pytest.raises(SettingsError) as refused:
            settings_from_dict({field: "nonsense"})
        assert str(refused.value) == f"compaction.{field}: must be one of {', '.join(names)}"


def test_the_settings_panel_offers_every_registered_name() -> None:
    assert settings_panel.MODES == choices.MODES
    assert settings_panel.COUNTERS == choices.LOCAL_COUNTERS
    assert ("session", *choices.RULE_SETS) == settings_panel.RULES
    assert settings_panel.SUMMARIZERS == choices.SUMMARIZERS


@pytest.mark.parametrize("summarizer", choices.SUMMARIZERS)
async def test_the_settings_panel_shows_the_configured_summarizer(summarizer: str) -> None:
    """With `summarizer = "openai"` in config the panel showed "extractive": it offered 2 of the 3."""

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield SettingsPanel(CompactionSettings(summarizer=summarizer), id="settings")

    async with Host().run_test() as pilot:
        select = pilot.app.query_one("#setting-summarizer", Select)
        assert select.value == summarizer
        mode = pilot.app.query_one("#setting-mode", Select)
        counter = pilot.app.query_one("#setting-counter", Select)
        assert [value for _, value in select._options if value != Select.BLANK] == list(choices.SUMMARIZERS)
        assert [value for _, value in mode._options if value != Select.BLANK] == list(choices.MODES)
        assert [value for _, value in counter._options if value != Select.BLANK] == list(choices.LOCAL_COUNTERS)
