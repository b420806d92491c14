"""Installing and removing cutline's hooks in the agents' own configuration; each step says what it changed.

- pi: the extension `cutline-review/` in `<agent dir>/extensions/` (pi loads every `*.js` there and
  each directory's `index.js` at start), with the socket path and the timeout written into its
  index.js, and the socket conversation it shares with the OpenClaw plugin (`review-client.js`);
- Claude Code: one `PreCompact` hook (matcher `auto`, or every trigger) in `~/.claude/settings.json`
  that runs `cutline hook run claude-code`; uninstall removes exactly that hook and nothing else.

Files are written atomically; a file that is not cutline's is never overwritten, and a settings
file that is not a JSON object is refused with its name.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import tempfile
from importlib.resources import files
from pathlib import Path
from typing import Any

from cutline.core.errors import CutlineError

PI_EXTENSION_NAME = "cutline-review"  # a directory: index.js and the shared review-client.js
PI_OLD_EXTENSION = "cutline-review.js"  # the single file earlier cutline releases installed
REVIEW_CLIENT = "review-client.js"
MARKER = "cutline-review: pi holds each compaction"
DEFAULT_TIMEOUT_SECONDS = 900.0
CLAUDE_HOOK_TAG = "cutline.app.cli hook run claude-code"


def pi_agent_dir(agent_dir: str | Path | None = None) -> Path:
    """pi's agent directory: the one given, else $PI_CODING_AGENT_DIR, else ~/.pi/agent (as pi decides)."""
    if agent_dir is not None:
        return Path(agent_dir).expanduser()
    env = os.environ.get("PI_CODING_AGENT_DIR")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".pi" / "agent"


def pi_extension_source(socket: Path, timeout_seconds: float) -> str:
    """The shipped extension with this installation's socket and timeout in its CONFIG line."""
    template = files("cutline.core.inbox").joinpath("pi_extension.js").read_text(encoding="utf-8")
    return _with_config(template, socket, timeout_seconds)


def _with_config(template: str, socket: Path, timeout_seconds: float) -> str:
    start = template.index("/* cutline:config */")
    end = template.index("/* cutline:end */") + len("/* cutline:end */")
    config = json.dumps({"socket": str(socket), "timeoutSeconds": timeout_seconds})
    return template[:start] + f"/* cutline:config */ {config} /* cutline:end */" + template[end:]


def _write_atomic(path: Path, text: str, mode: int = 0o600) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _review_client() -> str:
    return files("cutline.core.inbox").joinpath("review_client.js").read_text(encoding="utf-8")


def _holds(path: Path, text: str) -> bool:
    return path.is_file() and path.read_text(encoding="utf-8", errors="replace") == text


def install_pi(socket: Path, agent_dir: str | Path | None = None, timeout_seconds: float | None = None) -> list[str]:
    """Put the extension where pi loads extensions (a directory with index.js); the lines say what changed."""
    extensions = pi_agent_dir(agent_dir) / "extensions"
    target = extensions / PI_EXTENSION_NAME
    index = target / "index.js"
    timeout = timeout_seconds if timeout_seconds is not None else DEFAULT_TIMEOUT_SECONDS
    source = pi_extension_source(socket, timeout)
    client = _review_client()
    old = extensions / PI_OLD_EXTENSION
    if old.exists() and MARKER not in old.read_text(encoding="utf-8", errors="replace"):
        old = Path()  # someone else's file of that name: left alone
    if target.exists() and not (index.is_file() and MARKER in index.read_text(encoding="utf-8", errors="replace")):
        raise CutlineError(f"{target} exists and is not cutline's extension; nothing changed")
    lines: list[str] = []
    if _holds(index, source) and _holds(target / REVIEW_CLIENT, client):
        lines.append(f"pi: {target} is already installed (socket {socket}, timeout {timeout:g} s); nothing changed")
    if not lines:
        fresh = not index.is_file()
        _write_atomic(target / REVIEW_CLIENT, client)
        _write_atomic(index, source)
        lines.append(f"pi: {'wrote' if fresh else 'updated'} {target} (socket {socket}, timeout {timeout:g} s)")
        if fresh:
            lines.append(
                "pi: compactions wait for review while a cutline desk or `cutline inbox --watch` runs; "
                "restart pi to load it"
            )
    if old != Path() and old.exists():
        old.unlink()  # else pi would load both and hold each compaction twice
        lines.append(f"pi: removed the earlier single-file extension {old}")
    return lines


def uninstall_pi(agent_dir: str | Path | None = None) -> list[str]:
    extensions = pi_agent_dir(agent_dir) / "extensions"
    target = extensions / PI_EXTENSION_NAME
    old = extensions / PI_OLD_EXTENSION
    lines: list[str] = []
    if old.exists() and MARKER in old.read_text(encoding="utf-8", errors="replace"):
        old.unlink()
        lines.append(f"pi: removed {old}")
    if not target.exists():
        return lines or [f"pi: {target} is not there; nothing changed"]
    index = target / "index.js"
    if not (index.is_file() and MARKER in index.read_text(encoding="utf-8", errors="replace")):
        raise CutlineError(f"{target} is not cutline's extension; nothing changed")
    for name in ("index.js", REVIEW_CLIENT):
        (target / name).unlink(missing_ok=True)
    target.rmdir()
    lines.append(f"pi: removed {target}")
    return lines


# -- Claude Code -------------------------------------------------------------------


def claude_settings_path(path: str | Path | None = None) -> Path:
    """Claude Code's user settings: the one given, else $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json."""
    if path is not None:
        return Path(path).expanduser()
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(env).expanduser() if env else Path.home() / ".claude") / "settings.json"


def claude_hook_command() -> str:
    """The command the hook runs: this Python and this cutline, whatever PATH the agent has."""
    return f"{shlex.quote(sys.executable)} -m cutline.app.cli hook run claude-code"


def _read_settings(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise CutlineError(f"{path}: not valid JSON ({exc}); nothing changed") from None
    if not isinstance(value, dict):
        raise CutlineError(f"{path}: not a JSON object; nothing changed")
    return value


def _ours(hook: Any) -> bool:
    return isinstance(hook, dict) and CLAUDE_HOOK_TAG in str(hook.get("command", ""))


def _without_ours(groups: list[Any]) -> tuple[list[Any], int]:
    kept: list[Any] = []
    removed = 0
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            kept.append(group)
            continue
        hooks = [h for h in group["hooks"] if not _ours(h)]
        removed += len(group["hooks"]) - len(hooks)
        if hooks:
            kept.append({**group, "hooks": hooks})
        elif len(group["hooks"]) == 0:
            kept.append(group)
    return kept, removed


def install_claude_code(settings: str | Path | None = None, *, manual: bool = False) -> list[str]:
    """Add cutline's PreCompact hook (automatic compactions; every one with `manual`); what changed."""
    path = claude_settings_path(settings)
    data = _read_settings(path)
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise CutlineError(f"{path}: `hooks` is not an object; nothing changed")
    groups = hooks.get("PreCompact", [])
    if not isinstance(groups, list):
        raise CutlineError(f"{path}: `hooks.PreCompact` is not a list; nothing changed")
    groups, replaced = _without_ours(groups)
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": claude_hook_command(), "timeout": 120}]}
    if not manual:
        group = {"matcher": "auto", **group}
    groups.append(group)
    hooks["PreCompact"] = groups
    if path.exists():
        backup = path.with_name(path.name + ".cutline-backup")
        backup.write_bytes(path.read_bytes())
    _write_atomic(path, json.dumps(data, indent=2) + "\n")
    which = "every compaction" if manual else "automatic compactions (manual /compact passes through)"
    verb = "replaced" if replaced else "added"
    return [f"claude-code: {verb} a PreCompact hook in {path} for {which}: {claude_hook_command()}"]


def uninstall_claude_code(settings: str | Path | None = None) -> list[str]:
    path = claude_settings_path(settings)
    data = _read_settings(path)
    hooks = data.get("hooks")
    groups = hooks.get("PreCompact") if isinstance(hooks, dict) else None
    if not isinstance(hooks, dict) or not isinstance(groups, list):
        return [f"claude-code: no cutline hook in {path}; nothing changed"]
    kept, removed = _without_ours(groups)
    if not removed:
        return [f"claude-code: no cutline hook in {path}; nothing changed"]
    if kept:
        hooks["PreCompact"] = kept
    else:
        del hooks["PreCompact"]
    if not hooks:
        del data["hooks"]
    _write_atomic(path, json.dumps(data, indent=2) + "\n")
    return [f"claude-code: removed cutline's PreCompact hook from {path}"]


# -- OpenClaw ----------------------------------------------------------------------

OPENCLAW_PLUGIN_ID = "cutline-review"
OPENCLAW_PROVIDER_ID = "cutline"
OPENCLAW_MARKER = "cutline-review: OpenClaw holds each compaction"


def openclaw_state_dir(state_dir: str | Path | None = None) -> Path:
    """OpenClaw's state directory: the one given, else $OPENCLAW_STATE_DIR, else ~/.openclaw."""
    if state_dir is not None:
        return Path(state_dir).expanduser()
    env = os.environ.get("OPENCLAW_STATE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".openclaw"


def _openclaw_config(state: Path) -> Path:
    env = os.environ.get("OPENCLAW_CONFIG_PATH")
    return Path(env).expanduser() if env else state / "openclaw.json"


def _set_provider(config: Path, provider: str | None) -> str:
    """Set (or, with None, drop cutline's) agents.defaults.compaction.provider; what was done, in words."""
    wanted = (
        f'agents.defaults.compaction.provider = "{OPENCLAW_PROVIDER_ID}" '
        f"and plugins.entries.{OPENCLAW_PLUGIN_ID}.enabled = true"
    )
    if not config.exists():
        if provider is None:
            return f"{config} is not there"
        fresh = {
            "agents": {"defaults": {"compaction": {"provider": provider}}},
            "plugins": {"entries": {OPENCLAW_PLUGIN_ID: {"enabled": True}}},
        }
        _write_atomic(config, json.dumps(fresh, indent=2) + "\n")
        return f"wrote {config} with {wanted}"
    data: Any
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except ValueError:
        data = None
    if not isinstance(data, dict):  # JSON5 with comments: not rewritten (its comments would be lost)
        verb = "set" if provider is not None else "remove"
        return f"{config} is JSON5, left as it is: {verb} {wanted} there yourself"
    defaults = data.setdefault("agents", {}).setdefault("defaults", {})
    compaction = defaults.setdefault("compaction", {})
    entries = data.setdefault("plugins", {}).setdefault("entries", {})
    if provider is None:
        if compaction.get("provider") != OPENCLAW_PROVIDER_ID:
            return f"{config} does not name cutline's provider; nothing changed there"
        del compaction["provider"]
        entries.pop(OPENCLAW_PLUGIN_ID, None)
    else:
        compaction["provider"] = provider
        entries[OPENCLAW_PLUGIN_ID] = {"enabled": True}
    config.with_name(config.name + ".cutline-backup").write_bytes(config.read_bytes())
    _write_atomic(config, json.dumps(data, indent=2) + "\n")
    return f"{'set' if provider else 'removed'} {wanted} in {config} (a copy of it: {config.name}.cutline-backup)"


def install_openclaw(
    socket: Path, state_dir: str | Path | None = None, timeout_seconds: float | None = None
) -> list[str]:
    """The compaction provider plugin in OpenClaw's extensions directory, selected in its config."""
    state = openclaw_state_dir(state_dir)
    target = state / "extensions" / OPENCLAW_PLUGIN_ID
    timeout = timeout_seconds if timeout_seconds is not None else DEFAULT_TIMEOUT_SECONDS
    if target.exists() and OPENCLAW_MARKER not in (target / "index.js").read_text(encoding="utf-8", errors="replace"):
        raise CutlineError(f"{target} exists and is not cutline's plugin; nothing changed")
    source = files("cutline.core.inbox").joinpath("openclaw_plugin")
    for name in ("openclaw.plugin.json", "package.json"):
        _write_atomic(target / name, source.joinpath(name).read_text(encoding="utf-8"), 0o644)
    template = source.joinpath("index.js").read_text(encoding="utf-8")
    _write_atomic(target / REVIEW_CLIENT, _review_client(), 0o644)
    _write_atomic(target / "index.js", _with_config(template, socket, timeout), 0o644)
    return [
        f"openclaw: wrote the plugin {target} (socket {socket}, timeout {timeout:g} s)",
        f"openclaw: {_set_provider(_openclaw_config(state), OPENCLAW_PROVIDER_ID)}",
    ]


def uninstall_openclaw(state_dir: str | Path | None = None) -> list[str]:
    state = openclaw_state_dir(state_dir)
    target = state / "extensions" / OPENCLAW_PLUGIN_ID
    lines = []
    if not target.exists():
        lines.append(f"openclaw: {target} is not there")
    elif OPENCLAW_MARKER not in (target / "index.js").read_text(encoding="utf-8", errors="replace"):
        raise CutlineError(f"{target} is not cutline's plugin; nothing changed")
    else:
        for name in ("index.js", REVIEW_CLIENT, "openclaw.plugin.json", "package.json"):
            (target / name).unlink(missing_ok=True)
        target.rmdir()
        lines.append(f"openclaw: removed the plugin {target}")
    lines.append(f"openclaw: {_set_provider(_openclaw_config(state), None)}")
    return lines


# -- Codex -------------------------------------------------------------------------

CODEX_HOOK_TAG = "cutline.app.cli hook run codex"


def codex_home(home: str | Path | None = None) -> Path:
    """Codex's home: the one given, else $CODEX_HOME, else ~/.codex (its hooks.json is there)."""
    if home is not None:
        return Path(home).expanduser()
    env = os.environ.get("CODEX_HOME")
    return Path(env).expanduser() if env else Path.home() / ".codex"


def codex_hook_command() -> str:
    return f"{shlex.quote(sys.executable)} -m {CODEX_HOOK_TAG}"


def _codex_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and CODEX_HOOK_TAG in str(hook.get("command", ""))


TRUST_STEP = (
    "codex: Codex runs only hooks you have trusted: start `codex`, type /hooks and trust cutline's PostCompact hook "
    "(until then it does not run; the folder scan of `cutline inbox scan` and the desk still finds Codex's compactions)"
)


def install_codex(home: str | Path | None = None) -> list[str]:
    """Add cutline's PostCompact hook to Codex's hooks.json; what changed, and the trust step left to the person."""
    path = codex_home(home) / "hooks.json"
    data = _read_settings(path)
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise CutlineError(f"{path}: `hooks` is not an object; nothing changed")
    groups = hooks.get("PostCompact", [])
    if not isinstance(groups, list):
        raise CutlineError(f"{path}: `hooks.PostCompact` is not a list; nothing changed")
    kept: list[Any] = []
    replaced = 0
    for group in groups:
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            mine = [h for h in group["hooks"] if _codex_ours(h)]
            replaced += len(mine)
            rest = [h for h in group["hooks"] if not _codex_ours(h)]
            if rest or not mine:
                kept.append({**group, "hooks": rest})
        else:
            kept.append(group)
    kept.append({"hooks": [{"type": "command", "command": codex_hook_command(), "timeout": 60}]})
    hooks["PostCompact"] = kept
    if path.exists():
        path.with_name(path.name + ".cutline-backup").write_bytes(path.read_bytes())
    _write_atomic(path, json.dumps(data, indent=2) + "\n")
    verb = "replaced" if replaced else "added"
    return [f"codex: {verb} a PostCompact hook in {path}: {codex_hook_command()}", TRUST_STEP]


def uninstall_codex(home: str | Path | None = None) -> list[str]:
    path = codex_home(home) / "hooks.json"
    data = _read_settings(path)
    hooks = data.get("hooks")
    groups = hooks.get("PostCompact") if isinstance(hooks, dict) else None
    if not isinstance(hooks, dict) or not isinstance(groups, list):
        return [f"codex: no cutline hook in {path}; nothing changed"]
    kept: list[Any] = []
    removed = 0
    for group in groups:
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            rest = [h for h in group["hooks"] if not _codex_ours(h)]
            removed += len(group["hooks"]) - len(rest)
            if rest or not group["hooks"]:
                kept.append({**group, "hooks": rest})
        else:
            kept.append(group)
    if not removed:
        return [f"codex: no cutline hook in {path}; nothing changed"]
    if kept:
        hooks["PostCompact"] = kept
    else:
        del hooks["PostCompact"]
    if not hooks:
        del data["hooks"]
    _write_atomic(path, json.dumps(data, indent=2) + "\n")
    return [f"codex: removed cutline's PostCompact hook from {path}"]
