"""One folder per agent release, one registry line each: every folder has each part, and a new one is seen everywhere."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from cutline.core import agent_releases, choices
from cutline.core.engine.rules import RULES, get_rules
from cutline.core.engine.rules.choice import canonical, label
from tests.support.paths import ROOT

RELEASES_DIR = ROOT / "core" / "releases"
SESSION = ROOT / "sample_sessions" / "pi-coding-session.jsonl"


def test_every_registered_release_folder_provides_each_part() -> None:
    folders = sorted(p.name for p in RELEASES_DIR.iterdir() if (p / "__init__.py").is_file())
    assert folders == sorted(r.folder for r in agent_releases.RELEASES), "a folder without a registry line, or back"
    for release in agent_releases.RELEASES:
        folder = agent_releases.load(release.name)
        assert release.name == folder.NAME
        assert folder.PLANNER.name == release.name and callable(folder.PLANNER.plan)
        assert inspect.iscoroutinefunction(folder.SUMMARY), f"{release.name}: no summary flow"
        assert isinstance(folder.GUARD_SECTIONS, tuple) and all(isinstance(s, str) for s in folder.GUARD_SECTIONS)
        assert (RELEASES_DIR / release.folder / "planner.py").is_file()
        if hasattr(folder, "DECIDE"):  # a planner split into decide, then explain
            assert callable(folder.DECIDE) and callable(folder.EXPLAIN)
        assert RULES[release.name] is folder.PLANNER is get_rules(release.name)
        for alias in release.aliases:
            assert canonical(alias) == release.name
    assert choices.RULE_SETS == agent_releases.names() == tuple(RULES)
    # OpenClaw's guard asks its five sections; no other release's does
    assert [r.name for r in agent_releases.RELEASES if agent_releases.load(r.name).GUARD_SECTIONS] == [
        "openclaw-2026.9"
    ]


# A copy of current pi's folder under a new name: its planner reports the new name, the rest is pi 0.87's.
THROWAWAY = """
from cutline.core.releases.pi_0_87 import GUARD_SECTIONS, PLANNER as _PI, SUMMARY

NAME = "pi-0.90"


class _Planner:
    name = NAME

    def plan(self, request):
        return _PI.plan(request).model_copy(update={"rules": NAME})


PLANNER = _Planner()
"""

# Run in a fresh interpreter: the one registry line is added before any front end is imported.
PROBE = """
import json, sys
from click.testing import CliRunner
from cutline.core import agent_releases
agent_releases.RELEASES.append(agent_releases.Release("pi-0.90", "throwaway.pi_0_90", "pi 0.90", ("pi-0.90.0",)))

from cutline.app.cli import cli
from cutline.app.widgets import settings_panel
from cutline.core import choices
from cutline.core.config.file import load_settings
from cutline.core.engine.rules import get_rules
from cutline.core.engine.rules.choice import canonical, label

session, db, config = sys.argv[1:4]
runner = CliRunner()
out = {
    "choices": list(choices.RULE_SETS),
    "panel": list(settings_panel.RULES),
    "planner": get_rules("pi-0.90").name,
    "alias": canonical("pi-0.90.0"),
    "label": label("pi-0.90"),
    "help": {c: runner.invoke(cli, [c, "--help"]).output for c in ("plan", "compact")},
    "plan": runner.invoke(cli, ["plan", "--json", "--rules", "pi-0.90", "--db", db, session]).output,
    "compact": runner.invoke(
        cli, ["compact", "--json", "--rules", "pi-0.90", "--summarizer", "extractive", "--db", db, session]
    ).output,
    "config": load_settings(config).rules,
}
print(json.dumps(out))
"""


def test_adding_a_release_is_one_folder_and_one_registry_line(tmp_path: Path) -> None:
    package = tmp_path / "throwaway" / "pi_0_90"
    package.mkdir(parents=True)
    (tmp_path / "throwaway" / "__init__.py").write_text("")
    (package / "__init__.py").write_text(textwrap.dedent(THROWAWAY))
    config = tmp_path / "config.toml"
    config.write_text('[compaction]\nrules = "pi-0.90"\n')
    session = tmp_path / SESSION.name
    session.write_bytes(SESSION.read_bytes())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT.parent)])}
    env.update(CUTLINE_HOME=str(tmp_path / "home"), HOME=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(session), str(tmp_path / "s.db"), str(config)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["choices"][-1] == "pi-0.90" and seen["panel"][-1] == "pi-0.90"
    assert (seen["planner"], seen["alias"], seen["label"]) == ("pi-0.90", "pi-0.90", "pi 0.90")
    for command, text in seen["help"].items():
        assert "pi-0.90" in text, command
    assert json.loads(seen["plan"])["rules"] == "pi-0.90"
    assert json.loads(seen["compact"])["rules"] == "pi-0.90"
    assert seen["config"] == "pi-0.90"
    # and the registry is back as it was in this process
    assert "pi-0.90" not in choices.RULE_SETS and label("pi-0.90") == "pi-0.90"
