"""`cutline hook install|uninstall AGENT`: let an agent hold its compactions for review in cutline's inbox."""

from __future__ import annotations

import click

from cutline.app.output import say

AGENTS = ("pi", "claude-code", "openclaw", "codex")


@click.group("hook")
def hook_cmd() -> None:
    """Install or remove the hook that sends an agent's compactions to cutline's inbox."""


@hook_cmd.command("install")
@click.argument("agent", type=click.Choice(AGENTS))
@click.option(
    "--agent-dir", default=None, help="pi: its agent directory (default: $PI_CODING_AGENT_DIR, else ~/.pi/agent)."
)
@click.option(
    "--timeout",
    "timeout_seconds",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="pi, openclaw: seconds to wait for an answer before the agent's own summary goes ahead (default 900).",
)
@click.option(
    "--settings",
    "settings_path",
    default=None,
    help="claude-code: its settings file (default: ~/.claude/settings.json).",
)
@click.option("--manual", is_flag=True, help="claude-code: hold manual /compact too, not only automatic ones.")
@click.option(
    "--state-dir", default=None, help="openclaw: its state directory (default: $OPENCLAW_STATE_DIR, else ~/.openclaw)."
)
@click.option("--codex-home", default=None, help="codex: its home (default: $CODEX_HOME, else ~/.codex).")
def install_cmd(
    agent: str,
    agent_dir: str | None,
    timeout_seconds: float | None,
    settings_path: str | None,
    manual: bool,
    state_dir: str | None,
    codex_home: str | None,
) -> None:
    """Install AGENT's hook; says what it changed (codex: a PostCompact hook, reviewed after the fact)."""
    from cutline.core.inbox.channel import socket_path
    from cutline.core.inbox.install import install_claude_code, install_codex, install_openclaw, install_pi

    if agent == "codex":
        lines = install_codex(codex_home)
    elif agent == "pi":
        lines = install_pi(socket_path(), agent_dir, timeout_seconds)
    elif agent == "openclaw":
        lines = install_openclaw(socket_path(), state_dir, timeout_seconds)
    else:
        lines = install_claude_code(settings_path, manual=manual)
    for line in lines:
        say(line)


@hook_cmd.command("uninstall")
@click.argument("agent", type=click.Choice(AGENTS))
@click.option("--agent-dir", default=None, help="pi: its agent directory (default: ~/.pi/agent).")
@click.option("--settings", "settings_path", default=None, help="claude-code: its settings file.")
@click.option("--state-dir", default=None, help="openclaw: its state directory (default: ~/.openclaw).")
@click.option("--codex-home", default=None, help="codex: its home (default: $CODEX_HOME, else ~/.codex).")
def uninstall_cmd(
    agent: str, agent_dir: str | None, settings_path: str | None, state_dir: str | None, codex_home: str | None
) -> None:
    """Remove AGENT's hook (only cutline's); says what it changed."""
    from cutline.core.inbox.install import uninstall_claude_code, uninstall_codex, uninstall_openclaw, uninstall_pi

    if agent == "codex":
        lines = uninstall_codex(codex_home)
    elif agent == "pi":
        lines = uninstall_pi(agent_dir)
    elif agent == "openclaw":
        lines = uninstall_openclaw(state_dir)
    else:
        lines = uninstall_claude_code(settings_path)
    for line in lines:
        say(line)


@hook_cmd.command("run", hidden=True)
@click.argument("agent", type=click.Choice(("claude-code", "codex")))
def run_cmd(agent: str) -> None:
    """What an agent's hook runs (Claude Code's PreCompact, Codex's PostCompact): the event on stdin, the answer on stdout."""
    import sys

    if agent == "codex":
        from cutline.core.inbox.codex import post_compact

        sys.stdout.write(post_compact(sys.stdin.read()))
        return
    from cutline.core.inbox.claude_code import pre_compact

    sys.stdout.write(pre_compact(sys.stdin.read()))


COMMANDS = [hook_cmd]
