"""Run the real pi on a session against the fake Anthropic API, offline, and keep the request it sends.

    python -m tests.support.live_pi PI_BIN NODE_DIR SESSION PROMPT OUT.json

Re-executes itself in a network namespace when it can (only loopback, brought up here),
so pi reaches nothing but the fake server. Where pi and node live, and how the namespace
is made, come from tests/support/live_clients.py, as for every live test; CI installs
them (see .ci/run).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.fake_anthropic import FakeAnthropic
from tests.support.live_clients import NODE_24, clients_dir, namespace_prefix, no_namespace, program


def pi_program(version: str) -> tuple[Path, Path | None] | str:
    """(pi's launcher, the node bin dir it needs or None for the system node), or why it cannot be had."""
    pi = program(f"pi-{version}")
    if not pi.exists():
        return f"pi {version} is not installed at {pi} (install it as .ci/run does)"
    if version == "0.87":
        node = clients_dir() / NODE_24
        if not (node / "node").exists():
            return f"Node 24 for pi 0.87 is not installed at {node}"
        return pi, node
    if shutil.which("node") is None:
        return "no node on PATH for pi 0.73"
    return pi, None


def _isolated() -> bool:
    """Whether this process is already in its own network namespace (only loopback)."""
    return os.environ.get("CUTLINE_NETNS") == "1"


def _loopback_up() -> None:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False, capture_output=True)


def recorded_cwd(session: Path) -> Path | None:
    """The working directory a pi session's header records (an absolute path), None when it names none."""
    with session.open("rb") as file:
        first = file.readline()
    try:
        header = json.loads(first)
    except ValueError:
        return None
    cwd = header.get("cwd") if isinstance(header, dict) else None
    return Path(cwd) if isinstance(cwd, str) and os.path.isabs(cwd) else None


def _made_dirs(target: Path) -> list[Path]:
    """Make `target` and any missing parents; the ones made, deepest first (to remove them after)."""
    missing: list[Path] = []
    at = target
    while not at.exists():
        missing.append(at)
        at = at.parent
    target.mkdir(parents=True, exist_ok=True)
    return missing


def resume(
    pi: Path, node: Path | None, session: Path, prompt: str, home: Path, timeout: float = 120
) -> dict[str, object]:
    """Run `pi --session SESSION -p PROMPT` against a fresh fake server; the first model request's body.

    pi refuses a session whose recorded working directory is gone ("Stored session working
    directory does not exist"): the corpus sessions were recorded in a temporary directory,
    so it is made for the run when missing and removed after.
    """
    cwd = recorded_cwd(session)
    made = _made_dirs(cwd) if cwd is not None else []
    server = FakeAnthropic(reply="ACK").start()
    try:
        agent = home / ".pi" / "agent"
        agent.mkdir(parents=True, exist_ok=True)
        models = {
            "providers": {
                "fakeant": {
                    "baseUrl": server.base_url,
                    "api": "anthropic-messages",
                    "apiKey": "sk-ant-fake-000",
                    "models": [
                        {
                            "id": "fake-claude",
                            "name": "Fake Claude (loopback)",
                            "reasoning": False,
                            "input": ["text", "image"],
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
            "compaction": {"enabled": False},
        }
        (agent / "settings.json").write_text(json.dumps(settings))
        env = {
            "HOME": str(home),
            "PATH": (f"{node}:" if node else "") + os.environ.get("PATH", "/usr/bin:/bin"),
            "PI_OFFLINE": "1",
            "PI_TELEMETRY": "0",
            "PI_SKIP_VERSION_CHECK": "1",
        }
        work = home / "work"
        work.mkdir(exist_ok=True)
        done = subprocess.run(
            [str(pi), "--provider", "fakeant", "--model", "fake-claude", "--session", str(session), "-p", prompt],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
        requests = server.message_requests()
        if not requests:
            raise RuntimeError(f"pi sent no request (exit {done.returncode}): {done.stderr.decode()[-500:]}")
        body = requests[0].body
        assert isinstance(body, dict)
        return body
    finally:
        server.stop()
        for directory in made:
            shutil.rmtree(directory, ignore_errors=True)


def main(argv: list[str]) -> int:
    pi, node, session, prompt, out = argv
    if not _isolated() and no_namespace() is None:
        env = {**os.environ, "CUTLINE_NETNS": "1"}
        command = [*namespace_prefix(), sys.executable, "-m", "tests.support.live_pi", *argv]
        return subprocess.run(command, env=env, check=False).returncode
    if _isolated():
        _loopback_up()
    home = Path(out).parent / ("home-" + Path(out).stem)
    body = resume(Path(pi), Path(node) if node != "-" else None, Path(session), prompt, home)
    Path(out).write_text(json.dumps(body, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
