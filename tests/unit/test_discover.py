"""Sessions found where the agents keep them: `cutline ls --all` over a home laid out like the real programs' run directories.

The files are the conformance corpus's (written by Claude Code 2.1.331, Codex 0.169.0,
pi 0.73.1, pi 0.87.1, OpenClaw 2026.9.6 and Qwen Code 0.24.4), copied to where each program keeps them.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cutline.app.cli import cli
from cutline.core.agents.discover import discover

CORPUS = Path(__file__).parent.parent / "fixtures" / "corpus"
PLACES = {
    "claude-code/main/session.jsonl": ".claude/projects/-tmp-corpus-cc-work/01d5ea64-b45c-4d82-a149-b7563730cd7a.jsonl",
    "codex/main/rollout.jsonl": ".codex/sessions/2026/11/24/rollout-2026-11-24T23-48-22-01a20ff5-e38c-7183-a86e-1d0ed998ec34.jsonl",
    "pi-0.73/main/session.jsonl": ".pi/agent/sessions/--tmp-corpus-pi73-work--/2026-11-24T23-40-00-000Z_a.jsonl",
    "pi-0.87/main/session.jsonl": ".pi/agent/sessions/--tmp-corpus-pi-work--/2026-11-24T23-48-46-601Z_b.jsonl",
    "openclaw/main/session.sqlite": ".openclaw/agents/main/agent/openclaw-agent.sqlite",
    "qwen-code/main/session.jsonl": ".qwen/projects/-tmp-corpus-qwen-rLGa-work/chats/2349363a-f8fc-41c8-979f-c3ebffc2f705.jsonl",
}


def _lay_out(home: Path) -> dict[str, Path]:
    placed: dict[str, Path] = {}
    for source, place in PLACES.items():
        target = home / place
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CORPUS / source, target)
        placed[source] = target
    # newest first is by modification time: give each file its own (older than the OpenClaw store's last update)
    for n, target in enumerate(placed.values()):
        os.utime(target, (1_700_000_000 + n * 60, 1_700_000_000 + n * 60))
    return placed


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR", "OPENCLAW_STATE_DIR", "QWEN_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    return home


def test_every_programs_sessions_are_found_with_version_and_project(home: Path) -> None:
    _lay_out(home)
    found = discover()
    assert found.problems == []
    listed = {(s.agent, s.version) for s in found.sessions}
    assert listed == {
        ("Claude Code", "2.1.331"),
        ("Codex", "0.169.0"),
        ("pi", "v3"),
        ("pi", "v3 (0.87+)"),
        ("OpenClaw", "2026.9.6"),
        ("Qwen Code", "0.24.4"),
    }
    by_agent = {s.agent + (s.version or ""): s for s in found.sessions}
    assert by_agent["Codex0.169.0"].cwd == "/tmp/corpus-codex.1Clg/work"
    assert by_agent["Claude Code2.1.331"].cwd == "/tmp/corpus-cc.AqGE/work"
    assert by_agent["piv3 (0.87+)"].cwd == "/tmp/corpus-pi.GI2A/work"
    openclaw = by_agent["OpenClaw2026.9.6"]
    assert openclaw.ref.endswith("openclaw-agent.sqlite#cde7b62f-b5d2-453a-a896-24ee78fd4b51")
    assert openclaw.cwd == "/tmp/corpus-work/oc-scr/work"
    assert by_agent["Qwen Code0.24.4"].cwd == "/tmp/corpus-qwen.rLGa/work"
    assert [s.modified for s in found.sessions] == sorted((s.modified for s in found.sessions), reverse=True)


def test_agents_own_environment_variables_move_their_folders(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    placed = _lay_out(home)
    moved = home / "elsewhere"
    shutil.move(str(home / ".codex"), str(moved / "codex"))
    shutil.move(str(home / ".claude"), str(moved / "claude"))
    shutil.move(str(home / ".openclaw"), str(moved / "openclaw"))
    shutil.move(str(home / ".qwen"), str(moved / "qwen"))
    assert {s.agent for s in discover().sessions} == {"pi"}
    monkeypatch.setenv("CODEX_HOME", str(moved / "codex"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(moved / "claude"))
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(moved / "openclaw"))
    monkeypatch.setenv("QWEN_HOME", str(moved / "qwen"))
    assert {s.agent for s in discover().sessions} == {"pi", "Codex", "Claude Code", "OpenClaw", "Qwen Code"}
    assert placed


def test_ls_all_lists_them_newest_first_and_opening_one_stores_it(home: Path) -> None:
    placed = _lay_out(home)
    runner = CliRunner()
    result = runner.invoke(cli, ["ls", "--all"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["MODIFIED", "AGENT", "VERSION", "SIZE", "STORED", "PROJECT", "SESSION"]
    agents = [line.split("  ")[1].strip() for line in lines[1:]]
    assert agents == ["OpenClaw", "Qwen Code", "pi", "pi", "Codex", "Claude Code"]
    assert all(" - " in line for line in lines[1:])  # nothing stored yet
    ref = str(placed["pi-0.87/main/session.jsonl"].resolve())
    assert runner.invoke(cli, ["show", ref]).exit_code == 0
    data = json.loads(runner.invoke(cli, ["ls", "--all", "--json"]).output)
    stored = {s["ref"]: s["stored"] for s in data["sessions"]}
    assert stored[ref] is True
    assert sum(stored.values()) == 1


def test_a_file_that_cannot_be_looked_at_is_one_line(home: Path) -> None:
    store = home / ".openclaw" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    store.parent.mkdir(parents=True)
    store.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    result = CliRunner().invoke(cli, ["ls", "--all"])
    assert result.exit_code == 0
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(f"cutline: {store}")
