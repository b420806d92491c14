"""`tokens` / `plan --counter anthropic` never print the API key, even when the server's error echoes it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.support.paths import ROOT, SAMPLES

KEY = "sk-ant-test-SECRET-0123456789abcdef"


class _EchoingHandler(BaseHTTPRequestHandler):
    """Answers every request 401 with an error text that quotes the key it was sent (as some proxies do)."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        sent = self.headers.get("x-api-key") or self.headers.get("authorization", "").removeprefix("Bearer ")
        body = json.dumps(
            {"type": "error", "error": {"type": "authentication_error", "message": f"invalid key: {sent}"}}
        ).encode()
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def echoing_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EchoingHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("command", [["tokens"], ["plan"]], ids=["tokens", "plan"])
def test_the_counter_error_is_one_line_without_the_key(echoing_server: str, command: list[str]) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "cutline.app.cli",
            *command,
            str(SAMPLES / "pi-branched.jsonl"),
            "--counter",
            "anthropic",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": echoing_server},
    )
    assert result.returncode == 1
    assert "anthropic count_tokens failed" in result.stderr
    assert "invalid key: ***" in result.stderr  # the server's text, with the key blanked
    assert KEY not in result.stderr + result.stdout
    assert len(result.stderr.strip().splitlines()) == 1
