"""Run the real Claude Code (or OpenClaw) through several turns of one session offline, hooks and plugins in force.

    python tests/support/live_cc_turns.py SPEC.json     (inside a network namespace: see `run`)

SPEC: {"home", "cwd", "logdir", "session" (empty: a new one), "prompts": [...]}, with "agent": "openclaw"
(and "openclaw_compaction", "openclaw_plugins" merged into its config) for OpenClaw. The corpus'
fake server (on top of the real-clients kit's) answers on a free loopback port for all turns;
`@@usage N@@` in a prompt makes it report N input tokens. Each turn is
`claude -p PROMPT [--resume SESSION] --output-format json`; its JSON answer goes to
LOGDIR/turn-N.json and the session id to LOGDIR/session_id. The environment (CUTLINE_HOME for
the hook) is passed through.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support.live_clients import (
    CORPUS_TOOLS,
    REPO,
    _client_command,
    _free_port,
    _wait_for,
    kit_dir,
    namespace_prefix,
)


def _add_compaction(config: Path, compaction: dict[str, Any], plugins: dict[str, Any] | None) -> None:
    """OpenClaw's config as live_clients writes it, with `agents.defaults.compaction` (and `plugins`) set."""
    text = config.read_text(encoding="utf-8")
    model = 'model: { primary: "fakeant/fake-claude" }'
    assert model in text, text
    text = text.replace(model, f"{model}, compaction: {json.dumps(compaction)}")
    if plugins is not None:
        text = text.replace("  agents: {", f"  plugins: {json.dumps(plugins)},\n  agents: {{", 1)
    config.write_text(text, encoding="utf-8")


def _inside(spec_path: Path) -> int:
    spec: dict[str, Any] = json.loads(spec_path.read_text(encoding="utf-8"))
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False, capture_output=True)
    kit = kit_dir()
    assert kit is not None
    logdir = Path(spec["logdir"])
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, str(CORPUS_TOOLS / "fake_server_ext.py"), "--port", str(port), "--logdir", str(logdir)],
        env=dict(os.environ, REAL_CLIENTS_KIT=str(kit)),
        stdout=subprocess.DEVNULL,
        stderr=(logdir / "server.stderr").open("ab"),
    )
    session = spec.get("session") or ""
    try:
        _wait_for(port)
        for n, prompt in enumerate(spec["prompts"]):
            env = dict(os.environ)
            agent = spec.get("agent", "claude_code")
            run = {"agent": agent, "home": spec["home"], "session": session, "prompt": prompt}
            command = _client_command(run, port, env)
            if agent == "openclaw" and spec.get("openclaw_compaction"):
                _add_compaction(
                    Path(env["OPENCLAW_CONFIG_PATH"]), spec["openclaw_compaction"], spec.get("openclaw_plugins")
                )
            if not session:
                command = [c for c in command if c not in ("--resume", "")]
            done = subprocess.run(
                command, cwd=spec["cwd"], env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=200
            )
            (logdir / f"turn-{n}.json").write_text(done.stdout, encoding="utf-8")
            (logdir / f"turn-{n}.stderr").write_text(done.stderr, encoding="utf-8")
            if done.returncode != 0:
                print(f"turn {n} failed ({done.returncode}): {done.stderr[-1500:]}", file=sys.stderr)
                return 1
            if agent != "openclaw":
                session = json.loads(done.stdout)["session_id"]
            (logdir / "session_id").write_text(session, encoding="utf-8")
        return 0
    finally:
        server.terminate()
        server.wait(timeout=10)


def run(spec: dict[str, Any], env: dict[str, str], timeout: float = 400) -> subprocess.CompletedProcess[str]:
    """Run the turns in a network namespace of their own; the driver's output for a failure message."""
    logdir = Path(spec["logdir"])
    logdir.mkdir(parents=True, exist_ok=True)
    path = logdir / f"spec-{len(list(logdir.glob('spec-*.json')))}.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    command = [*namespace_prefix(), sys.executable, str(Path(__file__).resolve()), str(path)]
    proc = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        start_new_session=True,  # its own process group: ended whole, whatever happens
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


if __name__ == "__main__":
    sys.exit(_inside(Path(sys.argv[1])))
