"""A local HTTP server that speaks enough of the Anthropic Messages API to test against.

It binds 127.0.0.1 on a free port, answers `POST /v1/messages` and
`POST /v1/messages/count_tokens`, plays scripted behaviours (success, slow, 429 then
success, 500 three times, timeout, never answering, malformed body) and records every request, so tests
drive the real SDK over real HTTP instead of mocking it. It serves concurrent
requests, and a fixed `latency` makes it a stand-in for a slow model in benchmarks.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Step:
    """One scripted answer: an HTTP status and body, after an optional delay.

    `body` may be a dict (sent as JSON) or bytes (sent as is); None means a proper
    message whose text is `text` (or the default reply).
    """

    status: int = 200
    body: dict[str, Any] | bytes | None = None
    text: str | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    never: bool = False  # accept the request and never answer (until the server stops)


@dataclass
class RecordedRequest:
    """What the server received: path, headers (lower-case names) and the parsed JSON body."""

    path: str
    headers: dict[str, str]
    body: Any


def error_body(status: int, kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def success() -> list[Step]:
    return [Step()]


def slow(delay: float) -> list[Step]:
    return [Step(delay=delay)]


def rate_limited_then_success(retry_after: str = "0") -> list[Step]:
    return [
        Step(
            status=429, body=error_body(429, "rate_limit_error", "Rate limited"), headers={"retry-after": retry_after}
        ),
        Step(),
    ]


def server_error(times: int = 3) -> list[Step]:
    return [Step(status=500, body=error_body(500, "api_error", "Internal server error")) for _ in range(times)]


def hang(delay: float) -> list[Step]:
    """Answer only after `delay` seconds (longer than the client's timeout)."""
    return [Step(delay=delay)]


def never_answers(times: int = 100) -> list[Step]:
    """Take the request and keep the connection open without a byte of answer."""
    return [Step(never=True) for _ in range(times)]


def malformed() -> list[Step]:
    return [Step(status=200, body=b"{this is not json", headers={"content-type": "application/json"})]


class _Server(ThreadingHTTPServer):
    # the stdlib listen backlog is 5: a burst of concurrent calls beyond it waits for a
    # SYN retransmit (about 1 s), which would be measured as the client's slowness
    request_queue_size = 128


class FakeAnthropic:
    """The server and its script; `base_url` is what the SDK should be pointed at."""

    def __init__(self, latency: float = 0.0, reply: str = "## Goal\n- fake summary") -> None:
        self.latency = latency
        self.reply = reply
        self.requests: list[RecordedRequest] = []
        self._script: list[Step] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.in_flight = 0
        self.max_in_flight = 0
        self._server = _Server(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-anthropic", daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeAnthropic:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def script(self, steps: list[Step]) -> None:
        """Answer the next requests with these steps, in order; then plain successes."""
        with self._lock:
            self._script = list(steps)

    def message_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == "/v1/messages"]

    def _next_step(self) -> Step:
        with self._lock:
            return self._script.pop(0) if self._script else Step()

    def serves(self, path: str) -> bool:
        """Whether `path` is an endpoint this fake answers with scripted steps."""
        return path == "/v1/messages"

    def reply_body(self, path: str, request_body: Any, text: str) -> dict[str, Any]:
        """The success body for `path` carrying `text`."""
        return self._message(request_body, text)

    def _message(self, request_body: Any, text: str) -> dict[str, Any]:
        model = request_body.get("model", "claude-test") if isinstance(request_body, dict) else "claude-test"
        with self._lock:
            number = len(self.requests)
        return {
            "id": f"msg_fake{number:06d}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": _count_tokens(request_body), "output_tokens": max(1, len(text) // 4)},
        }

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:  # noqa: C901 - one handler class, its routes inside
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _send(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
                try:
                    self.send_response(status)
                    self.send_header("content-type", headers.pop("content-type", "application/json"))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout or cancellation)

            def _stream(self, message: dict[str, Any]) -> None:
                """The message as the API streams it (server-sent events), for clients that always stream."""
                text = message["content"][0]["text"]
                head = {**message, "content": [], "stop_reason": None}
                events: list[tuple[str, dict[str, Any]]] = [
                    ("message_start", {"type": "message_start", "message": head}),
                    (
                        "content_block_start",
                        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                    ),
                    (
                        "content_block_delta",
                        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
                    ),
                    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                    (
                        "message_delta",
                        {
                            "type": "message_delta",
                            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                            "usage": {"output_tokens": message["usage"]["output_tokens"]},
                        },
                    ),
                    ("message_stop", {"type": "message_stop"}),
                ]
                try:
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("connection", "close")
                    self.end_headers()
                    for name, data in events:
                        self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass
                self.close_connection = True

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                # the SDK may add a query (`?beta=true`): the route is the path without it
                record = RecordedRequest(
                    self.path.split("?", 1)[0], {k.lower(): v for k, v in self.headers.items()}, body
                )
                with fake._lock:
                    fake.requests.append(record)
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    self._answer(body)
                finally:
                    with fake._lock:
                        fake.in_flight -= 1

            def _answer(self, body: Any) -> None:
                route = self.path.split("?", 1)[0]
                if route == "/v1/messages/count_tokens":
                    self._send(200, json.dumps({"input_tokens": _count_tokens(body)}).encode(), {})
                    return
                if not fake.serves(route):
                    self._send(404, json.dumps(error_body(404, "not_found_error", "Not found")).encode(), {})
                    return
                step = fake._next_step()
                if step.never:
                    fake._stopping.wait()
                    return
                delay = step.delay + fake.latency
                if delay and fake._stopping.wait(delay):
                    return
                if (
                    route == "/v1/messages"
                    and step.body is None
                    and step.status == 200
                    and isinstance(body, dict)
                    and body.get("stream")
                ):
                    self._stream(fake._message(body, step.text if step.text is not None else fake.reply))
                    return
                if isinstance(step.body, bytes):
                    payload = step.body
                elif step.body is not None:
                    payload = json.dumps(step.body).encode()
                else:
                    text = step.text if step.text is not None else fake.reply
                    payload = json.dumps(fake.reply_body(self.path, body, text)).encode()
                self._send(step.status, payload, dict(step.headers))

        return Handler


def _count_tokens(body: Any) -> int:
    """chars / 4 of the system prompt and messages, rounded up (a stand-in for real counting)."""
    if not isinstance(body, dict):
        return 0
    chars = len(json.dumps(body.get("system", ""))) + len(json.dumps(body.get("messages", [])))
    return -(-chars // 4)
