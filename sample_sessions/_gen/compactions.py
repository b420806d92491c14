"""pi-one-compaction.jsonl and pi-two-compactions.jsonl: sessions that already went through pi compactions."""

from __future__ import annotations

from . import snip_src as src
from .bulk import app_log, redis_monitor
from .pi import PiSession
from .workspace import Workspace, access_log

ROOT = "/home/dana/src/snip"


def _files(rng) -> dict[str, str]:
    return {
        "pyproject.toml": src.PYPROJECT, "README.md": src.README, "src/snip/__init__.py": src.INIT,
        "src/snip/config.py": src.CONFIG, "src/snip/storage.py": src.STORAGE, "src/snip/auth.py": src.AUTH,
        "src/snip/app.py": src.APP, "tests/conftest.py": src.CONFTEST, "tests/test_api.py": src.TEST_API,
        "logs/app-2026-11-19.jsonl": app_log(rng, 1600, "2026-11-19T02:03:11"),
        "logs/edge-access-2026-11-19.log": access_log(rng, 1800, "2026-11-19T01:58:00"),
    }


REQUEST_LOGGING = '''"""Request ids and one structured log line per request."""

from __future__ import annotations

import time
import uuid

import structlog
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import Response

log = structlog.get_logger("snip.access")
HEADER = "X-Request-ID"


def _incoming_id(request: Request) -> str | None:
    """Accept an id from the edge only if it looks like one of ours (32 hex chars)."""
    value = request.headers.get(HEADER, "")
    return value if len(value) == 32 and all(c in "0123456789abcdef" for c in value) else None


class RequestLogMiddleware(BaseHTTPMiddleware):
    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        request_id = _incoming_id(request) or uuid.uuid4().hex
        structlog.contextvars.bind_contextvars(request_id=request_id)
        started = time.perf_counter()
        status = 500
        try:
            response = await call_next(request)
            status = response.status_code
            response.headers[HEADER] = request_id
            return response
        finally:
            log.info("request", method=request.method, path=request.url.path, status=status,
                     duration_ms=round((time.perf_counter() - started) * 1000, 1))
            structlog.contextvars.clear_contextvars()
'''

SUMMARY_ONE = """## Goal
Add request-id propagation and one structured access-log line per request to snip (FastAPI service in /home/dana/src/snip), so 504s seen at the edge can be matched to app log lines.

## Constraints & Preferences
- No new runtime dependencies (structlog is already used; no asgi-correlation-id).
- Accept an incoming X-Request-ID only if it is 32 lowercase hex chars; otherwise generate uuid4().hex.
- Log field names must match the Grafana Loki queries: `request_id`, `method`, `path`, `status`, `duration_ms`.
- Never log the Authorization header.

## Progress
### Done
- [x] Read src/snip/app.py, src/snip/config.py, src/snip/storage.py and the incident app log (logs/app-2026-11-19.jsonl): app lines have no request id, so edge 504s cannot be correlated.
- [x] Wrote src/snip/request_logging.py: `RequestLogMiddleware` binds `request_id` via structlog contextvars, sets the X-Request-ID response header, logs `request` with method/path/status/duration_ms in a `finally`; `_incoming_id()` validates the edge's header.
- [x] Registered the middleware in `create_app` (src/snip/app.py).
- [x] Wrote tests/test_request_logging.py (generated id, accepted edge id, rejected malformed id).

### In Progress
- [ ] test_generates_request_id fails (`assert False`): structlog's default config prints to stdout instead of stdlib logging, so `caplog` sees nothing. Plan: `structlog.testing.capture_logs()`.

### Blocked
- (none)

## Key Decisions
- **Middleware, not a dependency**: the id must exist for every request, including 404s and redirects, before routing.
- **Log in `finally`**: a crashing endpoint still produces an access line with status 500.

## Next Steps
1. Fix the test with `structlog.testing.capture_logs()`.
2. Run `pytest -q`, ruff and mypy.
3. nginx side: generate/pass `$request_id` and log it.

## Critical Context
- Incident of 2026-11-19: key k_7Qx2 paging GET /v1/links?limit=200, 504s from 02:04 UTC."""

PREFIX_ONE = """## Original Request
Before fixing the failing test, the user asked whether the edge (nginx) access log carries any request id snip could reuse (logs/edge-access-2026-11-19.log).

## Early Progress
- Read the first page of the edge log: each line has `rt=`, `key=` and `upstream=` after the usual combined fields; no request id of any kind.

## Context for Suffix
- The kept part reads the next page of the same log (offset=328) to confirm.
- Still pending: tests/test_request_logging.py::test_generates_request_id (caplog sees nothing; use structlog.testing.capture_logs())."""

SUMMARY_TWO_A = """## Goal
Take click counting off the redirect hot path in snip: `GET /{code}` should not wait for a Redis HINCRBY. Buffer increments in memory and flush them in batches.

## Constraints & Preferences
- The flush interval must stay at or below 1 second: the analytics dashboard promises "clicks within 2 s" to customers (SLA in the enterprise contract).
- Lost clicks on a crash are acceptable up to one flush interval; double counting is NOT acceptable.
- Pending batches also go into the Redis hash `snip:clicks:pending` (CLICK_FLUSH_KEY) so the analytics exporter sees both app nodes' flushes.
- Keep the `LinkStore` protocol backwards compatible (marek's list_for work depends on it).
- Don't lose clicks on deploys (shutdown must flush).

## Progress
### Done
- [x] Measured the redirect path: p50 4.1 ms, of which HINCRBY is ~2.6 ms (app log timings + redis MONITOR).
- [x] Wrote src/snip/clicks.py: `ClickBuffer` (dict[str, int] + asyncio.Lock; `add`, `pending`, `drain`), `flush_once` (one pipeline(transaction=False) with HINCRBY into `snip:link:<code>` and `snip:clicks:pending`), `flush_loop(buffer, redis, interval=1.0)`.
- [x] Wired into `create_app` (src/snip/app.py): `app.state.clicks`, a startup handler that creates `app.state.redis` and `app.state.flush_task`; `follow()` now calls `app.state.clicks.add(code)`.
- [x] Wrote tests/test_clicks.py (add/drain, flush writes both hashes, final flush on shutdown).

### In Progress
- [ ] test_final_flush_on_shutdown fails (`assert b'3' == b'5'`): no final flush on shutdown, and the loop can be cancelled mid-drain.
- [ ] tests/test_api.py::test_clicks_counted fails (`assert 0 == 3`): the owner view doesn't include unflushed clicks.

### Blocked
- (none)

## Key Decisions
- **In-process buffer, not Redis Streams**: one component less; the one-interval loss window is accepted by the user.
- **Pipeline of HINCRBY per code**: batches are small, no Lua needed.

## Next Steps
1. Shutdown handler: cancel the flush task, await it, then `flush_once` one last time.
2. `GET /v1/links/{code}`: add `buffer.pending(code)` to the stored count.
3. Load test redirects with hey before/after.

## Critical Context
- Test commands: `pytest -q tests/test_clicks.py`, `pytest -q`.
- Redis MONITOR showed one HGETALL + one HINCRBY per redirect before the change."""

PREFIX_TWO_A = """## Original Request
The user asked how many distinct link codes are clicked per second at peak, to know how big the flush batches get, before the shutdown fix. Source: the incident-night edge log.

## Early Progress
- Read the first page of logs/edge-access-2026-11-19.log (01:58-02:04 UTC): redirects are ~25% of requests, a handful of codes (promo24, launch, aZ3kP0q, hiring) dominate.

## Context for Suffix
- The kept part reads the next page of the same log and then answers the batch-size question.
- Still pending afterwards: the shutdown fix (test_final_flush_on_shutdown fails) and the owner view."""

SUMMARY_TWO_B = """## Goal
Take click counting off the redirect hot path in snip: `GET /{code}` should not wait for a Redis HINCRBY. Buffer increments in memory and flush them in batches.

## Constraints & Preferences
- Lost clicks on a crash are acceptable up to one flush interval; double counting is NOT acceptable.
- Keep the `LinkStore` protocol backwards compatible (marek's list_for work depends on it).
- Don't lose clicks on deploys (shutdown must flush).

## Progress
### Done
- [x] Measured the redirect path: p50 4.1 ms, of which HINCRBY is ~2.6 ms.
- [x] src/snip/clicks.py: `ClickBuffer`, `flush_once`, `flush_loop(buffer, redis, interval)`; wired into `create_app` with a startup handler (`app.state.flush_task`).
- [x] Shutdown handler cancels and awaits the flush task, then flushes once more; test_final_flush_on_shutdown passes.
- [x] `GET /v1/links/{code}` adds `app.state.clicks.pending(code)` to the stored count; the full suite passes (13 tests).
- [x] Peak batch size: ~25-40 redirects/s over ~8 distinct codes, so a flush is a pipeline of ≤10 HINCRBY pairs.
- [x] Load test (hey -z 30s -c 50): redirect p50 4.1 ms → 1.3 ms, p99 19 ms → 6 ms; Redis commandstats confirm one HINCRBY per code per flush.

### In Progress
- (none)

### Blocked
- (none)

## Key Decisions
- **In-process buffer, not Redis Streams**: one component less; the loss window is accepted by the user.
- **Pipeline of HINCRBY per code**: batches are small, no Lua needed.
- **Owner view includes pending clicks**: avoids support tickets about "missing" clicks.

## Next Steps
1. Commit on a branch `clicks-buffer`.
2. README: a short "Clicks" section (buffering, shutdown flush).

## Critical Context
- Redirect handler is `follow()` in src/snip/app.py; it calls `app.state.clicks.add(code)`.
- Test commands: `pytest -q tests/test_clicks.py`, `pytest -q`."""

TEST_CLICKS = '''import asyncio

import fakeredis.aioredis

from snip.clicks import CLICK_FLUSH_KEY, ClickBuffer, flush_once


async def test_add_and_drain() -> None:
    b = ClickBuffer()
    for _ in range(3):
        await b.add("abc1234")
    assert b.pending("abc1234") == 3
    assert await b.drain() == {"abc1234": 3}
    assert await b.drain() == {}


async def test_flush_writes_both_hashes() -> None:
    r = fakeredis.aioredis.FakeRedis()
    b = ClickBuffer()
    await b.add("abc1234")
    await b.add("abc1234")
    assert await flush_once(b, r) == 1
    assert await r.hget("snip:link:abc1234", "clicks") == b"2"
    assert await r.hget(CLICK_FLUSH_KEY, "abc1234") == b"2"


async def test_final_flush_on_shutdown(app_with_redis) -> None:
    app, r = app_with_redis
    async with app.router.lifespan_context(app):
        for _ in range(5):
            await app.state.clicks.add("abc1234")
        await asyncio.sleep(0)
    assert await r.hget("snip:link:abc1234", "clicks") == b"5"
'''

CLICKS = '''"""Click counting off the redirect path: buffer increments in memory, flush them in batches."""

from __future__ import annotations

import asyncio
import contextlib

import redis.asyncio as aioredis
import structlog

log = structlog.get_logger("snip.clicks")
CLICK_FLUSH_KEY = "snip:clicks:pending"


class ClickBuffer:
    """Per-process click counts not yet written to Redis."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}
        self._lock = asyncio.Lock()

    async def add(self, code: str) -> None:
        async with self._lock:
            self._counts[code] = self._counts.get(code, 0) + 1

    def pending(self, code: str) -> int:
        return self._counts.get(code, 0)

    async def drain(self) -> dict[str, int]:
        async with self._lock:
            counts, self._counts = self._counts, {}
        return counts


async def flush_once(buffer: ClickBuffer, client: aioredis.Redis) -> int:
    counts = await buffer.drain()
    if not counts:
        return 0
    async with client.pipeline(transaction=False) as pipe:
        for code, n in counts.items():
            pipe.hincrby(f"snip:link:{code}", "clicks", n)
            pipe.hincrby(CLICK_FLUSH_KEY, code, n)
        await pipe.execute()
    log.debug("clicks.flushed", codes=len(counts), clicks=sum(counts.values()))
    return len(counts)


async def flush_loop(buffer: ClickBuffer, client: aioredis.Redis, interval: float = 1.0) -> None:
    while True:
        await asyncio.sleep(interval)
        with contextlib.suppress(aioredis.RedisError):
            await flush_once(buffer, client)
'''


def one_compaction() -> PiSession:
    s = PiSession(seed=31, start="2026-11-21T13:05:44.120Z", cwd=ROOT, ratio=1.3)
    w = Workspace(s, ROOT, _files(s.rng))
    s.model_change("anthropic", "claude-sonnet-4-5")
    s.thinking_level("medium")
    s.user("During the incident we couldn't match edge 504s to app log lines. Add a request id (accept the "
           "edge's X-Request-ID if it's 32 hex chars, else generate one) and one structured access log line per "
           "request with request_id, method, path, status, duration_ms — those names, the Loki queries use them. "
           "No new dependencies. Never log the Authorization header.", pause=(1, 3))
    s.steps([("read", {"path": p}, w.read_result(p)[0], False)
             for p in ("src/snip/app.py", "src/snip/config.py", "src/snip/storage.py")],
            thinking="Look at how the app and logging are set up today.")
    w.read_chunks("logs/app-2026-11-19.jsonl", 2, [
        "What do app log lines look like now? No request id, I expect.",
        "Confirmed: event/method/path/status/duration_ms/key_id, no id. One more page to see the error lines."])
    s.say("The app side logs no id, so a 504 at the edge can only be matched by timestamp, which fails under "
          "load. Plan: a small middleware in `src/snip/request_logging.py` that takes/creates the id, binds it "
          "to structlog's contextvars (so every log line in the request gets it), sets `X-Request-ID` on the "
          "response and writes one `request` line in a `finally`. Then nginx passes and logs the same id.")
    w.write("src/snip/request_logging.py", REQUEST_LOGGING)
    w.edit("src/snip/app.py", "    app = FastAPI(title=\"snip\", version=\"0.9.3\")\n",
           "    app = FastAPI(title=\"snip\", version=\"0.9.3\")\n    app.add_middleware(RequestLogMiddleware)\n")
    w.edit("src/snip/app.py", "from .auth import ApiKey, KeyRing, require_key\n",
           "from .auth import ApiKey, KeyRing, require_key\nfrom .request_logging import RequestLogMiddleware\n")
    test = ('from fastapi.testclient import TestClient\n\n\ndef test_generates_request_id(client: TestClient, caplog) -> None:\n'
            '    r = client.get("/healthz")\n    rid = r.headers["x-request-id"]\n    assert len(rid) == 32\n'
            '    assert any(getattr(rec, "request_id", None) == rid for rec in caplog.records)\n\n\n'
            'def test_accepts_edge_id(client: TestClient) -> None:\n    rid = "0123456789abcdef0123456789abcdef"\n'
            '    assert client.get("/healthz", headers={"X-Request-ID": rid}).headers["x-request-id"] == rid\n\n\n'
            'def test_rejects_malformed_edge_id(client: TestClient) -> None:\n'
            '    r = client.get("/healthz", headers={"X-Request-ID": "<script>"})\n    assert r.headers["x-request-id"] != "<script>"\n')
    w.write("tests/test_request_logging.py", test)
    w.bash("pytest -q tests/test_request_logging.py 2>&1 | tail -15",
           "F..\n=================================== FAILURES ===================================\n"
           "__________________________ test_generates_request_id ___________________________\n\n"
           "client = <starlette.testclient.TestClient object at 0x7f2d1c0b5e50>, caplog = <_pytest.logging.LogCaptureFixture object at 0x7f2d1c0b6a10>\n\n"
           "    def test_generates_request_id(client: TestClient, caplog) -> None:\n        r = client.get(\"/healthz\")\n"
           "        rid = r.headers[\"x-request-id\"]\n        assert len(rid) == 32\n"
           ">       assert any(getattr(rec, \"request_id\", None) == rid for rec in caplog.records)\n"
           "E       assert False\nE        +  where False = any(<generator object test_generates_request_id.<locals>.<genexpr> at 0x7f2d1c1e8e40>)\n\n"
           "tests/test_request_logging.py:8: AssertionError\n----------------------------- Captured stdout call -----------------------------\n"
           "2026-11-21 13:19:02 [info     ] request                        duration_ms=0.4 method=GET path=/healthz request_id=5f0c2e6a9b1d4c3e8a7f6b5d4c3b2a19 status=200\n"
           "=========================== short test summary info ============================\n"
           "FAILED tests/test_request_logging.py::test_generates_request_id - assert False\n1 failed, 2 passed in 0.41s",
           code=1)
    s.say("The line is logged (see captured stdout, with the right request_id), but structlog's default "
          "configuration prints directly instead of going through stdlib logging, so `caplog` sees nothing. "
          "structlog ships a test helper for exactly this: `structlog.testing.capture_logs()`.")
    s.user("Before you fix the test: does the edge log carry any id we could reuse? "
           "logs/edge-access-2026-11-19.log is from the incident night.", pause=(40, 120))
    w.read_chunks("logs/edge-access-2026-11-19.log", 2, [
        "Does nginx log any id that the app could echo?",
        "Nothing on the first page; a second page to be sure the format doesn't change (e.g. after a reload)."])
    s.compact(SUMMARY_ONE, keep_recent=20000, turn_prefix=PREFIX_ONE)
    s.say("No: the edge lines carry `rt=`, `key=` and `upstream=` only, no request id. nginx will have to "
          "generate one (`$request_id`) and pass it upstream; I'll do that after the test fix.")
    w.edit("tests/test_request_logging.py",
           "def test_generates_request_id(client: TestClient, caplog) -> None:\n    r = client.get(\"/healthz\")\n"
           "    rid = r.headers[\"x-request-id\"]\n    assert len(rid) == 32\n"
           "    assert any(getattr(rec, \"request_id\", None) == rid for rec in caplog.records)\n",
           "def test_generates_request_id(client: TestClient) -> None:\n    with structlog.testing.capture_logs() as logs:\n"
           "        r = client.get(\"/healthz\")\n    rid = r.headers[\"x-request-id\"]\n    assert len(rid) == 32\n"
           "    line = next(entry for entry in logs if entry[\"event\"] == \"request\")\n"
           "    assert line[\"request_id\"] == rid and line[\"status\"] == 200 and line[\"path\"] == \"/healthz\"\n")
    w.edit("tests/test_request_logging.py", "from fastapi.testclient import TestClient\n",
           "import structlog\nfrom fastapi.testclient import TestClient\n")
    w.bash("pytest -q 2>&1 | tail -3",
           "test_request_logging.py::test_generates_request_id FAILED\nE       KeyError: 'request_id'\n1 failed, 10 passed in 0.92s",
           code=1)
    s.say("`capture_logs()` replaces the processor chain, so the contextvars merge doesn't run and `request_id` "
          "(bound via contextvars) is missing from the captured dict. Logging the id explicitly as a field of the "
          "access line is simpler and keeps it in the line even if someone reconfigures structlog.")
    w.edit("src/snip/request_logging.py",
           "            log.info(\"request\", method=request.method, path=request.url.path, status=status,\n",
           "            log.info(\"request\", request_id=request_id, method=request.method, path=request.url.path, status=status,\n")
    w.bash("pytest -q 2>&1 | tail -3 && ruff check src tests && mypy",
           "...........\n11 passed in 0.88s\nAll checks passed!\nSuccess: no issues found in 7 source files")
    s.say("Fixed: the access line carries `request_id` explicitly, so it survives any structlog "
          "reconfiguration; 11 tests, ruff and mypy pass.")
    s.user("Also include the key id on authenticated requests (k_… only, never the secret) and do the nginx part.",
           pause=(60, 200))
    w.edit("src/snip/auth.py", "    request.state.api_key = key\n",
           "    request.state.api_key = key\n    structlog.contextvars.bind_contextvars(key_id=key.key_id)\n")
    w.edit("src/snip/auth.py", "from fastapi import Depends, HTTPException, Request, status\n",
           "import structlog\nfrom fastapi import Depends, HTTPException, Request, status\n")
    w.edit("src/snip/request_logging.py",
           "            log.info(\"request\", request_id=request_id, method=request.method, path=request.url.path, status=status,\n",
           "            key = getattr(request.state, \"api_key\", None)\n"
           "            log.info(\"request\", request_id=request_id, method=request.method, path=request.url.path, status=status,\n"
           "                     key_id=key.key_id if key else None,\n")
    nginx = ("log_format snip '$remote_addr - - [$time_local] \"$request\" $status $body_bytes_sent \"-\" "
             "\"$http_user_agent\" rt=$request_time key=$http_x_key_id upstream=$upstream_addr rid=$request_id';\n")
    w.files["deploy/nginx.conf"] = ("events {}\nhttp {\n  " + nginx.replace(" rid=$request_id", "") +
                                    "  access_log /var/log/nginx/access.log snip;\n  upstream app { server app1:8080; server app2:8080; }\n"
                                    "  server {\n    listen 80;\n    location / {\n      proxy_pass http://app;\n"
                                    "      proxy_read_timeout 30s;\n    }\n  }\n}\n")
    w.read("deploy/nginx.conf")
    w.edit("deploy/nginx.conf", "upstream=$upstream_addr';", "upstream=$upstream_addr rid=$request_id';")
    w.edit("deploy/nginx.conf", "      proxy_pass http://app;\n",
           "      proxy_pass http://app;\n      proxy_set_header X-Request-ID $request_id;\n")
    w.bash("docker compose up -d --force-recreate edge app1 app2 >/dev/null && sleep 3 && "
           "curl -si localhost:8080/healthz | grep -i x-request-id && docker compose exec edge tail -n1 /var/log/nginx/access.log",
           "x-request-id: 9b2f61d0c4e84a1f8e3d27b5a6c90f14\n"
           "172.18.0.1 - - [21/Nov/2026:13:41:07 +0000] \"GET /healthz HTTP/1.1\" 200 15 \"-\" \"curl/8.5.0\" "
           "rt=0.003 key=- upstream=172.18.0.4:8080 rid=9b2f61d0c4e84a1f8e3d27b5a6c90f14")
    w.bash("git add -A src tests deploy && git commit -qm 'Request ids end to end + structured access log' && git log --oneline -1",
           "e41a9c2 Request ids end to end + structured access log")
    s.say("Done (e41a9c2): nginx generates `$request_id`, passes it as `X-Request-ID` and logs it as `rid=`; the "
          "app accepts it (32 hex only), logs one `request` line with request_id/method/path/status/duration_ms "
          "plus `key_id` on authenticated requests, and echoes the header. The curl above shows the same id at "
          "the edge and in the response. Secrets never reach the log: only `key_id` is bound.")
    return s


def two_compactions() -> PiSession:
    s = PiSession(seed=32, start="2026-11-23T09:40:10.550Z", cwd=ROOT, ratio=1.32)
    rng = s.rng
    w = Workspace(s, ROOT, _files(rng))
    s.model_change("anthropic", "claude-sonnet-4-5")
    s.thinking_level("medium")
    # turn 1: the task and its constraints
    s.user("Redirects still do a Redis HINCRBY per click. Take click counting off the hot path: buffer in memory, "
           "flush in batches. Constraints: flush interval ≤ 1 s (the dashboard SLA promises clicks within 2 s), "
           "losing up to one interval on a crash is fine, double counting is not. Pending batches should also land "
           "in the hash snip:clicks:pending so the analytics exporter sees both nodes. Don't break the LinkStore "
           "protocol, marek's list_for work depends on it.", pause=(1, 3))
    s.steps([("read", {"path": p}, w.read_result(p)[0], False) for p in ("src/snip/app.py", "src/snip/storage.py")],
            thinking="Find the redirect handler and the click increment.")
    w.read_chunks("logs/app-2026-11-19.jsonl", 1, ["How expensive is a redirect today? The app log has durations."])
    w.bash("timeout 3 redis-cli monitor | head -n 600", "OK\n" + redis_monitor(rng, 240, 1763890800.0),
           thinking="Measure what Redis does per redirect.")
    s.say("Per redirect: one HGETALL (lookup) and one HINCRBY (click). From the timings, HINCRBY is ~2.6 ms of a "
          "4.1 ms p50. Design: `ClickBuffer` (dict + asyncio.Lock) in `src/snip/clicks.py`, `flush_loop` every 1 s "
          "writing HINCRBYs in one non-transactional pipeline, both into the link hashes and `snip:clicks:pending`.")
    w.write("src/snip/clicks.py", CLICKS)
    w.edit("src/snip/app.py", "        await store.incr_clicks(code)\n", "        await app.state.clicks.add(code)\n")
    w.edit("src/snip/app.py", "    app.state.store = store\n",
           "    app.state.store = store\n    app.state.clicks = ClickBuffer()\n\n"
           "    @app.on_event(\"startup\")\n    async def _start_flush() -> None:\n"
           "        app.state.redis = aioredis.from_url(settings.redis_url or \"redis://localhost:6379/0\")\n"
           "        app.state.flush_task = asyncio.create_task(flush_loop(app.state.clicks, app.state.redis))\n")
    w.edit("src/snip/app.py", "import secrets\n", "import asyncio\nimport contextlib\nimport secrets\n")
    w.edit("src/snip/app.py", "from .storage import Link, LinkStore, MemoryStore, RedisStore, now\n",
           "from .clicks import ClickBuffer, flush_loop, flush_once\nfrom .storage import Link, LinkStore, MemoryStore, RedisStore, now\n")
    w.bash("pytest -q 2>&1 | tail -12",
           "....F.....\n_____________________________ test_clicks_counted ______________________________\n"
           ">       assert client.get(f\"/v1/links/{code}\", headers=auth).json()[\"clicks\"] == 3\n"
           "E       assert 0 == 3\n\ntests/test_api.py:33: AssertionError\n1 failed, 9 passed in 0.84s", code=1)
    s.say("Expected: clicks are buffered and nothing flushes in the test. The owner view should include pending "
          "clicks; that's next on my list.")
    # turn 2: the shutdown test
    s.user("OK. Also write a test for shutdown, I don't want to lose clicks on every deploy.", pause=(60, 180))
    w.write("tests/test_clicks.py", TEST_CLICKS)
    w.bash("pytest -q tests/test_clicks.py 2>&1 | tail -8",
           "..F\n___________________________ test_final_flush_on_shutdown ___________________________\n"
           ">       assert await r.hget(\"snip:link:abc1234\", \"clicks\") == b\"5\"\nE       AssertionError: assert b'3' == b'5'\n\n"
           "tests/test_clicks.py:41: AssertionError\n1 failed, 2 passed in 1.32s", code=1)
    s.say("The shutdown test loses the last 2 clicks: there is no final flush, and the loop is cancelled while a "
          "drain may be in flight. Fix: on shutdown cancel the loop, await it, then flush once more.")
    # turn 3: a question that reads a lot of log (the first compaction cuts inside this turn)
    s.user("Before you fix that: how many distinct codes get clicked per second at peak? I want to know how big "
           "the batches get. The edge log from the incident night is a fair peak.", pause=(60, 180))
    w.read_chunks("logs/edge-access-2026-11-19.log", 2, [
        "Count redirects per second and distinct codes per second in the incident-night edge log.",
        "Second page to cover the peak minutes."])
    s.compact(SUMMARY_TWO_A, keep_recent=20000, turn_prefix=PREFIX_TWO_A)
    s.say("Redirects at peak: ~25-40 per second across 8 distinct codes (promo24, launch, aZ3kP0q, hiring and a "
          "few others dominate). A 1 s batch is therefore a pipeline of at most ~10 HINCRBY pairs: tiny. Now the "
          "shutdown fix.")
    s.step("read", {"path": "src/snip/app.py"}, w.read_result("src/snip/app.py")[0])
    w.edit("src/snip/app.py", "    return app\n",
           "    @app.on_event(\"shutdown\")\n    async def _final_flush() -> None:\n"
           "        task = app.state.flush_task\n        task.cancel()\n        with contextlib.suppress(asyncio.CancelledError):\n"
           "            await task\n        await flush_once(app.state.clicks, app.state.redis)\n\n    return app\n")
    w.bash("pytest -q tests/test_clicks.py 2>&1 | tail -2", "...\n3 passed in 1.18s")
    w.edit("src/snip/app.py", "        return out(link)\n\n    @app.delete",
           "        return out(link).model_copy(update={\"clicks\": link.clicks + app.state.clicks.pending(code)})\n\n    @app.delete",
           text="Owner view: add the clicks still pending in this process.")
    w.bash("pytest -q 2>&1 | tail -2", ".............\n13 passed in 1.02s")
    w.bash("hey -z 30s -c 50 http://localhost:8080/aZ3kP0q | sed -n '1,12p;/Latency/,/99%/p'",
           "Summary:\n  Total:\t30.0021 secs\n  Slowest:\t0.0412 secs\n  Fastest:\t0.0004 secs\n  Average:\t0.0016 secs\n"
           "  Requests/sec:\t31127.1183\n\nLatency distribution:\n  10% in 0.0007 secs\n  25% in 0.0010 secs\n"
           "  50% in 0.0013 secs\n  75% in 0.0018 secs\n  90% in 0.0027 secs\n  95% in 0.0035 secs\n  99% in 0.0060 secs",
           took=(30, 32))
    w.read_chunks("logs/app-2026-11-19.jsonl", 1, [
        "Compare with the incident-night redirect latencies from the app log."])
    s.say("Shutdown now drains the buffer (3/3 click tests pass), owners see pending clicks, and redirects got "
          "faster: p50 4.1 ms → 1.3 ms, p99 19 ms → 6 ms (hey, 50 concurrent, 30 s).")
    # turn 4: more reading (the second compaction happens after it)
    s.user("Great numbers. Does Redis agree? Check its command stats, and how many flush writes we'd do at the "
           "incident-night level.", pause=(120, 400))
    w.bash("redis-cli info commandstats | grep -E 'hincrby|hgetall'",
           "cmdstat_hgetall:calls=1873441,usec=2104412,usec_per_call=1.12,rejected_calls=0,failed_calls=0\n"
           "cmdstat_hincrby:calls=96212,usec=119844,usec_per_call=1.25,rejected_calls=0,failed_calls=0")
    w.read_chunks("logs/edge-access-2026-11-19.log", 1, [
        "Redirect volume per second at the incident peak, to turn into flush pipelines per second."])
    s.say("HINCRBY calls dropped to one per code per flush instead of one per click: at the incident peak that "
          "is ~1 pipeline per second per node with ≤10 codes, instead of ~40 HINCRBYs per second.")
    s.compact(SUMMARY_TWO_B, keep_recent=20000)
    # turn 5: a request that conflicts with the constraint the second summary dropped
    s.user("Actually, even 1 flush per second is more Redis writes than I'd like — make the interval configurable, "
           "default 5 s.", pause=(120, 400))
    s.say("Making it `SNIP_CLICK_FLUSH_INTERVAL`, default 5.0 s.")
    w.edit("src/snip/config.py", "    log_level: str = \"info\"\n",
           "    log_level: str = \"info\"\n    click_flush_interval: float = Field(default=5.0, gt=0)\n")
    w.edit("src/snip/app.py", "flush_loop(app.state.clicks, app.state.redis)",
           "flush_loop(app.state.clicks, app.state.redis, settings.click_flush_interval)")
    w.bash("pytest -q 2>&1 | tail -2 && git checkout -qb clicks-buffer && git add -A src tests && "
           "git commit -qm 'Buffer click counts off the redirect path' && git log --oneline -1",
           ".............\n13 passed in 1.04s\n7c3e0b9 Buffer click counts off the redirect path")
    s.say("Committed on `clicks-buffer` (7c3e0b9): clicks are buffered per process and flushed every "
          "`SNIP_CLICK_FLUSH_INTERVAL` seconds (default 5.0), the owner view adds pending clicks, shutdown "
          "drains the buffer. Redirect p50 went from 4.1 ms to 1.3 ms.")
    return s
