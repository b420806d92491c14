"""Drive the real pi (`pi --mode rpc`) through several turns offline, with its extensions loaded; log every event.

    python -m tests.support.live_pi_rpc SPEC.json

SPEC: {"pi": launcher, "node": bin dir or "", "home": HOME, "cwd": dir, "logdir": dir,
"steps": [{"type": "prompt", "message": ...} | {"type": "wait", "event": "compaction_end"}]}.
Runs in a network namespace of its own (only loopback), with the real-clients kit's fake
Anthropic server on a free port: `@@usage N@@` in a prompt makes it report N input tokens,
which trips pi's automatic compaction. pi's settings: compaction on, keepRecentTokens 60.
Every stdout line of pi goes to LOGDIR/events.jsonl with the time it was read (`_t`, monotonic
seconds); the request bodies pi sent are the kit's LOGDIR/req-*.json. `start(spec)` launches
it (a process group of its own: `stop` ends it all, whatever happened).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.support.live_clients import REPO, _free_port, _wait_for, kit_dir, namespace_prefix

STEP_SECONDS = 90.0


def _write_agent_config(home: Path, port: int) -> None:
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    models = {
        "providers": {
            "fakeant": {
                "baseUrl": f"http://127.0.0.1:{port}",
                "api": "anthropic-messages",
                "apiKey": "sk-ant-fake-000",
                "models": [
                    {
                        "id": "fake-claude",
                        "name": "Fake Claude (loopback)",
                        "reasoning": False,
                        "input": ["text"],
                        "contextWindow": 200000,
                        "maxTokens": 8192,
                        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                    }
                ],
            }
        }
    }
    (agent / "models.json").write_text(json.dumps(models))
    settings = {
        "enableInstallTelemetry": False,
        "defaultProvider": "fakeant",
        "defaultModel": "fake-claude",
        "compaction": {"enabled": True, "reserveTokens": 16384, "keepRecentTokens": 60},
    }
    (agent / "settings.json").write_text(json.dumps(settings))


class _Events:
    def __init__(self, proc: subprocess.Popen[bytes], log: Path) -> None:
        self.proc = proc
        self.log = log.open("a", encoding="utf-8")

    def next(self, deadline: float) -> dict[str, Any] | None:
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                return None
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if not isinstance(event, dict):
                continue
            event["_t"] = time.monotonic()
            self.log.write(json.dumps(event) + "\n")
            self.log.flush()
            return event
        return None


def _drive(spec: dict[str, Any], port: int) -> int:
    home = Path(spec["home"])
    _write_agent_config(home, port)
    env = dict(os.environ)
    env.update(HOME=str(home), PI_OFFLINE="1", PI_TELEMETRY="0", PI_SKIP_VERSION_CHECK="1")
    if spec.get("node"):
        env["PATH"] = f"{spec['node']}:{env.get('PATH', '')}"
    for key in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "PI_CODING_AGENT_DIR"):
        env.pop(key, None)
    logdir = Path(spec["logdir"])
    command = [spec["pi"], "--mode", "rpc", "--provider", "fakeant", "--model", "fake-claude"]
    proc = subprocess.Popen(
        command,
        cwd=spec["cwd"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=(logdir / "pi.stderr").open("wb"),
    )
    events = _Events(proc, logdir / "events.jsonl")
    try:
        for n, step in enumerate(spec["steps"]):
            deadline = time.monotonic() + STEP_SECONDS
            if step["type"] == "wait":
                while (event := events.next(deadline)) is not None and event.get("type") != step["event"]:
                    pass
                if event is None:
                    print(f"no {step['event']} event", file=sys.stderr)
                    return 2
                continue
            command_id = f"c{n}"
            assert proc.stdin is not None
            proc.stdin.write((json.dumps({**step, "id": command_id}) + "\n").encode())
            proc.stdin.flush()
            answered = False
            while (event := events.next(deadline)) is not None:
                if event.get("type") == "response" and event.get("id") == command_id:
                    answered = True
                    if not event.get("success"):
                        print(f"pi refused {step}: {event.get('error')}", file=sys.stderr)
                        return 3
                elif event.get("type") == "agent_end" and answered:
                    break
            if event is None:
                print(f"pi did not finish {step}", file=sys.stderr)
                return 4
        # let an automatic compaction started by the last turn end before pi is stopped
        settle = time.monotonic() + float(spec.get("settle", 0))
        while time.monotonic() < settle and events.next(settle) is not None:
            pass
        return 0
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _inside(spec_path: Path) -> int:
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False, capture_output=True)
    kit = kit_dir()
    assert kit is not None
    port = _free_port()
    logdir = Path(spec["logdir"])
    server = subprocess.Popen(
        [sys.executable, str(kit / "fake_llm_server.py"), "--port", str(port), "--logdir", str(logdir)],
        stdout=subprocess.DEVNULL,
        stderr=(logdir / "server.stderr").open("wb"),
    )
    try:
        _wait_for(port)
        return _drive(spec, port)
    finally:
        server.terminate()
        server.wait(timeout=10)


def start(spec: dict[str, Any]) -> subprocess.Popen[bytes]:
    """Launch the driver in its own namespace and process group; the spec is written beside its logs."""
    logdir = Path(spec["logdir"])
    logdir.mkdir(parents=True, exist_ok=True)
    path = logdir / "spec.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    command = [*namespace_prefix(), sys.executable, "-m", "tests.support.live_pi_rpc", str(path)]
    return subprocess.Popen(
        command,
        cwd=REPO,
        stdout=(logdir / "driver.out").open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def stop(proc: subprocess.Popen[bytes]) -> None:
    """End the driver and everything it started (pi, the fake server), whatever state they are in."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=5)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def events(logdir: Path) -> list[dict[str, Any]]:
    path = logdir / "events.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def requests(logdir: Path) -> list[dict[str, Any]]:
    """The message requests pi sent, in order (the kit logs each body as req-NNNN-*.json)."""
    found = []
    for path in sorted(logdir.glob("req-*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        body = record.get("body") if isinstance(record, dict) and "body" in record else record
        if isinstance(body, dict) and body.get("messages"):
            found.append(body)
    return found


if __name__ == "__main__":
    sys.exit(_inside(Path(sys.argv[1])))
