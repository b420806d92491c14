"""pi-coding-session.jsonl: adding per-API-key rate limiting to `snip`, a small FastAPI service."""

from __future__ import annotations

from . import snip_src as src
from .bulk import app_log, hey_report, redis_monitor
from .pi import PiSession
from .util import png_chart
from .workspace import Workspace, access_log

ROOT = "/home/dana/src/snip"

PYTEST_HEADER = """============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.3.2, pluggy-1.5.0
rootdir: /home/dana/src/snip
configfile: pyproject.toml
testpaths: tests
plugins: asyncio-0.23.8, anyio-4.4.0
asyncio: mode=Mode.AUTO
collected {n} items
"""

API_TESTS = ["test_healthz", "test_create_requires_key", "test_create_and_follow", "test_custom_code_conflict",
             "test_clicks_counted", "test_other_owner_cannot_see", "test_list_pagination", "test_url_too_long"]
STORAGE_TESTS = [f"{t}[{b}]" for t in ("test_put_get", "test_put_conflict", "test_delete", "test_list_pages")
                 for b in ("memory", "redis")]
RL_TESTS = ["test_burst_then_reject", "test_refill_over_time", "test_keys_are_independent", "test_headers_on_reject",
            "test_api_returns_429_with_retry_after", "test_redirects_are_not_limited", "test_per_key_override",
            "test_unauthenticated_requests_are_not_charged"]


def pytest_verbose(outcomes: dict[str, str], failures: str = "", seconds: float = 1.2) -> str:
    """`pytest -v` output for the given {nodeid: outcome} map plus a failures section."""
    n = len(outcomes)
    lines = [PYTEST_HEADER.format(n=n)]
    for i, (node, outcome) in enumerate(outcomes.items(), 1):
        pct = i * 100 // n
        lines.append(f"{node} {outcome} {'':>{max(1, 60 - len(node) - len(outcome))}}[{pct:>3}%]")
    body = "\n".join(lines)
    if failures:
        body += "\n\n=================================== FAILURES ===================================\n" + failures
    failed = [k for k, v in outcomes.items() if v == "FAILED"]
    errored = [k for k, v in outcomes.items() if v == "ERROR"]
    passed = sum(1 for v in outcomes.values() if v == "PASSED")
    if failed or errored:
        body += "\n=========================== short test summary info ============================\n"
        body += "\n".join(f"FAILED {k}" for k in failed) + ("\n" if failed and errored else "")
        body += "\n".join(f"ERROR {k}" for k in errored)
    parts = []
    if failed:
        parts.append(f"{len(failed)} failed")
    parts.append(f"{passed} passed")
    if errored:
        parts.append(f"{len(errored)} errors")
    body += f"\n{'=' * 20} {', '.join(parts)} in {seconds:.2f}s {'=' * 20}"
    return body


def outcomes(api: str = "PASSED", storage: str = "PASSED", rl: dict[str, str] | None = None,
             with_rl: bool = True) -> dict[str, str]:
    out = {f"tests/test_api.py::{t}": api for t in API_TESTS}
    if with_rl:
        for t in RL_TESTS:
            out[f"tests/test_ratelimit.py::{t}"] = (rl or {}).get(t, "PASSED")
    out.update({f"tests/test_storage.py::{t}": storage for t in STORAGE_TESTS})
    return out


TEST_STORAGE = '''import fakeredis.aioredis
import pytest

from snip.storage import Link, MemoryStore, RedisStore


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> MemoryStore | RedisStore:
    if request.param == "memory":
        return MemoryStore()
    return RedisStore(fakeredis.aioredis.FakeRedis())


async def test_put_get(store) -> None:
    link = Link("abc1234", "https://example.org", "k1", 1.0)
    assert await store.put(link)
    got = await store.get("abc1234")
    assert got is not None and got.url == "https://example.org"


async def test_put_conflict(store) -> None:
    link = Link("abc1234", "https://example.org", "k1", 1.0)
    assert await store.put(link)
    assert not await store.put(link)


async def test_delete(store) -> None:
    await store.put(Link("gone123", "https://example.org", "k1", 1.0))
    assert await store.delete("gone123")
    assert await store.get("gone123") is None


async def test_list_pages(store) -> None:
    for i in range(5):
        await store.put(Link(f"code{i:03d}", f"https://example.org/{i}", "k1", float(i)))
    page, nxt = await store.list_for("k1", 0, 2)
    assert [l.code for l in page] == ["code000", "code001"] and nxt == 2
'''

MIDDLEWARE_V1 = '''"""Starlette middleware that applies the per-key rate limit to /v1 requests."""

from __future__ import annotations

from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from .ratelimit import Limiter, headers_for


class RateLimitMiddleware(BaseHTTPMiddleware):
    def __init__(self, app, limiter: Limiter, settings) -> None:  # type: ignore[no-untyped-def]
        super().__init__(app)
        self.limiter = limiter
        self.settings = settings

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        if not request.url.path.startswith("/v1/"):
            return await call_next(request)
        key = request.state.api_key
        decision = await self.limiter.hit(key.key_id, self.settings.limit_for(key.key_id))
        if not decision.allowed:
            return JSONResponse({"detail": "rate limit exceeded"}, status_code=429,
                                headers=headers_for(decision))
        response = await call_next(request)
        response.headers.update(headers_for(decision))
        return response
'''

CONFIG_FIELDS_OLD = '''    trusted_proxies: list[str] = Field(default_factory=lambda: ["10.0.0.0/8"])
'''

CONFIG_FIELDS_NEW = '''    trusted_proxies: list[str] = Field(default_factory=lambda: ["10.0.0.0/8"])

    # Per-API-key token bucket. Overrides map a key id to "<per_minute>/<burst>".
    rate_limit_enabled: bool = True
    rate_limit_per_minute: int = Field(default=120, ge=1)
    rate_limit_burst: int = Field(default=20, ge=1)
    rate_limit_overrides: dict[str, str] = Field(default_factory=dict)
    rate_limit_redis_prefix: str = "snip:rl:"

    def limit_for(self, key_id: str) -> Limit:
        """The bucket for one key: its override if configured, else the defaults."""
        spec = self.rate_limit_overrides.get(key_id)
        if spec is None:
            return Limit(per_minute=self.rate_limit_per_minute, burst=self.rate_limit_burst)
        per_minute, _, burst = spec.partition("/")
        return Limit(per_minute=int(per_minute), burst=int(burst or per_minute))
'''

APP_DEP_OLD = '''def create_app(settings: Settings | None = None, store: LinkStore | None = None,
               keyring: KeyRing | None = None) -> FastAPI:
    settings = settings or get_settings()
    app = FastAPI(title="snip", version="0.9.3")
'''

APP_DEP_NEW = '''class RateLimited(Exception):
    """Raised by the rate-limit dependency; turned into a 429 by the handler in create_app."""

    def __init__(self, decision: Decision) -> None:
        self.decision = decision


def create_app(settings: Settings | None = None, store: LinkStore | None = None,
               keyring: KeyRing | None = None, limiter: Limiter | None = None) -> FastAPI:
    settings = settings or get_settings()
    app = FastAPI(title="snip", version="0.9.3")
    if limiter is None:
        if settings.redis_url:
            limiter = RedisLimiter(aioredis.from_url(settings.redis_url), prefix=settings.rate_limit_redis_prefix)
        else:
            limiter = MemoryLimiter()
    app.state.limiter = limiter

    async def rate_limited(response: Response, key: ApiKey = Depends(require_key)) -> ApiKey:
        """Charge one token to the caller's bucket; runs after auth so only valid keys are charged."""
        if not settings.rate_limit_enabled:
            return key
        decision = await limiter.hit(key.key_id, settings.limit_for(key.key_id))
        if not decision.allowed:
            log.warning("ratelimit.rejected", key_id=key.key_id, retry_after=decision.retry_after)
            raise RateLimited(decision)
        response.headers.update(headers_for(decision))
        return key

    @app.exception_handler(RateLimited)
    async def on_rate_limited(request: Request, exc: RateLimited) -> JSONResponse:
        retry = int(headers_for(exc.decision)["Retry-After"])
        return JSONResponse({"detail": "rate limit exceeded", "retry_after": retry}, status_code=429,
                            headers=headers_for(exc.decision))
'''


RATELIMIT_V1 = src.RATELIMIT.replace(
    "        out[\"Retry-After\"] = str(max(1, math.ceil(decision.retry_after)))\n    return out\n",
    "        out[\"Retry-After\"] = str(max(1, math.ceil(decision.retry_after)))\n"
    "    if decision.remaining == 0:\n"
    "        # an empty bucket: tell the client when it is usable again\n"
    "        out[\"Retry-After\"] = str(max(1, math.ceil(decision.reset_after)))\n"
    "    return out\n")


COMPOSE = """services:
  redis:
    image: redis:7.2-alpine
    command: ["redis-server", "--maxmemory", "256mb", "--maxmemory-policy", "allkeys-lru"]
    ports: ["6379:6379"]
  app1: &app
    build: .
    environment:
      SNIP_REDIS_URL: redis://redis:6379/0
      SNIP_API_KEYS_FILE: /run/keys.json
      SNIP_LOG_LEVEL: info
    volumes: ["./keys.example.json:/run/keys.json:ro"]
    depends_on: [redis]
  app2: *app
  edge:
    image: nginx:1.27-alpine
    volumes: ["./deploy/nginx.conf:/etc/nginx/nginx.conf:ro"]
    ports: ["8080:80"]
    depends_on: [app1, app2]
  staging-replay:
    image: registry.internal/snip-replay:2026.11
    environment:
      REPLAY_TARGET: http://edge
      REPLAY_REDIS: redis://redis:6379/0
    profiles: ["replay"]
"""

CI = """name: ci
on:
  push:
    branches: [main]
  pull_request:

jobs:
  test:
    runs-on: ubuntu-24.04
    services:
      redis:
        image: redis:7.2-alpine
        ports: ["6379:6379"]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - run: pip install -e '.[dev]'
      - run: ruff check src tests
      - run: mypy
      - run: pytest -q
"""


def build() -> PiSession:
    s = PiSession(seed=20261119, start="2026-11-20T09:12:03.417Z", cwd=ROOT, ratio=1.305)
    rng = s.rng
    files = {
        "pyproject.toml": src.PYPROJECT,
        "README.md": src.README,
        "src/snip/__init__.py": src.INIT,
        "src/snip/config.py": src.CONFIG,
        "src/snip/storage.py": src.STORAGE,
        "src/snip/auth.py": src.AUTH,
        "src/snip/app.py": src.APP,
        "tests/conftest.py": src.CONFTEST,
        "tests/test_api.py": src.TEST_API,
        "tests/test_storage.py": TEST_STORAGE,
        "logs/edge-access-2026-11-19.log": access_log(rng, 4200, "2026-11-19T01:58:00"),
        "logs/app-2026-11-19.jsonl": app_log(rng, 2600, "2026-11-19T02:03:11"),
    }
    w = Workspace(s, ROOT, files)
    s.model_change("anthropic", "claude-sonnet-4-5")
    s.thinking_level("medium")

    # ------------------------------------------------------------------ task
    s.user(
        "Last night (Nov 19, ~02:00-03:30 UTC) one API client hammered GET /v1/links with limit=200 and took "
        "both app nodes down; redirects timed out for everyone. I want per-API-key rate limiting in snip:\n\n"
        "- token bucket per key id, defaults 120 requests/minute with a burst of 20\n"
        "- per-key overrides in config (our internal importer key k_9LmA needs much more)\n"
        "- 429 with Retry-After and X-RateLimit-Limit / -Remaining / -Reset headers, JSON body\n"
        "- shared between the two app nodes through Redis when SNIP_REDIS_URL is set, in-memory otherwise\n"
        "- do NOT rate-limit the public redirect GET /{code}; unauthenticated requests must not eat anyone's quota\n"
        "- no new runtime dependencies please (slowapi etc. are out), fakeredis for tests is fine\n\n"
        "Start by looking at the code and the logs in logs/ so the defaults make sense. `pytest -q` must pass "
        "at the end, and ruff + mypy too.",
        pause=(2, 5),
    )
    w.bash(
        "git status --short && git log --oneline -8 && find . -path ./.venv -prune -o -type f -print | sort | head -80",
        "a3e91c0 storage: page owner index with ZRANGE instead of SMEMBERS\n"
        "7f02b5d api: cap list limit at 200\n"
        "c19d4a2 auth: constant-time secret comparison\n"
        "55e0f7e healthz for the load balancer\n"
        "0b8c6d1 redis store behind SNIP_REDIS_URL\n"
        "e2d9f13 custom codes + conflict handling\n"
        "9a4170c first version: memory store, create/follow\n"
        "1d0e6b7 initial commit\n"
        "./.env.example\n./.github/workflows/ci.yml\n./.gitignore\n./README.md\n./docker-compose.yml\n"
        "./docs/incident-2026-11-19/notes.md\n./docs/incident-2026-11-19/requests-per-key.png\n"
        "./keys.example.json\n./logs/app-2026-11-19.jsonl\n./logs/edge-access-2026-11-19.log\n./pyproject.toml\n"
        "./src/snip/__init__.py\n./src/snip/app.py\n./src/snip/auth.py\n./src/snip/config.py\n"
        "./src/snip/storage.py\n./tests/conftest.py\n./tests/test_api.py\n./tests/test_storage.py",
        thinking="Let me get oriented first: repository layout, recent history, and whether the tree is clean "
                 "before I touch anything.",
    )
    w.files.update({"docker-compose.yml": COMPOSE, ".github/workflows/ci.yml": CI})
    w.original.update({"docker-compose.yml": COMPOSE, ".github/workflows/ci.yml": CI})
    s.steps([
        ("read", {"path": "README.md"}, w.read_result("README.md")[0], False),
        ("read", {"path": "pyproject.toml"}, w.read_result("pyproject.toml")[0], False),
        ("read", {"path": "src/snip/app.py"}, w.read_result("src/snip/app.py")[0], False),
    ], thinking="Clean tree. A small FastAPI service: app.py holds the routes, storage.py the Redis and memory "
                "stores, auth.py the API keys. I'll read the core files together.")
    w.read("src/snip/settings.py",
           thinking="create_app takes Settings from .config... I half expected a settings module; let me check "
                    "where the settings model lives, the README mentions src/snip/config.py but the import in "
                    "auth could differ.")
    s.steps([
        ("read", {"path": "src/snip/config.py"}, w.read_result("src/snip/config.py")[0], False),
        ("read", {"path": "src/snip/auth.py"}, w.read_result("src/snip/auth.py")[0], False),
        ("read", {"path": "src/snip/storage.py"}, w.read_result("src/snip/storage.py")[0], False),
    ], text="No settings.py — the settings live in config.py. Reading it together with auth and storage.")
    s.steps([
        ("read", {"path": "tests/conftest.py"}, w.read_result("tests/conftest.py")[0], False),
        ("read", {"path": "tests/test_api.py"}, w.read_result("tests/test_api.py")[0], False),
    ], thinking="Key points so far:\n- require_key is a FastAPI dependency; it sets request.state.api_key and "
                "returns ApiKey(key_id, owner, plan).\n- The list endpoint caps limit at 200, and RedisStore."
                "list_for does one HGETALL per code: a 200-item page is 201 Redis round trips. That is why one "
                "client could saturate both nodes.\n- Settings are pydantic-settings with prefix SNIP_.\n"
                "Now the tests, to see how the app is constructed in tests (create_app takes store and keyring, "
                "so I can add a limiter parameter the same way).")
    s.steps([
        ("read", {"path": "docker-compose.yml"}, COMPOSE, False),
        ("read", {"path": ".github/workflows/ci.yml"}, CI, False),
    ], text="Also the compose file and CI, to know how Redis is provided in dev and in CI.")
    notes = (
        "# Incident 2026-11-19: list API overload\n\n"
        "- 02:04 UTC pager: edge-lb 5xx ratio > 20%\n"
        "- 02:06 both app nodes at 100% CPU, redis CPU 85%, p99 redirect latency 28s\n"
        "- 02:11 identified key k_7Qx2 (customer: Brightpath Analytics) paging /v1/links?limit=200 in a loop,\n"
        "  ~40 req/s sustained, no backoff on 504\n"
        "- 02:37 key k_7Qx2 revoked manually (keys.json edit + restart)\n"
        "- 03:22 customer contacted; their sync job had a bug (cursor never advanced past 40000)\n"
        "- 03:31 key re-issued, customer promised a fix\n\n"
        "## Follow-ups\n"
        "1. rate limiting per key (owner: dana)\n"
        "2. make list_for pipeline its HGETALLs (owner: marek)\n"
        "3. alert on per-key request rate (owner: ops)\n"
    )
    w.files["docs/incident-2026-11-19/notes.md"] = notes
    w.read("docs/incident-2026-11-19/notes.md",
           text="Tests build the app through create_app(settings=..., store=..., keyring=...), good. Before "
                "designing anything, the incident notes and logs.")
    s.step("read", {"path": "docs/incident-2026-11-19/requests-per-key.png"}, "Read image file [image/png]",
           image={"type": "image", "data": png_chart(), "mimeType": "image/png"},
           thinking="There's a chart in the incident folder too; it should show the per-key request rate.")
    s.say(
        "The chart shows one key's requests per minute jumping roughly 5x above everyone else for about "
        "two buckets, which matches the notes (k_7Qx2 at ~40 req/s). I'll check the raw access log to size the "
        "defaults against normal traffic, not just the outlier.",
    )
    w.bash("wc -l logs/edge-access-2026-11-19.log logs/app-2026-11-19.jsonl && head -c 300 logs/edge-access-2026-11-19.log",
           f"  {w.files['logs/edge-access-2026-11-19.log'].count(chr(10)) + 1} logs/edge-access-2026-11-19.log\n"
           f"  {w.files['logs/app-2026-11-19.jsonl'].count(chr(10)) + 1} logs/app-2026-11-19.jsonl\n"
           f"  {4200 + 2600} total\n" + w.files["logs/edge-access-2026-11-19.log"][:300])
    w.read_chunks("logs/edge-access-2026-11-19.log", 5, [
        "4200 lines of nginx-format log. I'll read the start to see the shape of normal traffic versus the hot "
        "key, then aggregate with awk instead of eyeballing everything.",
        "First page: 02:00-02:06. k_7Qx2 from 203.0.113.41 is already most of the traffic, cursor values "
        "jump around (not monotonic) which matches the 'cursor never advanced' note. Redirects are mixed in "
        "with rt in the low milliseconds. Next page should show the 504s start.",
        "504s with rt=30.000 appear on both upstreams, interleaved with slow 200s of the same key. Healthz "
        "still answers in ~2 ms, so the nodes weren't dead, just saturated by the list calls. One more page "
        "to see whether other keys were affected before aggregating.",
        "Other keys' requests (k_2bNf, k_Q3ze, k_9LmA...) show rt in the tens of milliseconds for "
        "/v1/links/{code}, i.e. they were slowed down but mostly served. The user asked for defaults that "
        "make sense; I'll keep paging through the peak since that is where the revocation happened.",
        "Still the same mix. POSTs from normal keys keep succeeding with 201. The 504 share looks highest "
        "here; continuing to the end of the peak.",
        "k_7Qx2 is still all over this part of the log, so this is still before the 02:37 revocation. One "
        "last page, then numbers via awk over the whole file instead of paging further.",
    ])
    w.bash(
        "awk '{for(i=1;i<=NF;i++) if($i ~ /^key=/) k=$i; print k}' logs/edge-access-2026-11-19.log | sort | uniq -c | sort -rn",
        "   2531 key=k_7Qx2\n    1046 key=-\n     105 key=k_Q3ze\n     101 key=k_2bNf\n      99 key=k_9LmA\n"
        "      97 key=k_0pRt\n      94 key=k_h8Kd\n      92 key=k_Wd1s",
        thinking="Count per key across the whole window.",
    )
    w.bash(
        "awk '$0 ~ /key=k_9LmA/ {split($4,t,\":\"); m=t[2]\":\"t[3]; c[m]++} END {for (m in c) print m, c[m]}' "
        "logs/edge-access-2026-11-19.log | sort | tail -20",
        "\n".join(f"{2 + i // 60:02d}:{i % 60:02d} {rng.randint(1, 9)}" for i in range(0, 40, 2)),
        thinking="Normal keys are at roughly 100 requests in the ~6 minute window; k_9LmA is the internal "
                 "importer the user mentioned. Let me look at its per-minute peak, since the default must not "
                 "hurt regular customers.",
    )
    s.say("Per-minute peaks for normal keys stay under 10/min, so 120/min with burst 20 leaves plenty of "
          "headroom. The app log should confirm the cost per list request and show what Redis was doing.")
    w.read_chunks("logs/app-2026-11-19.jsonl", 4, [
        "structlog JSON, one line per request. redis_calls=201 on every list request of k_7Qx2 and "
        "duration_ms in the hundreds; redis.slow warnings on ZRANGE snip:owner:k_7Qx2.",
        "Same pattern continues; the 504s here are logged at error level with 'upstream timed out', so the "
        "app itself kept working the requests after nginx gave up on them — wasted work. A limiter rejecting "
        "early (before any storage call) would have shed all of that.",
        "Redis slow-log warnings cluster around the same minutes as the 504s. The ZRANGE itself is slow "
        "(40-400 ms) because the owner index of k_7Qx2 is huge (the sync job created ~40k links).",
        "Last page I need. Nothing else stands out: link.created events from three normal keys, redirects "
        "fine when they got through.",
    ])
    s.say(
        "Findings:\n\n"
        "- **k_7Qx2** made 2531 of 4200 requests in the window, all `GET /v1/links?limit=200`, ~0.1-0.9 s each "
        "and 201 Redis calls per request (one ZRANGE + 200 HGETALL).\n"
        "- Every other key peaks below 10 requests/minute; redirects are ~25% of traffic and cheap.\n"
        "- 120/min with a burst of 20 would have cut k_7Qx2 to ~2 req/s, about 5% of what it sent.\n\n"
        "Plan:\n"
        "1. `src/snip/ratelimit.py`: `Limit`, `Decision`, a `MemoryLimiter` and a `RedisLimiter` that runs the "
        "bucket update as one Lua script (atomic across both nodes), plus `headers_for(decision)`.\n"
        "2. Settings: `rate_limit_enabled`, `rate_limit_per_minute=120`, `rate_limit_burst=20`, "
        "`rate_limit_overrides` (`{\"k_9LmA\": \"6000/500\"}` style), `rate_limit_redis_prefix`.\n"
        "3. Apply the limit to /v1 routes only, after authentication.\n"
        "4. Tests with a fake clock; fakeredis for the Redis limiter.\n\n"
        "Starting with the limiter module.",
    )
    w.write("src/snip/ratelimit.py", RATELIMIT_V1,
            thinking="Token bucket state per key: (tokens, last timestamp). Refill lazily on each hit: tokens = "
                     "min(capacity, tokens + elapsed * rate). In Redis this must be one atomic step or two nodes "
                     "can both read 1 token and both spend it, so a Lua script with HMGET/HSET/EXPIRE. TTL: a "
                     "bucket refills completely after burst/rate seconds, after that the key can expire; use "
                     "twice that, at least 60 s. Retry-After is the time until one token is available: "
                     "(cost - tokens)/rate, rounded up to whole seconds for the header.")
    w.write("src/snip/middleware.py", MIDDLEWARE_V1,
            thinking="Wiring: a middleware is the usual place for cross-cutting limits. It needs the key id, "
                     "which require_key stores in request.state.api_key. The middleware only acts on /v1/ paths, "
                     "so redirects stay unlimited.")
    w.edit("src/snip/config.py", CONFIG_FIELDS_OLD, CONFIG_FIELDS_NEW,
           text="Now the settings fields and `limit_for`.")
    w.edit("src/snip/config.py",
           "from pydantic import Field\nfrom pydantic_settings import BaseSettings, SettingsConfigDict\n",
           "from pydantic import Field\nfrom pydantic_settings import BaseSettings, SettingsConfigDict\n\n"
           "from .ratelimit import Limit\n")
    w.edit("src/snip/app.py",
           "    app.state.store = store\n    app.state.settings = settings\n    app.state.keyring = keyring or "
           "KeyRing.from_file(settings.api_keys_file)\n",
           "    app.state.store = store\n    app.state.settings = settings\n    app.state.keyring = keyring or "
           "KeyRing.from_file(settings.api_keys_file)\n    app.add_middleware(RateLimitMiddleware, "
           "limiter=limiter, settings=settings)\n",
           text="Register the middleware in create_app.")
    w.edit("src/snip/app.py",
           "def create_app(settings: Settings | None = None, store: LinkStore | None = None,\n"
           "               keyring: KeyRing | None = None) -> FastAPI:\n"
           "    settings = settings or get_settings()\n",
           "def create_app(settings: Settings | None = None, store: LinkStore | None = None,\n"
           "               keyring: KeyRing | None = None, limiter: Limiter | None = None) -> FastAPI:\n"
           "    settings = settings or get_settings()\n"
           "    if limiter is None:\n"
           "        limiter = (RedisLimiter(aioredis.from_url(settings.redis_url), prefix=settings.rate_limit_redis_prefix)\n"
           "                   if settings.redis_url else MemoryLimiter())\n",
           text="And the `limiter` parameter so tests can inject one with a fake clock.")
    w.edit("src/snip/app.py",
           "from .auth import ApiKey, KeyRing, require_key\nfrom .config import Settings, get_settings\n",
           "from .auth import ApiKey, KeyRing, require_key\nfrom .config import Settings, get_settings\n"
           "from .middleware import RateLimitMiddleware\nfrom .ratelimit import Limiter, MemoryLimiter, RedisLimiter\n")
    w.write("tests/test_ratelimit.py", src.TEST_RATELIMIT,
            thinking="Tests: unit tests of MemoryLimiter with a fake clock (burst, refill, independence, headers), "
                     "then API-level tests through create_app(limiter=MemoryLimiter(clock=...)): 429 body and "
                     "Retry-After, redirects unlimited, per-key override, unauthenticated requests not charged.")
    w.bash("pytest -q 2>&1 | tail -30",
           "ImportError while importing test module '/home/dana/src/snip/tests/test_ratelimit.py'.\n"
           "Hint: make sure your test modules/packages have valid Python names.\nTraceback:\n"
           "/usr/lib/python3.12/importlib/__init__.py:90: in import_module\n"
           "    return _bootstrap._gcd_import(name[level:], package, level)\n"
           "tests/test_ratelimit.py:8: in <module>\n    from .conftest import _ring\n"
           "E   ImportError: attempted relative import with no known parent package\n"
           "=========================== short test summary info ============================\n"
           "ERROR tests/test_ratelimit.py\n!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!\n"
           "1 error in 0.61s", code=2)
    w.write("tests/__init__.py", "",
            thinking="tests/ is not a package, so `from .conftest import _ring` fails at collection. Making tests a "
                     "package is the smallest fix (pytest's rootdir-based import then resolves tests.conftest).")
    mw_fail = "\n".join(
        f"_{'_' * 20} {t} {'_' * 20}\n\nclient = <starlette.testclient.TestClient object at 0x7f{rng.randrange(16**9):09x}>\n"
        f"auth = {{'Authorization': 'Bearer sk_test_k1_s3cr3tvalue'}}\n\n    def {t}(client: TestClient, auth: dict[str, str]) -> None:\n"
        f">       r = client.post(\"/v1/links\", json={{\"url\": \"https://example.org/a\"}}, headers=auth)\n\n"
        "tests/test_api.py:14: \n_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\n"
        ".venv/lib/python3.12/site-packages/starlette/testclient.py:633: in post\n    return super().post(\n"
        ".venv/lib/python3.12/site-packages/httpx/_client.py:1157: in post\n    return self.request(\n"
        ".venv/lib/python3.12/site-packages/starlette/testclient.py:507: in request\n    return super().request(\n"
        ".venv/lib/python3.12/site-packages/starlette/middleware/base.py:189: in __call__\n"
        "    with collapse_excgroups():\n/usr/lib/python3.12/contextlib.py:158: in __exit__\n"
        "    self.gen.throw(value)\n.venv/lib/python3.12/site-packages/starlette/_utils.py:93: in collapse_excgroups\n"
        "    raise exc\n.venv/lib/python3.12/site-packages/starlette/middleware/base.py:191: in __call__\n"
        "    response = await self.dispatch_func(request, call_next)\nsrc/snip/middleware.py:22: in dispatch\n"
        "    key = request.state.api_key\n_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\n\n"
        "self = <starlette.datastructures.State object at 0x7f3c1e2b9a90>, key = 'api_key'\n\n"
        "    def __getattr__(self, key: typing.Any) -> typing.Any:\n        try:\n            return self._state[key]\n"
        "        except KeyError:\n            message = \"'{}' object has no attribute '{}'\"\n"
        ">           raise AttributeError(message.format(self.__class__.__name__, key))\n"
        "E           AttributeError: 'State' object has no attribute 'api_key'\n\n"
        ".venv/lib/python3.12/site-packages/starlette/datastructures.py:702: AttributeError\n"
        for t in ["test_create_and_follow", "test_custom_code_conflict", "test_clicks_counted",
                  "test_other_owner_cannot_see", "test_list_pagination", "test_url_too_long"])
    res = outcomes(rl={t: "FAILED" for t in RL_TESTS[4:]})
    for t in API_TESTS[1:]:
        res[f"tests/test_api.py::{t}"] = "FAILED"
    w.bash("pytest -v 2>&1 | tail -250", pytest_verbose(res, mw_fail, 2.31), code=1)
    s.thinking_level("high")
    s.user(
        "That middleware approach can't work, can it? require_key runs inside the route. Think it through before "
        "you patch it.", pause=(40, 90))
    s.say(
        "You're right. Starlette middleware wraps the whole ASGI app, so it runs *before* routing and therefore "
        "before any FastAPI dependency. `require_key` (a dependency) hasn't run when `dispatch` reads "
        "`request.state.api_key`, hence `AttributeError: 'State' object has no attribute 'api_key'` on every "
        "/v1 request. Re-authenticating inside the middleware would duplicate auth and charge invalid keys.\n\n"
        "The right layer is a dependency that itself depends on `require_key`: it runs after authentication, "
        "only on the routes that declare it (so `GET /{code}` stays unlimited by construction), and it can set "
        "headers on the response through FastAPI's `Response` parameter. A 429 goes through a small exception "
        "class and an exception handler so the JSON body is exactly `{\"detail\": ..., \"retry_after\": n}` "
        "(an `HTTPException` with a dict detail would nest it under `detail`). I'll remove the middleware.",
        thinking="Order of execution in FastAPI/Starlette: ServerErrorMiddleware -> user middleware -> "
                 "ExceptionMiddleware -> router -> route -> dependency resolution -> endpoint. The middleware "
                 "sees the request before the route's dependencies, so request.state.api_key doesn't exist yet. "
                 "Options: (a) parse and verify the bearer token in the middleware too: duplicates auth, and "
                 "invalid keys would have to be handled twice; (b) make the limiter a dependency chained on "
                 "require_key. (b) is clean: `Depends(rate_limited)` on the /v1 routes, where rate_limited "
                 "depends on require_key. Setting headers: a dependency can declare `response: Response` and "
                 "FastAPI merges those headers into the final response. For 429 I need a custom exception + "
                 "handler, because HTTPException(detail=dict) produces {'detail': {...}}.")
    w.bash("git rm -q --cached src/snip/middleware.py 2>/dev/null; rm src/snip/middleware.py && git status --short",
           " M src/snip/app.py\n M src/snip/config.py\n?? src/snip/ratelimit.py\n?? tests/__init__.py\n"
           "?? tests/test_ratelimit.py")
    del w.files["src/snip/middleware.py"]
    w.edit("src/snip/app.py",
           "from .middleware import RateLimitMiddleware\nfrom .ratelimit import Limiter, MemoryLimiter, RedisLimiter\n",
           "from .ratelimit import Decision, Limiter, MemoryLimiter, RedisLimiter, headers_for\n")
    w.edit("src/snip/app.py",
           "    app.add_middleware(RateLimitMiddleware, limiter=limiter, settings=settings)\n", "")
    # A stale edit: the text the agent remembers is from before its own earlier edit.
    w.edit("src/snip/app.py", APP_DEP_OLD, APP_DEP_NEW,
           text="Now the dependency, the exception and its handler in create_app.")
    w.read("src/snip/app.py", offset=1, limit=80,
           thinking="The edit failed: create_app's signature no longer matches what I passed — I changed it "
                    "earlier (limiter parameter and the limiter construction). Re-read the top of the file "
                    "rather than guess.")
    cur = w.files["src/snip/app.py"]
    start = cur.index("def create_app(")
    end = cur.index("    app.state.store = store")
    old_block = cur[start:end]
    new_block = APP_DEP_NEW.replace("    if limiter is None:\n        if settings.redis_url:\n            limiter = RedisLimiter(aioredis.from_url(settings.redis_url), prefix=settings.rate_limit_redis_prefix)\n        else:\n            limiter = MemoryLimiter()\n", "    if limiter is None:\n        limiter = (RedisLimiter(aioredis.from_url(settings.redis_url), prefix=settings.rate_limit_redis_prefix)\n                   if settings.redis_url else MemoryLimiter())\n")
    new_block = new_block.replace("    app = FastAPI(title=\"snip\", version=\"0.9.3\")\n", "", 1)
    new_block = new_block.replace("    settings = settings or get_settings()\n",
                                  "    settings = settings or get_settings()\n    app = FastAPI(title=\"snip\", version=\"0.9.3\")\n", 1)
    new_block += old_block[old_block.index("    if store is None"):] if "    if store is None" in old_block else ""
    w.edit("src/snip/app.py", old_block, new_block)
    w.edit("src/snip/app.py", "from fastapi.responses import RedirectResponse\n",
           "from fastapi.responses import JSONResponse, RedirectResponse\n")
    w.edit("src/snip/app.py", "from fastapi import Depends, FastAPI, HTTPException, Request, status\n",
           "from fastapi import Depends, FastAPI, HTTPException, Request, Response, status\n")
    cur = w.files["src/snip/app.py"]
    for route in ("create_link(body: CreateLink, key: ApiKey = Depends(require_key))",
                  "get_link(code: str, key: ApiKey = Depends(require_key))",
                  "delete_link(code: str, key: ApiKey = Depends(require_key))"):
        w.edit("src/snip/app.py", route, route.replace("require_key", "rate_limited"))
    w.edit("src/snip/app.py", "                         key: ApiKey = Depends(require_key)) -> dict[str, object]:",
           "                         key: ApiKey = Depends(rate_limited)) -> dict[str, object]:")
    res = outcomes(rl={"test_api_returns_429_with_retry_after": "FAILED", "test_per_key_override": "FAILED"})
    fail2 = (
        "__________________ test_api_returns_429_with_retry_after __________________\n\n"
        "clock = <tests.test_ratelimit.FakeClock object at 0x7f1a2c3d5e10>, auth = {'Authorization': 'Bearer sk_test_k1_s3cr3tvalue'}\n\n"
        "    def test_api_returns_429_with_retry_after(clock: FakeClock, auth: dict[str, str]) -> None:\n"
        "        client = _client(clock)\n        codes = [client.get(\"/v1/links\", headers=auth).status_code for _ in range(4)]\n"
        "        assert codes == [200, 200, 200, 429]\n        r = client.get(\"/v1/links\", headers=auth)\n"
        ">       assert r.headers[\"Retry-After\"] == \"1\"\nE       AssertionError: assert '3' == '1'\nE         \nE         - 1\nE         + 3\n\n"
        "tests/test_ratelimit.py:74: AssertionError\n"
        "------------------------------ Captured log call -------------------------------\n"
        "WARNING  snip.app:app.py:67 ratelimit.rejected key_id=k1 retry_after=1.0\n"
        "WARNING  snip.app:app.py:67 ratelimit.rejected key_id=k1 retry_after=1.0\n"
        "__________________________ test_per_key_override ___________________________\n\n"
        "clock = <tests.test_ratelimit.FakeClock object at 0x7f1a2c3d6f50>\n"
        "auth = {'Authorization': 'Bearer sk_test_k1_s3cr3tvalue'}, auth_bob = {'Authorization': 'Bearer sk_test_k2_an0therone'}\n\n"
        "    def test_per_key_override(clock: FakeClock, auth: dict[str, str], auth_bob: dict[str, str]) -> None:\n"
        ">       client = _client(clock, rate_limit_overrides={\"k2\": \"600/10\"})\n\n"
        "tests/test_ratelimit.py:86: \n_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\n\n"
        "clock = <tests.test_ratelimit.FakeClock object at 0x7f1a2c3d6f50>, overrides = {'rate_limit_overrides': {'k2': '600/10'}}\n\n"
        "    def _client(clock: FakeClock, **overrides: object) -> TestClient:\n"
        "        settings = Settings(base_url=\"https://s.test\", api_keys_file=\"/dev/null\",\n"
        ">                           rate_limit_per_minute=60, rate_limit_burst=3, **overrides)\n"
        "E       pydantic_core._pydantic_core.ValidationError: 1 validation error for Settings\n"
        "E       rate_limit_overrides.k_9LmA\n"
        "E         Input should be a valid string [type=string_type, input_value=6000, input_type=int]\n"
        "E           For further information visit https://errors.pydantic.dev/2.8/v/string_type\n\n"
        "tests/test_ratelimit.py:79: ValidationError\n"
    )
    w.bash("pytest -v 2>&1 | tail -120", pytest_verbose(res, fail2, 1.87), code=1,
           text="Middleware removed, routes use the new dependency. Running the suite.")
    w.read("src/snip/ratelimit.py", offset=100,
           thinking="Two failures left, unrelated to each other.\n\n1. Retry-After is '3' where the test "
                    "expects '1', yet the captured log shows the decision's retry_after=1.0. So the decision is "
                    "right and headers_for turns 1.0 into 3. Three is the bucket's reset time: burst 3 at 1 "
                    "token/s. I remember writing a special case for remaining == 0 in headers_for; that must "
                    "be it.\n\n2. test_per_key_override never gets to a request: Settings validation fails on a "
                    "key 'k_9LmA' with an int value 6000. The test only passes {'k2': '600/10'}, so k_9LmA comes "
                    "from outside: an env var or the .env file (pydantic-settings merges dict fields from "
                    "several sources).")
    s.say(
        "Found the first one, and it's my own bug from the first version of `headers_for`: when the bucket is "
        "empty it overrides Retry-After with `ceil(reset_after)` — the time until the bucket is **full** — "
        "instead of the time until **one** token is back (`retry_after`). It also adds Retry-After to a "
        "successful response that happened to spend the last token, and Retry-After belongs on 429 only. "
        "Removing the branch.")
    w.edit("src/snip/ratelimit.py",
           "    if decision.remaining == 0:\n"
           "        # an empty bucket: tell the client when it is usable again\n"
           "        out[\"Retry-After\"] = str(max(1, math.ceil(decision.reset_after)))\n", "")
    w.bash("ls -la .env* ; grep -n RATE .env ; env | grep ^SNIP_",
           "-rw-r--r-- 1 dana dana 212 Nov 12 16:40 .env\n-rw-r--r-- 1 dana dana 198 Oct 30 11:02 .env.example\n"
           "4:SNIP_RATE_LIMIT_PER_MINUTE=30\nSNIP_LOG_LEVEL=debug\nSNIP_RATE_LIMIT_OVERRIDES={\"k_9LmA\": 6000}",
           text="Now where `k_9LmA: 6000` comes from.")
    res = outcomes(rl={"test_per_key_override": "FAILED"})
    fail3 = fail2[fail2.index("__________________________ test_per_key_override"):]
    w.bash("pytest -v 2>&1 | tail -60", pytest_verbose(res, fail3, 1.74), code=1)
    s.say(
        "Retry-After is fixed; only the override test fails. Its cause is the environment, not the code: your "
        "shell exports `SNIP_RATE_LIMIT_OVERRIDES={\"k_9LmA\": 6000}` and `.env` sets "
        "`SNIP_RATE_LIMIT_PER_MINUTE=30`. pydantic-settings merges a dict field from the environment with the "
        "constructor's dict, so the test's `{\"k2\": \"600/10\"}` gained a `k_9LmA: 6000` entry that isn't a "
        "string.\n\n"
        "Two fixes:\n"
        "1. Tests must not read the developer's environment or `.env`: `_env_file=None` in the test settings "
        "and an autouse fixture in conftest that removes `SNIP_*` variables.\n"
        "2. The override format: a string like \"6000/500\" invites exactly this kind of typing mistake. A "
        "structured value is better: `rate_limit_overrides: dict[str, RateLimitOverride]` with `per_minute` "
        "and `burst`, given as JSON in the env var (pydantic-settings parses nested models from JSON).",
        thinking="Where does the exported variable come from? Probably direnv. Check .envrc before blaming "
                 "the user's shell profile.")
    w.bash("env | grep ^SNIP_ ; grep -rn OVERRIDES ~/.config/direnv 2>/dev/null; cat .envrc 2>/dev/null",
           "SNIP_RATE_LIMIT_OVERRIDES={\"k_9LmA\": 6000}\nexport SNIP_LOG_LEVEL=debug\n"
           "export SNIP_RATE_LIMIT_OVERRIDES='{\"k_9LmA\": 6000}'")
    s.say("Found the source: `.envrc` (direnv) exports `SNIP_RATE_LIMIT_OVERRIDES='{\"k_9LmA\": 6000}'` — an "
          "int where `limit_for` expects a `\"per_minute/burst\"` string. Unless you want to keep that env var, "
          "I'll switch the overrides to a structured model and make the tests ignore the shell environment.")
    s.user("Ah, that .envrc is from when I prototyped this last month. Ignore it, I'll delete it. "
           "Go with the structured override, JSON in the env var is fine.", pause=(30, 70))
    w.edit("src/snip/config.py",
           "    rate_limit_overrides: dict[str, str] = Field(default_factory=dict)\n",
           "    rate_limit_overrides: dict[str, RateLimitOverride] = Field(default_factory=dict)\n")
    w.edit("src/snip/config.py",
           "        spec = self.rate_limit_overrides.get(key_id)\n"
           "        if spec is None:\n"
           "            return Limit(per_minute=self.rate_limit_per_minute, burst=self.rate_limit_burst)\n"
           "        per_minute, _, burst = spec.partition(\"/\")\n"
           "        return Limit(per_minute=int(per_minute), burst=int(burst or per_minute))\n",
           "        override = self.rate_limit_overrides.get(key_id)\n"
           "        if override is None:\n"
           "            return Limit(per_minute=self.rate_limit_per_minute, burst=self.rate_limit_burst)\n"
           "        return Limit(per_minute=override.per_minute, burst=override.burst or self.rate_limit_burst)\n")
    w.edit("src/snip/config.py", "class Settings(BaseSettings):\n",
           "class RateLimitOverride(BaseModel):\n"
           "    \"\"\"A per-key bucket, e.g. SNIP_RATE_LIMIT_OVERRIDES='{\"k_9LmA\": {\"per_minute\": 6000, \"burst\": 500}}'.\"\"\"\n\n"
           "    per_minute: int = Field(ge=1)\n    burst: int | None = Field(default=None, ge=1)\n\n\n"
           "class Settings(BaseSettings):\n")
    w.edit("src/snip/config.py", "from pydantic import Field\n", "from pydantic import BaseModel, Field\n")
    w.edit("tests/test_ratelimit.py",
           "    settings = Settings(base_url=\"https://s.test\", api_keys_file=\"/dev/null\",\n"
           "                        rate_limit_per_minute=60, rate_limit_burst=3, **overrides)\n",
           "    settings = Settings(_env_file=None, base_url=\"https://s.test\", api_keys_file=\"/dev/null\",\n"
           "                        rate_limit_per_minute=60, rate_limit_burst=3, **overrides)\n")
    w.edit("tests/test_ratelimit.py", "rate_limit_overrides={\"k2\": \"600/10\"}",
           "rate_limit_overrides={\"k2\": {\"per_minute\": 600, \"burst\": 10}}")
    w.edit("tests/conftest.py", "    return Settings(base_url=\"https://s.test\", api_keys_file=\"/dev/null\")\n",
           "    return Settings(_env_file=None, base_url=\"https://s.test\", api_keys_file=\"/dev/null\")\n")
    w.edit("tests/conftest.py", "@pytest.fixture\ndef settings() -> Settings:\n",
           "@pytest.fixture(autouse=True)\ndef _no_snip_env(monkeypatch: pytest.MonkeyPatch) -> None:\n"
           "    \"\"\"Keep the developer's SNIP_* variables out of the tests.\"\"\"\n"
           "    import os\n\n    for name in [n for n in os.environ if n.startswith(\"SNIP_\")]:\n"
           "        monkeypatch.delenv(name)\n\n\n@pytest.fixture\ndef settings() -> Settings:\n",
           text="And make every test hermetic against SNIP_* variables in the shell.")
    w.bash("pytest -v 2>&1 | tail -40", pytest_verbose(outcomes(), "", 1.66))
    s.say("All 24 tests pass. Now ruff and mypy.")
    w.bash("ruff check src tests && mypy",
           "src/snip/app.py:14:1: I001 [*] Import block is un-sorted or un-formatted\n"
           "tests/test_ratelimit.py:1:1: I001 [*] Import block is un-sorted or un-formatted\n"
           "Found 2 errors.\n[*] 2 fixable with the `--fix` option.", code=1)
    w.bash("ruff check --fix src tests && mypy",
           "Found 2 errors (2 fixed, 0 remaining).\n"
           "src/snip/ratelimit.py:104: error: Returning Any from function declared to return \"Decision\"  [no-any-return]\n"
           "src/snip/ratelimit.py:100: error: Call to untyped function \"__call__\" of \"AsyncScript\" in typed context  [no-untyped-call]\n"
           "src/snip/app.py:57: error: Argument 2 to \"hit\" of \"Limiter\" has incompatible type \"Limit\"; expected \"Limit\"  [arg-type]\n"
           "Found 3 errors in 2 files (checked 7 source files)", code=1)
    s.say(
        "ruff only wanted import sorting and fixed it itself. mypy:\n\n"
        "- `no-untyped-call` / `no-any-return`: redis' `AsyncScript.__call__` is untyped; wrap the result in "
        "a typed unpack with `cast`.\n"
        "- The odd `\"Limit\"; expected \"Limit\"` error means two different `Limit` classes: `config.py` "
        "imports `Limit` from `.ratelimit`, and ratelimit gets imported as both `snip.ratelimit` and via a "
        "stale `src/snip/__pycache__`? More likely mypy sees `Limit` through a circular import. config → "
        "ratelimit is fine, ratelimit doesn't import config. I'll look at how mypy resolves it.")
    w.bash("mypy --show-traceback --no-incremental 2>&1 | tail -5 ; ls src/snip; ls build 2>/dev/null | head",
           "src/snip/ratelimit.py:104: error: Returning Any from function declared to return \"Decision\"  [no-any-return]\n"
           "src/snip/ratelimit.py:100: error: Call to untyped function \"__call__\" of \"AsyncScript\" in typed context  [no-untyped-call]\n"
           "Found 2 errors in 1 file (checked 7 source files)\n__init__.py\n__pycache__\napp.py\nauth.py\nconfig.py\n"
           "ratelimit.py\nstorage.py")
    w.edit("src/snip/ratelimit.py",
           "        allowed, tokens = await self._script(\n"
           "            keys=[self._prefix + key],\n"
           "            args=[limit.burst, limit.rate, self._clock(), cost, ttl],\n"
           "        )\n",
           "        raw = await self._script(  # type: ignore[no-untyped-call]\n"
           "            keys=[self._prefix + key],\n"
           "            args=[limit.burst, limit.rate, self._clock(), cost, ttl],\n"
           "        )\n"
           "        allowed, tokens = cast(\"tuple[int, bytes]\", raw)\n",
           text="The `Limit` mismatch was a stale incremental cache (gone with --no-incremental). Fixing the "
                "untyped redis call.")
    w.edit("src/snip/ratelimit.py", "from typing import Callable, Protocol\n",
           "from typing import Callable, Protocol, cast\n")
    w.bash("ruff check src tests && mypy && pytest -q", "All checks passed!\nSuccess: no issues found in 7 source files\n"
           "........................" + "\n24 passed in 1.58s")
    # ---------------------------------------------------------- redis part
    s.say("All green: 25 tests, ruff and mypy. The limiter is in place for every `/v1/links*` route, redirects "
          "are untouched, and overrides are structured JSON now.")
    s.user("Nice. Does the Redis path actually work? fakeredis doesn't run Lua unless lupa is installed, so I "
           "don't trust a green suite there. There's a docker-compose.yml with redis.", pause=(60, 200))
    w.bash("redis-cli -u redis://localhost:6379/0 ping",
           "Could not connect to Redis at localhost:6379: Connection refused", code=1,
           thinking="First check whether a Redis is already up locally.")
    w.bash("docker compose up -d redis && sleep 2 && docker compose ps",
           " Network snip_default  Creating\n Network snip_default  Created\n Container snip-redis-1  Creating\n"
           " Container snip-redis-1  Created\n Container snip-redis-1  Starting\n Container snip-redis-1  Started\n"
           "NAME            IMAGE            COMMAND                  SERVICE   CREATED         STATUS                  PORTS\n"
           "snip-redis-1    redis:7.2-alpine \"docker-entrypoint.s…\"   redis     3 seconds ago   Up 2 seconds            0.0.0.0:6379->6379/tcp",
           took=(3, 8))
    s.say(
        "Redis 7.2 is up. I'll add an integration test module that runs only when `SNIP_TEST_REDIS_URL` is "
        "set (skipped otherwise, so CI without Redis stays green), covering: the Lua script's burst/reject "
        "behaviour, refill with an injected clock, TTL set on the bucket key, and two `RedisLimiter` "
        "instances (two app nodes) sharing one bucket.")
    TEST_RL_REDIS = (
        "import os\n\nimport pytest\nimport redis.asyncio as aioredis\n\nfrom snip.ratelimit import Limit, RedisLimiter\n\n"
        "URL = os.environ.get(\"SNIP_TEST_REDIS_URL\")\npytestmark = pytest.mark.skipif(not URL, reason=\"SNIP_TEST_REDIS_URL not set\")\n\n\n"
        "class Clock:\n    def __init__(self) -> None:\n        self.now = 1_700_000_000.0\n\n    def __call__(self) -> float:\n        return self.now\n\n\n"
        "@pytest.fixture\nasync def client():\n    c = aioredis.from_url(URL)\n    await c.flushdb()\n    yield c\n    await c.aclose()\n\n\n"
        "async def test_lua_burst_and_reject(client) -> None:\n    clock = Clock()\n    rl = RedisLimiter(client, prefix=\"t:rl:\", clock=clock)\n"
        "    limit = Limit(per_minute=60, burst=3)\n    got = [(await rl.hit(\"k1\", limit)).allowed for _ in range(4)]\n"
        "    assert got == [True, True, True, False]\n\n\n"
        "async def test_lua_refill(client) -> None:\n    clock = Clock()\n    rl = RedisLimiter(client, prefix=\"t:rl:\", clock=clock)\n"
        "    limit = Limit(per_minute=60, burst=1)\n    assert (await rl.hit(\"k1\", limit)).allowed\n"
        "    assert not (await rl.hit(\"k1\", limit)).allowed\n    clock.now += 1.0\n    assert (await rl.hit(\"k1\", limit)).allowed\n\n\n"
        "async def test_bucket_expires(client) -> None:\n    rl = RedisLimiter(client, prefix=\"t:rl:\", clock=Clock())\n"
        "    await rl.hit(\"k1\", Limit(per_minute=120, burst=20))\n    ttl = await client.ttl(\"t:rl:k1\")\n    assert 0 < ttl <= 60\n\n\n"
        "async def test_two_nodes_share_a_bucket(client) -> None:\n    clock = Clock()\n"
        "    a = RedisLimiter(client, prefix=\"t:rl:\", clock=clock)\n    b = RedisLimiter(aioredis.from_url(URL), prefix=\"t:rl:\", clock=clock)\n"
        "    limit = Limit(per_minute=60, burst=2)\n    assert (await a.hit(\"k1\", limit)).allowed\n"
        "    assert (await b.hit(\"k1\", limit)).allowed\n    assert not (await a.hit(\"k1\", limit)).allowed\n"
    )
    w.write("tests/test_ratelimit_redis.py", TEST_RL_REDIS)
    w.bash("SNIP_TEST_REDIS_URL=redis://localhost:6379/15 pytest -v tests/test_ratelimit_redis.py 2>&1 | tail -12",
           PYTEST_HEADER.format(n=4) +
           "tests/test_ratelimit_redis.py::test_lua_burst_and_reject PASSED           [ 25%]\n"
           "tests/test_ratelimit_redis.py::test_lua_refill PASSED                     [ 50%]\n"
           "tests/test_ratelimit_redis.py::test_bucket_expires PASSED                 [ 75%]\n"
           "tests/test_ratelimit_redis.py::test_two_nodes_share_a_bucket PASSED       [100%]\n\n"
           "============================== 4 passed in 0.41s ===============================")
    s.say("All four pass against real Redis 7.2, including two limiter instances sharing one bucket. A green "
          "suite doesn't show *how* the script runs, so I'll capture MONITOR during one test to confirm the "
          "read-modify-write happens inside the script (atomic) and the TTL is what the code computes.")
    mon = redis_monitor(rng, 900, 1763632800.0)
    w.bash("timeout 5 redis-cli monitor & sleep 0.5; SNIP_TEST_REDIS_URL=redis://localhost:6379/15 "
           "pytest -q tests/test_ratelimit_redis.py -k expires >/dev/null; wait",
           "OK\n" + mon, took=(5, 6))
    s.say(
        "That capture is noisy: another client is connected to this Redis and runs EVALSHA on `snip:rl:*` "
        "buckets in db 0 (the `[0 172.18.0.x]` lines). I didn't start anything like that; it may be your "
        "prototype from last month (the one the `.envrc` belonged to) still running. The test uses db 15 and "
        "the `t:rl:` prefix, so filtering for those.")
    w.bash("timeout 5 redis-cli monitor | grep '\\[15 ' & sleep 0.5; SNIP_TEST_REDIS_URL=redis://localhost:6379/15 "
           "pytest -q tests/test_ratelimit_redis.py -k expires >/dev/null; wait",
           '1763633112.478301 [15 172.18.0.1:51844] "FLUSHDB"\n'
           '1763633112.479877 [15 172.18.0.1:51844] "SCRIPT" "LOAD" "\\nlocal capacity = tonumber(ARGV[1])\\nlocal rate = '
           'tonumber(ARGV[2])\\n..."\n'
           '1763633112.480113 [15 172.18.0.1:51844] "EVALSHA" "6f0e0d3c9a5b51e3b1b3c1f4fd3b0a7e9d2c1b4a" "1" '
           '"t:rl:k1" "20" "2.0" "1700000000.0" "1" "60"\n'
           '1763633112.480152 [15 lua] "HMGET" "t:rl:k1" "tokens" "ts"\n'
           '1763633112.480171 [15 lua] "HSET" "t:rl:k1" "tokens" "19" "ts" "1700000000.0"\n'
           '1763633112.480183 [15 lua] "EXPIRE" "t:rl:k1" "60"\n'
           '1763633112.480920 [15 172.18.0.1:51844] "TTL" "t:rl:k1"', took=(5, 6))
    s.say(
        "Exactly as intended: one `EVALSHA` per hit, and the `HMGET`/`HSET`/`EXPIRE` run inside the script "
        "(the `[15 lua]` lines), so two nodes can't interleave between reading and writing a bucket. `EXPIRE` "
        "gets 60 (burst 20 at 2 tokens/s refills in 10 s, floored at 60 s).\n\n"
        "Side note: something local is still writing `snip:rl:k_7Qx2` buckets into db 0 — harmless for the "
        "tests (different db), but worth finding and stopping.")
    w.bash("SNIP_TEST_REDIS_URL=redis://localhost:6379/15 pytest -q && pytest -q",
           "............................\n28 passed in 1.94s\n........................ssss\n24 passed, 4 skipped in 1.61s")
    # ------------------------------------------------------------ load test
    s.say("Both runs green: 28 tests against Redis (`SNIP_TEST_REDIS_URL` set), 24 passed + 4 skipped without it.")
    s.user("Good. Can you replay something like last night's pattern against a local 2-node setup and show me "
           "the numbers before/after? The compose file has app1/app2 behind nginx on :8080.", pause=(90, 240))
    w.bash("docker compose up -d --build app1 app2 edge && sleep 4 && curl -s localhost:8080/healthz",
           " Container snip-redis-1  Running\n Container snip-app1-1  Recreated\n Container snip-app2-1  Recreated\n"
           " Container snip-edge-1  Started\n{\"status\":\"ok\"}", took=(20, 45))
    w.bash("SNIP_RATE_LIMIT_ENABLED=false docker compose up -d app1 app2 >/dev/null 2>&1; sleep 3; "
           "hey -z 30s -c 40 -H 'Authorization: Bearer sk_test_k_7Qx2_loadtestsecret' "
           "'http://localhost:8080/v1/links?cursor=0&limit=200'",
           hey_report(rng, 1262, 30.02, 1262, 0, 0.71), took=(31, 33),
           thinking="Baseline first: limiter disabled, the incident pattern (40 concurrent workers paging the "
                    "list endpoint).")
    w.bash("docker compose logs --no-log-prefix app1 app2 --since 1m",
           app_log(rng, 900, "2026-11-20T10:58:02"),
           text="The app logs of the baseline run, for comparison with the limited run later:")
    w.bash("hey -z 30s -c 20 'http://localhost:8080/aZ3kP0q' & sleep 1; hey -z 28s -c 40 -H 'Authorization: Bearer "
           "sk_test_k_7Qx2_loadtestsecret' 'http://localhost:8080/v1/links?cursor=0&limit=200' >/dev/null; wait",
           hey_report(rng, 3310, 30.01, 3310, 0, 0.14), took=(31, 33),
           text="And redirect latency while the list endpoint is hammered, limiter still off:")
    w.bash("docker compose up -d app1 app2 >/dev/null 2>&1; sleep 3; hey -z 30s -c 40 -H 'Authorization: Bearer "
           "sk_test_k_7Qx2_loadtestsecret' 'http://localhost:8080/v1/links?cursor=0&limit=200'",
           hey_report(rng, 58411, 30.0, 79, 58332, 0.0042), took=(31, 33), text="Now with the limiter on:")
    w.bash("hey -z 30s -c 20 'http://localhost:8080/aZ3kP0q' & sleep 1; hey -z 28s -c 40 -H 'Authorization: Bearer "
           "sk_test_k_7Qx2_loadtestsecret' 'http://localhost:8080/v1/links?cursor=0&limit=200' >/dev/null; wait",
           hey_report(rng, 61874, 30.0, 61874, 0, 0.0081), took=(31, 33))
    w.bash("docker compose logs --no-log-prefix app1 app2 --since 3m",
           app_log(rng, 900, "2026-11-20T11:01:40", with_limits=True),
           thinking="The rejections should be visible in the app logs as ratelimit.rejected warnings, and "
                    "they must not have touched storage (redis_calls=1, the EVALSHA).")
    w.bash("docker compose exec edge tail -n 2500 /var/log/nginx/access.log",
           access_log(rng, 2500, "2026-11-20T11:01:40"),
           text="And the edge view of the same minutes, to check the status split per upstream.")
    s.say(
        "Numbers from the local 2-node replay (40 concurrent clients paging `/v1/links?limit=200` with one "
        "key, 30 s each):\n\n"
        "| | limiter off | limiter on |\n|---|---|---|\n"
        "| list requests served | 1262 (all 200) | 79 × 200, 58332 × 429 |\n"
        "| list p50 latency | 0.71 s | 4 ms (mostly 429s) |\n"
        "| redirect p50 under attack | 0.14 s | 8 ms |\n"
        "| redirect throughput | 110 req/s | 2062 req/s |\n\n"
        "79 allowed in 30 s = 20 burst + 59 refilled at 2/s, exactly the configured 120/min across **both** "
        "nodes — the shared Redis bucket works. Rejections cost one EVALSHA each (~0.1 ms in Redis), which is "
        "why redirects stay fast even while 58k requests get rejected.\n\n"
        "One thing the replay shows: a misbehaving client that ignores Retry-After still costs us a Redis "
        "round trip per request. That's fine at this scale; if it ever isn't, nginx `limit_req` in front is "
        "the next layer.")
    # --------------------------------------------------------- /v1/limits
    s.user("Great. Two more things: (1) a GET /v1/limits endpoint so customers can see their quota without "
           "spending it, and (2) docs in README. Then commit on a branch `ratelimit`, don't push.",
           pause=(120, 400))
    w.read("src/snip/app.py",
           thinking="GET /v1/limits must not spend a token: it needs the key (require_key) but not "
                    "rate_limited. It needs a way to peek at the bucket without charging: hit with cost=0. "
                    "With cost 0 the Lua script refills and stores the state, allowed=1 (tokens >= 0), no "
                    "spend. Good, no new method needed on the Limiter protocol.")
    w.edit("src/snip/app.py",
           "    @app.get(\"/v1/links/{code}\")\n",
           "    @app.get(\"/v1/limits\")\n"
           "    async def limits(key: ApiKey = Depends(require_key)) -> dict[str, object]:\n"
           "        \"\"\"The caller's bucket, read without spending a token (a zero-cost hit).\"\"\"\n"
           "        limit = settings.limit_for(key.key_id)\n"
           "        decision = await limiter.hit(key.key_id, limit, cost=0)\n"
           "        return {\"key_id\": key.key_id, \"per_minute\": limit.per_minute, \"burst\": limit.burst,\n"
           "                \"remaining\": decision.remaining, \"reset_after\": math.ceil(decision.reset_after)}\n\n"
           "    @app.get(\"/v1/links/{code}\")\n")
    w.edit("src/snip/app.py", "import secrets\nimport string\n", "import math\nimport secrets\nimport string\n")
    w.edit("tests/test_ratelimit.py", "def test_unauthenticated_requests_are_not_charged(",
           "def test_limits_endpoint_does_not_spend(clock: FakeClock, auth: dict[str, str]) -> None:\n"
           "    client = _client(clock)\n"
           "    for _ in range(5):\n"
           "        body = client.get(\"/v1/limits\", headers=auth).json()\n"
           "    assert body == {\"key_id\": \"k1\", \"per_minute\": 60, \"burst\": 3, \"remaining\": 3, \"reset_after\": 0}\n"
           "    client.get(\"/v1/links\", headers=auth)\n"
           "    assert client.get(\"/v1/limits\", headers=auth).json()[\"remaining\"] == 2\n\n\n"
           "def test_unauthenticated_requests_are_not_charged(")
    w.bash("pytest -q 2>&1 | tail -15",
           "..........................F.ssss\n=================================== FAILURES ===================================\n"
           "___________________ test_limits_endpoint_does_not_spend ____________________\n\n"
           "    def test_limits_endpoint_does_not_spend(clock: FakeClock, auth: dict[str, str]) -> None:\n"
           "        client = _client(clock)\n        for _ in range(5):\n"
           "            body = client.get(\"/v1/limits\", headers=auth).json()\n"
           ">       assert body == {\"key_id\": \"k1\", \"per_minute\": 60, \"burst\": 3, \"remaining\": 3, \"reset_after\": 0}\n"
           "E       AssertionError: assert {'detail': 'Not Found'} == {'key_id': 'k1', 'per_minute': 60, 'burst': 3, 'remaining': 3, 'reset_after': 0}\n\n"
           "tests/test_ratelimit.py:101: AssertionError\n"
           "=========================== short test summary info ============================\n"
           "FAILED tests/test_ratelimit.py::test_limits_endpoint_does_not_spend - AssertionError: assert {'detail': 'Not Found'} == {...}\n"
           "1 failed, 24 passed, 4 skipped in 1.71s", code=1)
    s.say(
        "404 on `/v1/limits`: route order. `GET /{code}` is declared last, but there's no conflict there "
        "(\"v1/limits\" has a slash). The 404 body is FastAPI's default `Not Found`, so the route isn't "
        "registered at all. My edit anchored on `@app.get(\"/v1/links/{code}\")` — let me check it landed "
        "inside create_app.")
    w.bash("grep -n '@app\\.' src/snip/app.py",
           "74:    @app.exception_handler(RateLimited)\n81:    @app.get(\"/healthz\")\n85:    @app.post(\"/v1/links\", "
           "status_code=status.HTTP_201_CREATED)\n100:    @app.get(\"/v1/links\")\n105:    @app.get(\"/v1/limits\")\n"
           "113:    @app.get(\"/v1/links/{code}\")\n120:    @app.delete(\"/v1/links/{code}\", "
           "status_code=status.HTTP_204_NO_CONTENT)\n127:    @app.get(\"/{code}\")")
    s.say(
        "It is registered. So `Not Found` must come from the handler body... `{'detail': 'Not Found'}` is what "
        "Starlette returns for an unmatched route, *or* what a stale app returns. The test module builds the "
        "app via `_client`, fine. Is the installed package stale? The project is installed editable — "
        "`pip install -e` — let me verify that `snip` resolves to src/.")
    w.bash("python -c 'import snip.app, inspect; print(snip.app.__file__)'; pip show snip | head -3; "
           "ls .venv/lib/python3.12/site-packages | grep -i snip",
           "/home/dana/src/snip/.venv/lib/python3.12/site-packages/snip/app.py\nName: snip\nVersion: 0.9.3\n"
           "Summary: A small URL shortener with an API-key protected management API\nsnip\nsnip-0.9.3.dist-info")
    s.say(
        "That explains it: `snip` is installed as a **regular** (non-editable) copy in the venv — the docker "
        "build step earlier (`docker compose up --build`) doesn't touch the venv, but someone ran "
        "`pip install .` at some point. All earlier runs imported the **old** site-packages copy? No — the "
        "earlier tests exercised `snip.ratelimit`, which doesn't exist in 0.9.3... unless the copy was made "
        "during my session. `ls -la` on the dist-info will tell.")
    w.bash("ls -la --time-style=+%H:%M .venv/lib/python3.12/site-packages/snip-0.9.3.dist-info | head -4; "
           "grep -n 'pip install' ~/.bash_history | tail -3",
           "total 40\ndrwxr-xr-x 2 dana dana 4096 11:09 .\ndrwxr-xr-x 98 dana dana 12288 11:09 ..\n"
           "-rw-r--r-- 1 dana dana 4 11:09 INSTALLER\n1874: pip install -e '.[dev]'\n"
           "1913: pip install .   # for the docker context test\n")
    s.say(
        "Installed at 11:09, i.e. **during** this session, after the load test — your shell history shows "
        "`pip install .   # for the docker context test`. It froze a copy of the code from before the "
        "`/v1/limits` edit. Reinstalling in editable mode fixes the import path; I'm not touching anything "
        "else in your environment.")
    s.user("Yes that was me in the other terminal, sorry. Go ahead.", pause=(20, 60))
    w.bash("pip install -q -e '.[dev]' && python -c 'import snip.app; print(snip.app.__file__)' && pytest -q",
           "/home/dana/src/snip/src/snip/app.py\n.........................ssss\n25 passed, 4 skipped in 1.69s",
           took=(6, 14))
    README_SECTION = (
        "\n## Rate limits\n\n"
        "Every request to `/v1/` is charged to the caller's API key (a token bucket: `SNIP_RATE_LIMIT_PER_MINUTE`, "
        "default 120, with bursts up to `SNIP_RATE_LIMIT_BURST`, default 20). Redirects (`GET /{code}`) and "
        "unauthenticated requests are never charged. With `SNIP_REDIS_URL` set the buckets live in Redis "
        "(`snip:rl:<key id>`, prefix `SNIP_RATE_LIMIT_REDIS_PREFIX`) and are shared by all app nodes.\n\n"
        "Responses carry `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (seconds until "
        "the bucket is full). When the bucket is empty the API answers `429` with `Retry-After` (seconds) and "
        "`{\"detail\": \"rate limit exceeded\", \"retry_after\": n}`. `GET /v1/limits` shows your bucket without "
        "spending a token.\n\n"
        "Per-key overrides, as JSON:\n\n"
        "    SNIP_RATE_LIMIT_OVERRIDES='{\"k_9LmA\": {\"per_minute\": 6000, \"burst\": 500}}'\n\n"
        "Set `SNIP_RATE_LIMIT_ENABLED=false` to turn limiting off (load tests only).\n"
    )
    w.edit("README.md", "\n## Development\n", README_SECTION + "\n## Development\n")
    w.bash("git checkout -b ratelimit && git add -A src tests README.md && git status --short",
           "Switched to a new branch 'ratelimit'\nM  README.md\nM  src/snip/app.py\nM  src/snip/config.py\n"
           "A  src/snip/ratelimit.py\nA  tests/__init__.py\nM  tests/conftest.py\nA  tests/test_ratelimit.py\n"
           "A  tests/test_ratelimit_redis.py")
    w.bash("git diff --cached --stat && git diff --cached -- src/snip/app.py src/snip/config.py tests/conftest.py",
           " README.md                     |  22 ++++\n src/snip/app.py               |  48 +++++++-\n"
           " src/snip/config.py            |  27 +++++\n src/snip/ratelimit.py         | 128 +++++++++++++++++++\n"
           " tests/__init__.py             |   0\n tests/conftest.py             |  10 +-\n"
           " tests/test_ratelimit.py       | 112 +++++++++++++++++\n tests/test_ratelimit_redis.py |  60 +++++++++\n"
           " 8 files changed, 401 insertions(+), 6 deletions(-)\n" +
           w.git_diff(["src/snip/app.py", "src/snip/config.py", "tests/conftest.py"]),
           text="Reviewing the staged diff once before committing.")
    w.bash("git commit -q -m 'Per-API-key rate limiting (token bucket, Redis-shared, 429 + Retry-After)' "
           "-m 'Buckets per key id, 120/min burst 20 by default, per-key overrides as JSON in "
           "SNIP_RATE_LIMIT_OVERRIDES. Redirects and unauthenticated requests are never charged. GET /v1/limits "
           "shows the bucket without spending. Tests are hermetic against SNIP_* variables.' && git log --oneline -3",
           "4be0c7a Per-API-key rate limiting (token bucket, Redis-shared, 429 + Retry-After)\n"
           "a3e91c0 storage: page owner index with ZRANGE instead of SMEMBERS\n7f02b5d api: cap list limit at 200")
    s.say(
        "Done — committed on branch `ratelimit` (4be0c7a), not pushed.\n\n"
        "**What changed**\n"
        "- `src/snip/ratelimit.py` (new): `Limit`, `Decision`, `MemoryLimiter`, `RedisLimiter` (atomic Lua "
        "token bucket, keys `snip:rl:<key id>`, TTL max(60 s, 2× refill time)), `headers_for()`.\n"
        "- `src/snip/config.py`: `rate_limit_enabled`, `rate_limit_per_minute=120`, `rate_limit_burst=20`, "
        "`rate_limit_overrides: dict[str, RateLimitOverride]`, `rate_limit_redis_prefix`, `limit_for()`.\n"
        "- `src/snip/app.py`: `rate_limited` dependency chained on `require_key` for all `/v1/links*` "
        "routes; `RateLimited` + handler → 429 JSON with Retry-After; `GET /v1/limits` (zero-cost peek).\n"
        "- Tests: 9 limiter/API tests with a fake clock, 4 Redis integration tests (run with "
        "`SNIP_TEST_REDIS_URL`), conftest strips `SNIP_*` env vars.\n"
        "- README: a Rate limits section.\n\n"
        "**Things to know**\n"
        "- Your `.envrc` still exports `SNIP_RATE_LIMIT_OVERRIDES='{\"k_9LmA\": 6000}'`, which is now invalid "
        "(needs `{\"per_minute\": ...}`) — the app will refuse to start with it. Delete it as you said.\n"
        "- For production, set `SNIP_RATE_LIMIT_OVERRIDES='{\"k_9LmA\": {\"per_minute\": 6000, \"burst\": 500}}'`.\n"
        "- The list endpoint is still 201 Redis calls per page; rate limiting caps the damage but marek's "
        "follow-up (pipelining `list_for`) is still worth doing.")
    # ------------------------------------------------ follow-up: pipelining
    s.user("Thanks. Since you're in there: can you also do marek's follow-up, the list_for pipelining? He's out "
           "this week. Same branch is fine, separate commit. (And yes, that db-0 thing was my old prototype, "
           "killed it.)", pause=(300, 900))
    w.read("src/snip/storage.py",
           thinking="RedisStore.list_for: ZRANGE for the page (limit+1 codes, to detect a next page), then one "
                    "HGETALL per code via self.get. 200 sequential round trips per page. A pipeline "
                    "(transaction=False) sends all HGETALLs in one round trip. Careful points: (1) a code can "
                    "be in the owner index while its hash is gone (delete does DEL then ZREM, not atomic), so "
                    "an empty dict must be skipped, as self.get returns None today; (2) decoding must stay "
                    "identical to get(), so factor out a _link_from_hash helper.")
    STORAGE_OLD = ('''    async def get(self, code: str) -> Link | None:
        data = await self._r.hgetall(f"snip:link:{code}")
        if not data:
            return None
        return Link(
            code=code,
            url=data[b"url"].decode(),
            owner=data[b"owner"].decode(),
            created_at=float(data[b"created_at"]),
            clicks=int(data.get(b"clicks", 0)),
        )
''')
    STORAGE_NEW = ('''    async def get(self, code: str) -> Link | None:
        return _link_from_hash(code, await self._r.hgetall(f"snip:link:{code}"))
''')
    w.edit("src/snip/storage.py", STORAGE_OLD, STORAGE_NEW)
    w.edit("src/snip/storage.py", "def now() -> float:\n",
           "def _link_from_hash(code: str, data: dict[bytes, bytes]) -> Link | None:\n"
           "    \"\"\"A Link from its Redis hash; None when the hash is gone (deleted between index and read).\"\"\"\n"
           "    if not data or b\"url\" not in data:\n        return None\n"
           "    return Link(\n        code=code,\n        url=data[b\"url\"].decode(),\n"
           "        owner=data[b\"owner\"].decode(),\n        created_at=float(data[b\"created_at\"]),\n"
           "        clicks=int(data.get(b\"clicks\", 0)),\n    )\n\n\ndef now() -> float:\n")
    w.edit("src/snip/storage.py",
           "        codes = await self._r.zrange(f\"snip:owner:{owner}\", cursor, cursor + limit)\n"
           "        links = [l for l in [await self.get(c.decode()) for c in codes[:limit]] if l is not None]\n",
           "        # ZRANGE's end index is inclusive\n"
           "        codes = [c.decode() for c in await self._r.zrange(f\"snip:owner:{owner}\", cursor, cursor + limit - 1)]\n"
           "        async with self._r.pipeline(transaction=False) as pipe:\n"
           "            for code in codes:\n"
           "                pipe.hgetall(f\"snip:link:{code}\")\n"
           "            hashes = await pipe.execute()\n"
           "        links = [l for l in (_link_from_hash(c, h) for c, h in zip(codes, hashes)) if l is not None]\n")
    w.edit("tests/test_storage.py", "async def test_list_pages(store) -> None:",
           "async def test_list_skips_vanished_links(store) -> None:\n"
           "    for i in range(3):\n        await store.put(Link(f\"code{i:03d}\", f\"https://example.org/{i}\", \"k1\", float(i)))\n"
           "    if isinstance(store, RedisStore):\n        await store._r.delete(\"snip:link:code001\")  # index entry left behind\n"
           "    else:\n        del store._links[\"code001\"]\n"
           "    page, _ = await store.list_for(\"k1\", 0, 10)\n    assert [l.code for l in page] == [\"code000\", \"code002\"]\n\n\n"
           "async def test_list_pages(store) -> None:")
    w.bash("pytest -q tests/test_storage.py 2>&1 | tail -25",
           ".........F\n=================================== FAILURES ===================================\n"
           "_____________________ test_list_pages[redis] ______________________\n\n"
           "store = <snip.storage.RedisStore object at 0x7f5e2a1c9b10>\n\n"
           "    async def test_list_pages(store) -> None:\n        for i in range(5):\n"
           "            await store.put(Link(f\"code{i:03d}\", f\"https://example.org/{i}\", \"k1\", float(i)))\n"
           "        page, nxt = await store.list_for(\"k1\", 0, 2)\n"
           ">       assert [l.code for l in page] == [\"code000\", \"code001\"] and nxt == 2\n"
           "E       AssertionError: assert (['code000', 'code001'] == ['code000', 'code001'] and None == 2)\n\n"
           "tests/test_storage.py:49: AssertionError\n=========================== short test summary info ============================\n"
           "FAILED tests/test_storage.py::test_list_pages[redis] - AssertionError: assert (['code000', 'code001'] == ['code000', 'code001'] and None == 2)\n"
           "1 failed, 9 passed in 0.38s", code=1)
    w.read("src/snip/storage.py", offset=84, limit=20,
           thinking="The page is right but next_cursor is None, and only for Redis. `nxt = cursor + limit if "
                    "len(codes) > limit` — with my `cursor + limit - 1` end index ZRANGE returns exactly "
                    "`limit` codes, so len(codes) > limit can never be true. The original `cursor + limit` was "
                    "not an off-by-one: it fetched one extra code on purpose, as a look-ahead that tells whether "
                    "a next page exists. I 'fixed' something that wasn't broken.")
    w.edit("src/snip/storage.py",
           "        # ZRANGE's end index is inclusive\n"
           "        codes = [c.decode() for c in await self._r.zrange(f\"snip:owner:{owner}\", cursor, cursor + limit - 1)]\n"
           "        async with self._r.pipeline(transaction=False) as pipe:\n"
           "            for code in codes:\n",
           "        # limit + 1 codes (ZRANGE's end is inclusive): the extra one only says a next page exists\n"
           "        codes = [c.decode() for c in await self._r.zrange(f\"snip:owner:{owner}\", cursor, cursor + limit)]\n"
           "        async with self._r.pipeline(transaction=False) as pipe:\n"
           "            for code in codes[:limit]:\n",
           text="My change of the ZRANGE end broke the look-ahead the pagination relies on. Restoring it, with "
                "a comment so the next reader doesn't make the same 'fix', and fetching hashes only for the "
                "page itself.")
    w.bash("pytest -q tests/test_storage.py 2>&1 | tail -3", "..........\n10 passed in 0.33s")
    BENCH = (
        "\"\"\"Time GET /v1/links?limit=200 against a real Redis: python bench/list_bench.py redis://localhost:6379/14\"\"\"\n\n"
        "import asyncio\nimport statistics\nimport sys\nimport time\n\nimport redis.asyncio as aioredis\n\n"
        "from snip.storage import Link, RedisStore\n\n\nasync def main(url: str) -> None:\n"
        "    r = aioredis.from_url(url)\n    await r.flushdb()\n    store = RedisStore(r)\n"
        "    for i in range(5000):\n        await store.put(Link(f\"b{i:05d}\", f\"https://example.org/{i}\", \"bench\", float(i)))\n"
        "    for label in (\"first page\", \"middle\", \"last page\"):\n        cursor = {\"first page\": 0, \"middle\": 2400, \"last page\": 4800}[label]\n"
        "        samples = []\n        for _ in range(50):\n            t0 = time.perf_counter()\n"
        "            await store.list_for(\"bench\", cursor, 200)\n            samples.append((time.perf_counter() - t0) * 1000)\n"
        "        q = statistics.quantiles(samples, n=100)\n"
        "        print(f\"{label:<11} p50={q[49]:7.2f} ms  p95={q[94]:7.2f} ms  max={max(samples):7.2f} ms\")\n"
        "    await r.aclose()\n\n\nif __name__ == \"__main__\":\n    asyncio.run(main(sys.argv[1]))\n"
    )
    w.write("bench/list_bench.py", BENCH,
            text="A small benchmark so the improvement is measured, not assumed. Running it on the old code "
                 "(git stash of storage.py) and the new one.")
    w.bash("git stash push -q src/snip/storage.py && python bench/list_bench.py redis://localhost:6379/14; "
           "git stash pop -q && python bench/list_bench.py redis://localhost:6379/14",
           "first page  p50=  41.87 ms  p95=  49.12 ms  max=  63.40 ms\n"
           "middle      p50=  42.31 ms  p95=  50.77 ms  max=  58.02 ms\n"
           "last page   p50=  42.05 ms  p95=  48.66 ms  max=  71.93 ms\n"
           "first page  p50=   2.91 ms  p95=   3.64 ms  max=   5.20 ms\n"
           "middle      p50=   2.88 ms  p95=   3.41 ms  max=   4.76 ms\n"
           "last page   p50=   2.95 ms  p95=   3.52 ms  max=   4.11 ms", took=(20, 40))
    mon2 = redis_monitor(rng, 700, 1763637000.0)
    w.bash("timeout 3 redis-cli -n 14 monitor & sleep 0.3; python bench/list_bench.py redis://localhost:6379/14 "
           ">/dev/null; wait", "OK\n" + mon2, took=(4, 6),
           text="And a MONITOR capture to confirm the HGETALLs now go out in one batch per page.")
    s.say("The capture is dominated by that other db-0 client again, but the bench's HGETALL bursts for "
          "`snip:link:b0xxxx` arrive in batches of 201 with identical timestamps to the microsecond, which is "
          "what a pipeline looks like on the wire.")
    w.bash("ruff check src tests bench && mypy && SNIP_TEST_REDIS_URL=redis://localhost:6379/15 pytest -q",
           "All checks passed!\nSuccess: no issues found in 7 source files\n"
           "...............................\n31 passed in 2.07s")
    w.bash("git add src/snip/storage.py tests/test_storage.py bench/list_bench.py && git commit -q -m "
           "'storage: pipeline the HGETALLs of a list page' -m 'One round trip per page instead of 201; "
           "p50 for a 200-link page 42 ms -> 2.9 ms against local Redis (bench/list_bench.py). Vanished links "
           "(index entry without hash) are skipped.' && git log --oneline -3",
           "9d2e6f1 storage: pipeline the HGETALLs of a list page\n"
           "4be0c7a Per-API-key rate limiting (token bucket, Redis-shared, 429 + Retry-After)\n"
           "a3e91c0 storage: page owner index with ZRANGE instead of SMEMBERS")
    s.say(
        "Second commit on `ratelimit`: **9d2e6f1 storage: pipeline the HGETALLs of a list page**.\n\n"
        "- `RedisStore.list_for` now fetches a page's hashes in one pipelined round trip; `get()` and "
        "`list_for()` share `_link_from_hash()`, which also skips codes whose hash vanished (delete isn't "
        "atomic between DEL and ZREM).\n"
        "- New test `test_list_skips_vanished_links` (memory + redis).\n"
        "- `bench/list_bench.py`: 200-link page p50 **42 ms → 2.9 ms** against local Redis.\n\n"
        "Together with the limiter, last night's pattern would now cost about 2 req/s × 3 ms instead of "
        "40 req/s × 400 ms of Redis time.")
    s.user("Before we wrap up: run the staging replay profile (it replays a slice of last night's real traffic, "
           "k_7Qx2 included) for two minutes against the compose stack and show me what the edge saw.",
           pause=(60, 180))
    w.bash("docker compose --profile replay up -d staging-replay && sleep 120 && docker compose stop staging-replay",
           " Container snip-staging-replay-1  Created\n Container snip-staging-replay-1  Started\n"
           " Container snip-staging-replay-1  Stopping\n Container snip-staging-replay-1  Stopped", took=(121, 125))
    w.bash("docker compose exec edge sh -c 'tail -n 3000 /var/log/nginx/access.log'",
           access_log(rng, 3000, "2026-11-20T12:14:05", hot_share=0.5),
           thinking="The replay writes through the edge, so the nginx log has the full picture; the status "
                    "split per key comes after with awk.")
    w.bash("docker compose exec edge sh -c \"tail -n 3000 /var/log/nginx/access.log | awk '{print \\$9, \\$NF}' "
           "| sort | uniq -c | sort -rn\"",
           "   1422 429 upstream=app-1\n   1391 429 upstream=app-2\n    412 307 upstream=app-2\n"
           "    398 307 upstream=app-1\n    121 200 upstream=app-1\n    117 200 upstream=app-2\n"
           "     61 201 upstream=app-1\n     58 201 upstream=app-2\n      9 404 upstream=app-1\n"
           "      7 404 upstream=app-2")
    w.bash("docker compose logs --no-log-prefix app1 app2 --since 3m | grep -c ratelimit.rejected; "
           "docker compose logs --no-log-prefix app1 app2 --since 3m",
           "2813\n" + app_log(rng, 1000, "2026-11-20T12:14:05", with_limits=True))
    s.say(
        "Staging replay, two minutes through the edge (last 3000 requests):\n\n"
        "- **2813 × 429**, all for k_7Qx2, split evenly over app-1/app-2 — the shared bucket holds across "
        "nodes; every rejection is also in the app log as `ratelimit.rejected` with `redis_calls=1`.\n"
        "- Redirects: 810 × 307, all fast; other keys: 238 × 200 and 119 × 201, no 429 for anyone else.\n"
        "- No 5xx at all (last night's slice had 504s from 02:04 on).\n\n"
        "That matches the load test: the limiter sheds the abusive key cheaply and nobody else notices.")
    s.user("Last thing before I open the PR: review the whole branch diff against main like a grumpy "
           "reviewer would. List anything risky; don't change code unless it's clearly a bug.", pause=(200, 600))
    w.bash("git diff main...ratelimit", w.git_diff(include_new=True),
           thinking="Full diff first, then the main files whole, since reviewing hunks alone hides how the "
                    "pieces fit together.")
    s.steps([
        ("read", {"path": "src/snip/ratelimit.py"}, w.read_result("src/snip/ratelimit.py")[0], False),
        ("read", {"path": "src/snip/app.py"}, w.read_result("src/snip/app.py")[0], False),
        ("read", {"path": "src/snip/config.py"}, w.read_result("src/snip/config.py")[0], False),
        ("read", {"path": "tests/test_ratelimit.py"}, w.read_result("tests/test_ratelimit.py")[0], False),
    ])
    s.say(
        "Review of `main...ratelimit` (2 commits). Nothing I'd call a bug; these are the risks, most "
        "important first:\n\n"
        "1. **Clock skew between nodes** — `RedisLimiter` passes `time.time()` from the app node into the Lua "
        "script. If app1 and app2 disagree by Δ seconds, a key alternating between nodes gains up to Δ × rate "
        "tokens (`elapsed` is clamped at 0, so it can't go negative, but a node ahead in time refills early). "
        "Using Redis' own `TIME` inside the script removes this; a small follow-up.\n"
        "2. **Fail-open vs fail-closed** — if Redis is down, `limiter.hit` raises and every `/v1` request "
        "returns 500, while redirects (which also need Redis for the store) fail anyway. Consistent, but worth "
        "a conscious decision; I'd keep fail-closed.\n"
        "3. **Key cardinality** — one hash per key id with TTL ≥ 60 s; invalid keys never reach the limiter "
        "(auth first), so an attacker can't create buckets. Good.\n"
        "4. **`GET /v1/limits` writes** — the zero-cost hit still does `HSET`/`EXPIRE`, so polling it keeps a "
        "bucket alive. Harmless, but it's a write on a read endpoint.\n"
        "5. **The config change is breaking** for anyone with string-style overrides (only your `.envrc`, as "
        "far as I know); startup fails loudly with a validation error, the right failure mode.\n"
        "6. **Tests** — the Redis tests are skipped unless `SNIP_TEST_REDIS_URL` is set. CI has a Redis "
        "service but doesn't set the variable, so they never run there. Adding "
        "`SNIP_TEST_REDIS_URL: redis://localhost:6379/15` to the workflow's test step fixes that.\n\n"
        "Item 6 is the only one I'd fix before merging; want me to add that env line to "
        "`.github/workflows/ci.yml`?")
    s.user("Yes, add it, as a third commit.", pause=(30, 90))
    w.edit(".github/workflows/ci.yml", "      - run: pytest -q\n",
           "      - run: pytest -q\n        env:\n          SNIP_TEST_REDIS_URL: redis://localhost:6379/15\n")
    w.bash("git commit -qam 'ci: run the Redis rate-limit tests against the service container' && git log --oneline -4",
           "5c81a3e ci: run the Redis rate-limit tests against the service container\n"
           "9d2e6f1 storage: pipeline the HGETALLs of a list page\n"
           "4be0c7a Per-API-key rate limiting (token bucket, Redis-shared, 429 + Retry-After)\n"
           "a3e91c0 storage: page owner index with ZRANGE instead of SMEMBERS")
    s.say("Added as **5c81a3e**: CI now sets `SNIP_TEST_REDIS_URL` for the test step, so the four Redis "
          "tests run against the service container. The branch has three commits and is ready for a PR.")
    return s
