"""`cutline hook install|uninstall` for pi and Claude Code, and Claude Code's PreCompact hook itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cutline.core.inbox.claude_code import pre_compact
from cutline.core.inbox.install import MARKER, PI_EXTENSION_NAME
from cutline.core.inbox.items import Inbox, NewItem
from cutline.core.store import Store
from tests.support.cli import run
from tests.support.paths import TESTS

CC_SESSION = TESTS / "fixtures" / "corpus" / "claude-code" / "main" / "session.jsonl"


def test_pi_install_writes_the_extension_with_this_socket_and_uninstall_removes_it(
    tmp_path: Path, cutline_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = tmp_path / "agent"
    target = agent / "extensions" / PI_EXTENSION_NAME
    code, out, _ = run(capsys, "hook", "install", "pi", "--agent-dir", str(agent), "--timeout", "30")
    assert code == 0
    assert f"pi: wrote {target} (socket {cutline_home / 'run' / 'inbox.sock'}, timeout 30 s)" in out
    text = (target / "index.js").read_text()
    assert MARKER in text
    assert 'from "./review-client.js"' in text and (target / "review-client.js").is_file()
    config = f'/* cutline:config */ {{"socket": "{cutline_home / "run" / "inbox.sock"}", "timeoutSeconds": 30.0}}'
    assert config in text
    assert 'pi.on("session_before_compact"' in text
    code, out, _ = run(capsys, "hook", "install", "pi", "--agent-dir", str(agent), "--timeout", "30")
    assert "already installed" in out and "nothing changed" in out
    code, out, _ = run(capsys, "hook", "uninstall", "pi", "--agent-dir", str(agent))
    assert out.strip() == f"pi: removed {target}"
    assert not target.exists()
    code, out, _ = run(capsys, "hook", "uninstall", "pi", "--agent-dir", str(agent))
    assert "nothing changed" in out


def test_pi_install_defaults_to_pis_own_agent_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    run(capsys, "hook", "install", "pi")
    assert (tmp_path / ".pi" / "agent" / "extensions" / PI_EXTENSION_NAME / "index.js").is_file()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "elsewhere"))
    run(capsys, "hook", "install", "pi")
    assert (tmp_path / "elsewhere" / "extensions" / PI_EXTENSION_NAME / "index.js").is_file()


def test_someone_elses_extension_of_the_same_name_is_never_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "extensions" / PI_EXTENSION_NAME / "index.js"
    target.parent.mkdir(parents=True)
    target.write_text("export default function () {}\n")
    for command in ("install", "uninstall"):
        code, _, err = run(capsys, "hook", command, "pi", "--agent-dir", str(tmp_path))
        assert code == 1 and "is not cutline's extension; nothing changed" in err
    assert target.read_text() == "export default function () {}\n"
    assert not (target.parent / "review-client.js").exists()


def test_pi_install_replaces_the_earlier_single_file_extension(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "extensions" / "cutline-review.js"
    old.parent.mkdir()
    old.write_text(f"// {MARKER} until a person answers\n")
    code, out, _ = run(capsys, "hook", "install", "pi", "--agent-dir", str(tmp_path))
    assert code == 0 and f"pi: removed the earlier single-file extension {old}" in out  # pi would hold twice
    assert not old.exists() and (tmp_path / "extensions" / PI_EXTENSION_NAME / "index.js").is_file()


def test_claude_code_install_adds_one_precompact_hook_and_uninstall_removes_exactly_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = tmp_path / "settings.json"
    theirs = {
        "model": "opus",
        "hooks": {
            "PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "their-script"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}],
        },
    }
    settings.write_text(json.dumps(theirs))
    code, out, _ = run(capsys, "hook", "install", "claude-code", "--settings", str(settings))
    assert code == 0 and "added a PreCompact hook" in out and "manual /compact passes through" in out
    data = json.loads(settings.read_text())
    groups = data["hooks"]["PreCompact"]
    assert groups[0] == theirs["hooks"]["PreCompact"][0]  # type: ignore[index]
    assert groups[1]["matcher"] == "auto"
    assert groups[1]["hooks"][0]["command"].endswith("-m cutline.app.cli hook run claude-code")
    assert data["hooks"]["Stop"] == theirs["hooks"]["Stop"]  # type: ignore[index]
    run(capsys, "hook", "install", "claude-code", "--settings", str(settings))  # again: still one
    assert len(json.loads(settings.read_text())["hooks"]["PreCompact"]) == 2
    code, out, _ = run(capsys, "hook", "uninstall", "claude-code", "--settings", str(settings))
    assert f"removed cutline's PreCompact hook from {settings}" in out
    assert json.loads(settings.read_text()) == theirs


def test_claude_code_install_refuses_settings_that_are_not_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text("{ not json")
    code, _, err = run(capsys, "hook", "install", "claude-code", "--settings", str(settings))
    assert code == 1 and str(settings) in err and "not valid JSON" in err
    assert settings.read_text() == "{ not json"


def test_claude_codes_automatic_compaction_is_blocked_and_put_in_the_inbox(tmp_path: Path) -> None:
    transcript = tmp_path / "session.jsonl"
    transcript.write_bytes(CC_SESSION.read_bytes())
    event = {
        "session_id": "abc-123",
        "transcript_path": str(transcript),
        "cwd": str(tmp_path),
        "hook_event_name": "PreCompact",
        "trigger": "auto",
        "custom_instructions": "",
    }
    out = pre_compact(json.dumps(event))
    answer = json.loads(out)
    assert answer["decision"] == "block"
    with Store() as store:
        [item] = Inbox(store).listing()
    assert answer["reason"] == (
        f"cutline holds this compaction for review as {item.id}: review it in `cutline` "
        f"(or `cutline accept {item.id}` writes cutline's summary back), then `claude --resume abc-123`"
    )
    assert "\n" not in answer["reason"]
    assert item.agent == "claude-code" and not item.live and item.session_file == str(transcript)
    assert item.proposal_id is not None, item.notes


@pytest.mark.parametrize("text", ["", "not json", "[]", "x" * (1024 * 1024 + 1)])
def test_a_broken_event_lets_claude_code_compact_as_usual(text: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert pre_compact(text) == ""
    assert capsys.readouterr().err.startswith("cutline: the compaction goes ahead without review (")


def test_the_inbox_commands_list_show_edit_and_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "inbox")
    assert (code, out) == (0, "inbox: nothing waiting\n")
    with Store() as store:
        item = Inbox(store).add(
            NewItem(agent="pi", reason="threshold", tokens_before=190021, first_kept_entry_id="e7", timeout_seconds=60)
        )
    code, out, _ = run(capsys, "inbox")
    assert out.startswith(f"{item.id}  waiting     pi           threshold  190,021 tokens  no proposal  ")
    code, out, err = run(capsys, "accept", item.id)
    assert code == 1 and f"has no summary yet: write one with `cutline inbox edit {item.id} FILE` first" in err
    summary = tmp_path / "summary.md"
    summary.write_text("## Goal\nmine\n")
    code, out, _ = run(capsys, "inbox", "edit", item.id[:5], str(summary))
    assert out == f"inbox {item.id}: summary saved (its draft); `cutline accept {item.id}` sends it\n"
    code, out, _ = run(capsys, "inbox", "show", item.id)
    assert "the agent's cut: first kept entry e7" in out and out.endswith("\n## Goal\nmine\n")
    code, out, _ = run(capsys, "accept", item.id)
    assert out.startswith(f"accepted {item.id}: pi gets the summary (12 chars)")
    code, out, _ = run(capsys, "inbox", "--json", "--all")
    [shown] = json.loads(out)
    assert shown["answer"]["summary"] == "## Goal\nmine" and shown["shown_status"] == "accepted (not yet delivered)"
    code, _, err = run(capsys, "reject", item.id)
    assert code == 1 and "is already accepted" in err
    code, _, err = run(capsys, "accept", "nosuchthing")
    assert code == 1 and "nosuchthing" in err  # not an inbox item: the proposal's own refusal


def test_openclaw_install_puts_the_provider_plugin_in_place_and_selects_it(
    tmp_path: Path, cutline_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENCLAW_CONFIG_PATH", raising=False)
    state = tmp_path / "state"
    state.mkdir()
    config = state / "openclaw.json"
    theirs = {"agents": {"defaults": {"model": {"primary": "a/b"}}}, "gateway": {"port": 1}}
    config.write_text(json.dumps(theirs))
    code, out, _ = run(capsys, "hook", "install", "openclaw", "--state-dir", str(state))
    plugin = state / "extensions" / "cutline-review"
    assert code == 0 and f"openclaw: wrote the plugin {plugin}" in out
    assert sorted(p.name for p in plugin.iterdir()) == [
        "index.js",
        "openclaw.plugin.json",
        "package.json",
        "review-client.js",
    ]
    assert f'"socket": "{cutline_home / "run" / "inbox.sock"}"' in (plugin / "index.js").read_text()
    assert json.loads((plugin / "openclaw.plugin.json").read_text())["id"] == "cutline-review"
    data = json.loads(config.read_text())
    assert data["agents"]["defaults"] == {"model": {"primary": "a/b"}, "compaction": {"provider": "cutline"}}
    assert data["plugins"] == {"entries": {"cutline-review": {"enabled": True}}} and data["gateway"] == {"port": 1}
    code, out, _ = run(capsys, "hook", "uninstall", "openclaw", "--state-dir", str(state))
    assert f"openclaw: removed the plugin {plugin}" in out and not plugin.exists()
    data = json.loads(config.read_text())
    assert data["agents"]["defaults"] == {"model": {"primary": "a/b"}, "compaction": {}}
    assert data["plugins"] == {"entries": {}}


def test_openclaw_install_leaves_a_json5_config_alone_and_says_what_to_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENCLAW_CONFIG_PATH", raising=False)
    (tmp_path / "openclaw.json").write_text("{ // mine\n  agents: {},\n}\n")
    code, out, _ = run(capsys, "hook", "install", "openclaw", "--state-dir", str(tmp_path))
    assert code == 0 and 'is JSON5, left as it is: set agents.defaults.compaction.provider = "cutline"' in out
    assert (tmp_path / "openclaw.json").read_text() == "{ // mine\n  agents: {},\n}\n"


def test_codex_install_adds_one_post_compact_hook_says_how_to_trust_it_and_uninstall_removes_exactly_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    codex = tmp_path / ".codex"
    codex.mkdir()
    theirs = {"hooks": {"PostCompact": [{"hooks": [{"type": "command", "command": "/their/tool"}]}]}}
    (codex / "hooks.json").write_text(json.dumps(theirs))
    code, out, _ = run(capsys, "hook", "install", "codex", "--codex-home", str(codex))
    assert code == 0 and out.startswith(f"codex: added a PostCompact hook in {codex / 'hooks.json'}: ")
    assert "type /hooks and trust cutline's PostCompact hook" in out
    written = json.loads((codex / "hooks.json").read_text())
    commands = [h["command"] for g in written["hooks"]["PostCompact"] for h in g["hooks"]]
    assert commands[0] == "/their/tool" and commands[1].endswith("-m cutline.app.cli hook run codex")
    run(capsys, "hook", "install", "codex", "--codex-home", str(codex))  # again: replaced, not doubled
    assert len(json.loads((codex / "hooks.json").read_text())["hooks"]["PostCompact"]) == 2
    code, out, _ = run(capsys, "hook", "uninstall", "codex", "--codex-home", str(codex))
    assert out == f"codex: removed cutline's PostCompact hook from {codex / 'hooks.json'}\n"
    assert json.loads((codex / "hooks.json").read_text()) == theirs


@pytest.mark.parametrize("text", ["", "not json", "[]", '{"transcript_path": 3}', '{"transcript_path": "/no/such"}'])
def test_a_broken_codex_event_lets_codex_go_on(text: str, capsys: pytest.CaptureFixture[str]) -> None:
    from cutline.core.inbox.codex import post_compact

    assert post_compact(text) == ""
    assert capsys.readouterr().err.startswith("cutline: the compaction was not put in the inbox (")
