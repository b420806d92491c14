"""Compaction settings: defaults from pi/OpenClaw/the seeds, OpenClaw JSON5 and cutline TOML loading, key-naming errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cutline.core.config.file import load_config, load_settings
from cutline.core.config.openclaw import read_openclaw_config
from cutline.core.config.settings import CompactionSettings, settings_from_dict
from cutline.core.errors import SettingsError

OPENCLAW_EXAMPLE = """{
  // the seed's example (openclaw-compaction-system.md), JSON5 with comments and trailing commas
  agents: {
    defaults: {
      model: "anthropic/claude-opus-4-5",
      compaction: {
        mode: "safeguard",
        reserveTokensFloor: 24000,
        maxHistoryShare: 0.5,
        somethingOpenClawHas: 'ignored', /* cutline does not model it */
        memoryFlush: {
          enabled: true,
          softThresholdTokens: 6000,
          systemPrompt: "Session nearing compaction. Store durable memories now.",
          prompt: "Write any lasting notes to memory/YYYY-MM-DD.md; reply with NO_REPLY if nothing to store.",
        },
      },
    },
  },
  memory: { postCompaction: { enabled: true, prompt: 'Compaction completed. Read memory/ "today".' } },
}
"""


def test_defaults_mirror_pi_openclaw_and_the_seeds() -> None:
    s = CompactionSettings()
    assert (s.mode, s.reserveTokens, s.reserveTokensFloor, s.keepRecentTokens) == ("pi", 16384, 20000, 20000)
    assert (s.maxHistoryShare, s.lastTurnInjection, s.lastTurnMaxTokens) == (0.5, True, 2000)
    assert s.memoryFlush.enabled and s.memoryFlush.softThresholdTokens == 4000
    assert s.memoryFlush.prompt.startswith("Pre-compaction memory flush. Store durable memories now")
    assert s.memoryFlush.systemPrompt.endswith("You may reply, but usually NO_REPLY is correct.")
    assert not s.postCompaction.enabled
    assert (s.protectedTailMessages, s.compactionThresholdTokens, s.threshold, s.contextWindow) == (
        6,
        80000,
        200000,
        200000,
    )
    assert (s.summarizer, s.parts, s.maxChunkTokens, s.previewStyle) == ("extractive", 2, None, False)


def test_json5_reading(tmp_path: Path) -> None:
    config = tmp_path / "openclaw.json"
    config.write_text(OPENCLAW_EXAMPLE)
    data = read_openclaw_config(config)
    assert data["agents"]["defaults"]["compaction"]["reserveTokensFloor"] == 24000
    assert data["memory"]["postCompaction"]["prompt"] == 'Compaction completed. Read memory/ "today".'
    config.write_text('{"url": "http://x//y", /* c */ "a": [1, 2,], hex: 0x10, half: .5,}')
    assert read_openclaw_config(config) == {"url": "http://x//y", "a": [1, 2], "hex": 16, "half": 0.5}


def test_load_openclaw_config(tmp_path: Path) -> None:
    config = tmp_path / "openclaw.json"
    config.write_text(OPENCLAW_EXAMPLE)
    s = load_settings(tmp_path / "absent.toml", openclaw=config)
    assert s.mode == "safeguard"
    # OpenClaw 2026.9 retired reserveTokensFloor, maxHistoryShare and the memory flush prompts: not used
    assert s.reserveTokensFloor == 20000
    assert s.memoryFlush.softThresholdTokens == 6000
    assert s.memoryFlush.systemPrompt == CompactionSettings().memoryFlush.systemPrompt
    assert s.postCompaction.enabled and "today" in s.postCompaction.prompt
    assert s.keepRecentTokens == 20000  # untouched defaults stay


def test_openclaw_default_mode_means_pi(tmp_path: Path) -> None:
    config = tmp_path / "openclaw.json"
    config.write_text('{"agents": {"defaults": {"compaction": {"mode": "default"}}}}')
    assert load_settings(tmp_path / "none.toml", openclaw=config).mode == "pi"


def test_load_cutline_toml_then_overrides(cutline_home: Path) -> None:
    (cutline_home / "config.toml").write_text(
        '[compaction]\nmode = "first-and-tail"\nkeepRecentTokens = 5000\n[compaction.memoryFlush]\nsoftThresholdTokens = 100\n'
    )
    s = load_settings()
    assert s.mode == "first-and-tail" and s.keepRecentTokens == 5000 and s.memoryFlush.softThresholdTokens == 100
    s = load_settings(overrides={"keepRecentTokens": 7, "reserveTokens": None})
    assert s.keepRecentTokens == 7 and s.reserveTokens == 16384


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"keepRecentTokens": -1}, "compaction.keepRecentTokens: must be >= 0"),
        ({"maxHistoryShare": 0.95}, "compaction.maxHistoryShare: must be <= 0.9"),
        ({"maxHistoryShare": 0.05}, "compaction.maxHistoryShare: must be >= 0.1"),
        ({"mode": "fast"}, "compaction.mode: must be one of pi, safeguard, first-and-tail, system-and-summary"),
        ({"reserveTokens": "lots"}, "compaction.reserveTokens: must be a whole number"),
        ({"memoryFlush": {"softThresholdTokens": -5}}, "compaction.memoryFlush.softThresholdTokens: must be >= 0"),
        ({"keepRecentToken": 5}, "compaction.keepRecentToken: unknown key"),
        ({"contextWindow": 0}, "compaction.contextWindow: must be > 0"),
    ],
)
def test_invalid_values_name_the_key(data: dict, message: str) -> None:
    with pytest.raises(SettingsError) as info:
        settings_from_dict(data)
    assert str(info.value) == message


def test_bad_files_are_one_line_errors(tmp_path: Path) -> None:
    bad_toml = tmp_path / "c.toml"
    bad_toml.write_text("[compaction\n")
    with pytest.raises(SettingsError, match="not valid TOML"):
        load_settings(bad_toml)
    bad_json = tmp_path / "o.json"
    bad_json.write_text("{ agents: { defaults: ")
    with pytest.raises(SettingsError, match=r"o\.json:1: not valid JSON/JSON5 \(Unexpected end of input"):
        load_settings(tmp_path / "none.toml", openclaw=bad_json)
    with pytest.raises(SettingsError, match="cannot read OpenClaw config"):
        load_settings(tmp_path / "none.toml", openclaw=tmp_path / "missing.json")


def test_with_overrides_validates() -> None:
    s = CompactionSettings().with_overrides(keepRecentTokens=100, mode="safeguard")
    assert s.keepRecentTokens == 100 and s.mode == "safeguard"
    with pytest.raises(SettingsError, match=re.escape("compaction.reserveTokens: must be >= 0")):
        CompactionSettings().with_overrides(reserveTokens=-1)


def test_environment_overrides_the_file(cutline_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (cutline_home / "config.toml").write_text('[compaction]\nkeepRecentTokens = 5000\nmode = "safeguard"\n')
    monkeypatch.setenv("CUTLINE_COMPACTION__KEEPRECENTTOKENS", "7")
    monkeypatch.setenv("CUTLINE_COMPACTION__MEMORYFLUSH__SOFTTHRESHOLDTOKENS", "9")
    monkeypatch.setenv("CUTLINE_TUI__THEME", "cutline-light")
    s = load_settings()
    assert (s.keepRecentTokens, s.mode, s.memoryFlush.softThresholdTokens) == (7, "safeguard", 9)
    assert "contextWindow" not in s.model_fields_set  # only what was given counts as configured
    assert load_config().tui.theme == "cutline-light"
    assert load_settings(overrides={"keepRecentTokens": 11}).keepRecentTokens == 11  # flags win over both


def test_invalid_values_from_file_and_environment_name_the_key(
    cutline_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = cutline_home / "config.toml"
    config.write_text("[compaction]\nkeepRecentTokens = -1\n")
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert str(info.value) == "compaction.keepRecentTokens: must be >= 0"
    config.write_text("")
    monkeypatch.setenv("CUTLINE_COMPACTION__KEEPRECENTTOKENS", "lots")
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert str(info.value) == (
        "compaction.keepRecentTokens: must be a whole number (from CUTLINE_COMPACTION__KEEPRECENTTOKENS)"
    )
    monkeypatch.delenv("CUTLINE_COMPACTION__KEEPRECENTTOKENS")
    for text, message in [
        ("[compation]\nmode = 'pi'\n", "compation: unknown key"),
        ("compaction = 3\n", "compaction: must be a table of settings"),
        ("[hooks]\nentry_points = 'yes'\n", "hooks.entry_points: must be true, false or a list of package names"),
        ("[hooks]\ntimeout_seconds = 0\n", "hooks.timeout_seconds: must be > 0"),
        ('[keys]\n"review.run" = " "\n', "keys.review.run: must not be empty"),
        ("[compaction]\ntimeoutSeconds = 0\n", "compaction.timeoutSeconds: must be > 0"),
    ]:
        config.write_text(text)
        with pytest.raises(SettingsError) as info:
            load_config()
        assert str(info.value) == message


def test_deadline_defaults_follow_openclaw(tmp_path: Path) -> None:
    s = CompactionSettings()
    assert (s.timeoutSeconds, s.requestTimeoutSeconds, s.maxRetries) == (300, 180, 2)
    config = tmp_path / "openclaw.json"
    config.write_text("{agents: {defaults: {compaction: {timeoutSeconds: 45}}}}")
    assert load_settings(tmp_path / "none.toml", openclaw=config).timeoutSeconds == 45


def test_openclaw_2026_9_keys_are_read_and_retired_ones_reported(tmp_path: Path) -> None:
    from cutline.core.config.openclaw import retired_notice

    config = tmp_path / "openclaw.json"
    config.write_text(
        """{agents: {defaults: {compaction: {
          recentTurnsPreserve: 20, identifierPolicy: "custom", keepRecentTokens: 12000,
          qualityGuard: {enabled: false, maxRetries: 9}, postCompactionSections: ["Red Lines"],
          reserveTokensFloor: 30000, maxHistoryShare: 0.7, customInstructions: "x",
        }}}}"""
    )
    s = load_settings(tmp_path / "none.toml", openclaw=config)
    assert (s.recentTurnsPreserve, s.identifierPolicy, s.keepRecentTokens) == (12, "strict", 12000)
    assert (s.qualityGuard.enabled, s.qualityGuard.maxRetries) == (False, 3)
    assert s.postCompactionSections == ["Red Lines"]
    assert (s.reserveTokensFloor, s.maxHistoryShare, s.customInstructions) == (20000, 0.5, None)
    assert retired_notice(config) == (
        "openclaw.json: retired in OpenClaw 2026.9 and not used: agents.defaults.compaction.reserveTokensFloor, "
        "agents.defaults.compaction.maxHistoryShare, agents.defaults.compaction.customInstructions, "
        'agents.defaults.compaction.identifierPolicy "custom" (read as "strict")'
    )
    config.write_text('{"agents": {"defaults": {"compaction": {"keepRecentTokens": 1}}}}')
    assert retired_notice(config) is None
