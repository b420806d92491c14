"""Source files of `snip`, the small URL-shortener service the coding samples work on."""

PYPROJECT = '''[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "snip"
version = "0.9.3"
description = "A small URL shortener with an API-key protected management API"
requires-python = ">=3.11"
dependencies = [
    "fastapi>=0.110",
    "uvicorn[standard]>=0.29",
    "pydantic-settings>=2.2",
    "redis>=5.0",
    "structlog>=24.1",
]

[project.optional-dependencies]
dev = [
    "pytest>=8",
    "pytest-asyncio>=0.23",
    "httpx>=0.27",
    "fakeredis>=2.21",
    "ruff>=0.4",
    "mypy>=1.10",
]

[tool.pytest.ini_options]
testpaths = ["tests"]
asyncio_mode = "auto"
addopts = "-ra"

[tool.ruff]
line-length = 100
target-version = "py311"

[tool.mypy]
strict = true
packages = ["snip"]
'''

README = '''# snip

A small URL shortener. Public redirects on `GET /{code}`, a management API under
`/v1/` protected by API keys (`Authorization: Bearer sk_live_...`).

## Running

    uvicorn snip.app:create_app --factory --port 8080

Configuration comes from the environment (prefix `SNIP_`), see `src/snip/config.py`.
With `SNIP_REDIS_URL` set, links and click counters live in Redis; without it an
in-memory store is used (fine for tests and local hacking, not for production).

## API

| Method | Path | Notes |
|--------|------|-------|
| GET | `/{code}` | 307 redirect to the target, counts a click |
| POST | `/v1/links` | create a link: `{"url": "...", "code": "optional"}` |
| GET | `/v1/links/{code}` | link details and click count |
| DELETE | `/v1/links/{code}` | delete a link you own |
| GET | `/v1/links` | list your links, `?cursor=` pagination |
| GET | `/healthz` | liveness |

## Development

    pip install -e '.[dev]'
    pytest -q
    ruff check src tests && mypy

Deployed on two app nodes behind the `edge-lb` load balancer; both share the
`snip-redis` instance (Redis 7.2, `maxmemory-policy allkeys-lru`).
'''

INIT = '''"""snip: a small URL shortener."""

__version__ = "0.9.3"
'''

CONFIG = '''"""Service configuration, read from SNIP_* environment variables."""

from __future__ import annotations

from functools import lru_cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """All knobs of the service; every field can be set as SNIP_<NAME>."""

    model_config = SettingsConfigDict(env_prefix="SNIP_", env_file=".env", extra="ignore")

    base_url: str = "https://snip.example"
    redis_url: str | None = None
    code_length: int = Field(default=7, ge=4, le=16)
    max_url_length: int = 2048
    api_keys_file: str = "keys.json"
    log_level: str = "info"
    trusted_proxies: list[str] = Field(default_factory=lambda: ["10.0.0.0/8"])


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings (cached; tests call get_settings.cache_clear())."""
    return Settings()
'''

STORAGE = '''"""Link storage: Redis in production, a dict in tests and local runs."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol

import redis.asyncio as aioredis


@dataclass(frozen=True)
class Link:
    code: str
    url: str
    owner: str
    created_at: float
    clicks: int = 0


class LinkStore(Protocol):
    async def get(self, code: str) -> Link | None: ...
    async def put(self, link: Link) -> bool: ...
    async def delete(self, code: str) -> bool: ...
    async def incr_clicks(self, code: str) -> int: ...
    async def list_for(self, owner: str, cursor: int, limit: int) -> tuple[list[Link], int | None]: ...


class MemoryStore:
    """A process-local store; not shared between workers."""

    def __init__(self) -> None:
        self._links: dict[str, Link] = {}

    async def get(self, code: str) -> Link | None:
        return self._links.get(code)

    async def put(self, link: Link) -> bool:
        if link.code in self._links:
            return False
        self._links[link.code] = link
        return True

    async def delete(self, code: str) -> bool:
        return self._links.pop(code, None) is not None

    async def incr_clicks(self, code: str) -> int:
        link = self._links[code]
        updated = Link(link.code, link.url, link.owner, link.created_at, link.clicks + 1)
        self._links[code] = updated
        return updated.clicks

    async def list_for(self, owner: str, cursor: int, limit: int) -> tuple[list[Link], int | None]:
        mine = sorted((l for l in self._links.values() if l.owner == owner), key=lambda l: l.created_at)
        page = mine[cursor : cursor + limit]
        nxt = cursor + limit if cursor + limit < len(mine) else None
        return page, nxt


class RedisStore:
    """Links as hashes `snip:link:<code>`, owners' sets `snip:owner:<key id>`."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._r = client

    async def get(self, code: str) -> Link | None:
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

    async def put(self, link: Link) -> bool:
        key = f"snip:link:{link.code}"
        created = await self._r.hsetnx(key, "url", link.url)
        if not created:
            return False
        await self._r.hset(key, mapping={"owner": link.owner, "created_at": link.created_at, "clicks": 0})
        await self._r.zadd(f"snip:owner:{link.owner}", {link.code: link.created_at})
        return True

    async def delete(self, code: str) -> bool:
        link = await self.get(code)
        if link is None:
            return False
        await self._r.delete(f"snip:link:{code}")
        await self._r.zrem(f"snip:owner:{link.owner}", code)
        return True

    async def incr_clicks(self, code: str) -> int:
        return int(await self._r.hincrby(f"snip:link:{code}", "clicks", 1))

    async def list_for(self, owner: str, cursor: int, limit: int) -> tuple[list[Link], int | None]:
        codes = await self._r.zrange(f"snip:owner:{owner}", cursor, cursor + limit)
        links = [l for l in [await self.get(c.decode()) for c in codes[:limit]] if l is not None]
        nxt = cursor + limit if len(codes) > limit else None
        return links, nxt


def now() -> float:
    return time.time()
'''

AUTH = '''"""API keys: `Authorization: Bearer sk_live_<id>_<secret>`, checked against keys.json."""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from pathlib import Path

from fastapi import Depends, HTTPException, Request, status

from .config import Settings, get_settings


@dataclass(frozen=True)
class ApiKey:
    key_id: str
    owner: str
    plan: str  # "free" | "team" | "internal"


class KeyRing:
    """Key ids mapped to a sha256 of the secret; loaded once per process."""

    def __init__(self, entries: dict[str, dict[str, str]]) -> None:
        self._entries = entries

    @classmethod
    def from_file(cls, path: str) -> "KeyRing":
        return cls(json.loads(Path(path).read_text()))

    def verify(self, token: str) -> ApiKey | None:
        parts = token.split("_")
        if len(parts) != 4 or parts[0] != "sk" or parts[1] not in ("live", "test"):
            return None
        key_id, secret = parts[2], parts[3]
        entry = self._entries.get(key_id)
        if entry is None:
            return None
        digest = hashlib.sha256(secret.encode()).hexdigest()
        if not hmac.compare_digest(digest, entry["sha256"]):
            return None
        return ApiKey(key_id=key_id, owner=entry["owner"], plan=entry.get("plan", "free"))


def get_keyring(request: Request) -> KeyRing:
    return request.app.state.keyring  # type: ignore[no-any-return]


async def require_key(request: Request, keyring: KeyRing = Depends(get_keyring)) -> ApiKey:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "missing bearer token",
                            headers={"WWW-Authenticate": "Bearer"})
    key = keyring.verify(token.strip())
    if key is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "invalid API key",
                            headers={"WWW-Authenticate": "Bearer"})
    request.state.api_key = key
    return key


def settings_dep() -> Settings:
    return get_settings()
'''

APP = '''"""The FastAPI application: public redirects and the /v1 management API."""

from __future__ import annotations

import secrets
import string

import redis.asyncio as aioredis
import structlog
from fastapi import Depends, FastAPI, HTTPException, Request, status
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, HttpUrl

from .auth import ApiKey, KeyRing, require_key
from .config import Settings, get_settings
from .storage import Link, LinkStore, MemoryStore, RedisStore, now

log = structlog.get_logger()
ALPHABET = string.ascii_letters + string.digits


class CreateLink(BaseModel):
    url: HttpUrl
    code: str | None = None


class LinkOut(BaseModel):
    code: str
    url: str
    short_url: str
    clicks: int


def new_code(length: int) -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


def create_app(settings: Settings | None = None, store: LinkStore | None = None,
               keyring: KeyRing | None = None) -> FastAPI:
    settings = settings or get_settings()
    app = FastAPI(title="snip", version="0.9.3")
    if store is None:
        if settings.redis_url:
            store = RedisStore(aioredis.from_url(settings.redis_url))
        else:
            store = MemoryStore()
    app.state.store = store
    app.state.settings = settings
    app.state.keyring = keyring or KeyRing.from_file(settings.api_keys_file)

    def out(link: Link) -> LinkOut:
        return LinkOut(code=link.code, url=link.url, short_url=f"{settings.base_url}/{link.code}",
                       clicks=link.clicks)

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/v1/links", status_code=status.HTTP_201_CREATED)
    async def create_link(body: CreateLink, key: ApiKey = Depends(require_key)) -> LinkOut:
        url = str(body.url)
        if len(url) > settings.max_url_length:
            raise HTTPException(status.HTTP_422_UNPROCESSABLE_ENTITY, "url too long")
        for _ in range(5):
            code = body.code or new_code(settings.code_length)
            link = Link(code=code, url=url, owner=key.key_id, created_at=now())
            if await store.put(link):
                log.info("link.created", code=code, owner=key.key_id)
                return out(link)
            if body.code:
                raise HTTPException(status.HTTP_409_CONFLICT, f"code {body.code!r} is taken")
        raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, "could not allocate a code")

    @app.get("/v1/links")
    async def list_links(cursor: int = 0, limit: int = 50,
                         key: ApiKey = Depends(require_key)) -> dict[str, object]:
        links, nxt = await store.list_for(key.key_id, cursor, min(limit, 200))
        return {"links": [out(l) for l in links], "next_cursor": nxt}

    @app.get("/v1/links/{code}")
    async def get_link(code: str, key: ApiKey = Depends(require_key)) -> LinkOut:
        link = await store.get(code)
        if link is None or link.owner != key.key_id:
            raise HTTPException(status.HTTP_404_NOT_FOUND, "no such link")
        return out(link)

    @app.delete("/v1/links/{code}", status_code=status.HTTP_204_NO_CONTENT)
    async def delete_link(code: str, key: ApiKey = Depends(require_key)) -> None:
        link = await store.get(code)
        if link is None or link.owner != key.key_id:
            raise HTTPException(status.HTTP_404_NOT_FOUND, "no such link")
        await store.delete(code)

    @app.get("/{code}")
    async def follow(code: str, request: Request) -> RedirectResponse:
        link = await store.get(code)
        if link is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, "no such link")
        await store.incr_clicks(code)
        return RedirectResponse(link.url, status_code=status.HTTP_307_TEMPORARY_REDIRECT)

    return app
'''

CONFTEST = '''import hashlib

import pytest
from fastapi.testclient import TestClient

from snip.app import create_app
from snip.auth import KeyRing
from snip.config import Settings
from snip.storage import MemoryStore

SECRET = "s3cr3tvalue"
OTHER_SECRET = "an0therone"


def _ring() -> KeyRing:
    digest = hashlib.sha256(SECRET.encode()).hexdigest()
    other = hashlib.sha256(OTHER_SECRET.encode()).hexdigest()
    return KeyRing({
        "k1": {"sha256": digest, "owner": "alice", "plan": "team"},
        "k2": {"sha256": other, "owner": "bob", "plan": "free"},
    })


@pytest.fixture
def settings() -> Settings:
    return Settings(base_url="https://s.test", api_keys_file="/dev/null")


@pytest.fixture
def client(settings: Settings) -> TestClient:
    app = create_app(settings=settings, store=MemoryStore(), keyring=_ring())
    return TestClient(app)


@pytest.fixture
def auth() -> dict[str, str]:
    return {"Authorization": f"Bearer sk_test_k1_{SECRET}"}


@pytest.fixture
def auth_bob() -> dict[str, str]:
    return {"Authorization": f"Bearer sk_test_k2_{OTHER_SECRET}"}
'''

TEST_API = '''from fastapi.testclient import TestClient


def test_healthz(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}


def test_create_requires_key(client: TestClient) -> None:
    r = client.post("/v1/links", json={"url": "https://example.org/a"})
    assert r.status_code == 401
    assert r.headers["www-authenticate"] == "Bearer"


def test_create_and_follow(client: TestClient, auth: dict[str, str]) -> None:
    r = client.post("/v1/links", json={"url": "https://example.org/a"}, headers=auth)
    assert r.status_code == 201
    code = r.json()["code"]
    assert len(code) == 7
    r = client.get(f"/{code}", follow_redirects=False)
    assert r.status_code == 307
    assert r.headers["location"] == "https://example.org/a"


def test_custom_code_conflict(client: TestClient, auth: dict[str, str]) -> None:
    body = {"url": "https://example.org/b", "code": "promo24"}
    assert client.post("/v1/links", json=body, headers=auth).status_code == 201
    r = client.post("/v1/links", json=body, headers=auth)
    assert r.status_code == 409


def test_clicks_counted(client: TestClient, auth: dict[str, str]) -> None:
    code = client.post("/v1/links", json={"url": "https://example.org/c"}, headers=auth).json()["code"]
    for _ in range(3):
        client.get(f"/{code}", follow_redirects=False)
    assert client.get(f"/v1/links/{code}", headers=auth).json()["clicks"] == 3


def test_other_owner_cannot_see(client: TestClient, auth: dict[str, str], auth_bob: dict[str, str]) -> None:
    code = client.post("/v1/links", json={"url": "https://example.org/d"}, headers=auth).json()["code"]
    assert client.get(f"/v1/links/{code}", headers=auth_bob).status_code == 404
    assert client.delete(f"/v1/links/{code}", headers=auth_bob).status_code == 404


def test_list_pagination(client: TestClient, auth: dict[str, str]) -> None:
    for i in range(5):
        client.post("/v1/links", json={"url": f"https://example.org/p{i}"}, headers=auth)
    first = client.get("/v1/links?limit=2", headers=auth).json()
    assert len(first["links"]) == 2 and first["next_cursor"] == 2
    last = client.get("/v1/links?limit=2&cursor=4", headers=auth).json()
    assert len(last["links"]) == 1 and last["next_cursor"] is None


def test_url_too_long(client: TestClient, auth: dict[str, str]) -> None:
    r = client.post("/v1/links", json={"url": "https://example.org/" + "x" * 3000}, headers=auth)
    assert r.status_code == 422
'''

RATELIMIT = '''"""Per-API-key rate limiting with a token bucket.

Each key gets `capacity` tokens that refill at `rate` tokens per second; a request
spends one token. Buckets live in Redis (one hash per key, updated atomically by a
Lua script) so both app nodes share them; without Redis an in-process dict is used.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable, Protocol

import redis.asyncio as aioredis

# KEYS[1] = bucket key; ARGV = capacity, refill rate (tokens/s), now (s), cost, ttl (s)
TOKEN_BUCKET_LUA = """
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local ttl = tonumber(ARGV[5])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil then
  tokens = capacity
  ts = now
end
local elapsed = math.max(0, now - ts)
tokens = math.min(capacity, tokens + elapsed * rate)
local allowed = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tokens, 'ts', now)
redis.call('EXPIRE', KEYS[1], ttl)
return {allowed, tostring(tokens)}
"""


@dataclass(frozen=True)
class Limit:
    """A bucket size and the sustained rate, given per minute as in the config."""

    per_minute: int
    burst: int

    @property
    def rate(self) -> float:
        return self.per_minute / 60.0


@dataclass(frozen=True)
class Decision:
    allowed: bool
    limit: int
    remaining: int
    retry_after: float  # seconds until one token is available (0 when allowed)
    reset_after: float  # seconds until the bucket is full again


class Limiter(Protocol):
    async def hit(self, key: str, limit: Limit, cost: int = 1) -> Decision: ...


def _decision(allowed: bool, tokens: float, limit: Limit, cost: int) -> Decision:
    missing = 0.0 if allowed else max(0.0, cost - tokens)
    return Decision(
        allowed=allowed,
        limit=limit.burst,
        remaining=max(0, math.floor(tokens)),
        retry_after=missing / limit.rate if limit.rate else math.inf,
        reset_after=(limit.burst - tokens) / limit.rate if limit.rate else math.inf,
    )


class MemoryLimiter:
    """Buckets in a dict; per process, so only for tests and single-node runs."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}

    async def hit(self, key: str, limit: Limit, cost: int = 1) -> Decision:
        now = self._clock()
        tokens, ts = self._buckets.get(key, (float(limit.burst), now))
        tokens = min(float(limit.burst), tokens + max(0.0, now - ts) * limit.rate)
        allowed = tokens >= cost
        if allowed:
            tokens -= cost
        self._buckets[key] = (tokens, now)
        return _decision(allowed, tokens, limit, cost)


class RedisLimiter:
    """Buckets as hashes `snip:rl:<key id>`; the Lua script keeps read-modify-write atomic."""

    def __init__(self, client: aioredis.Redis, prefix: str = "snip:rl:",
                 clock: Callable[[], float] = time.time) -> None:
        self._r = client
        self._prefix = prefix
        self._clock = clock
        self._script = client.register_script(TOKEN_BUCKET_LUA)

    async def hit(self, key: str, limit: Limit, cost: int = 1) -> Decision:
        ttl = max(60, math.ceil(limit.burst / limit.rate) * 2)
        allowed, tokens = await self._script(
            keys=[self._prefix + key],
            args=[limit.burst, limit.rate, self._clock(), cost, ttl],
        )
        return _decision(bool(allowed), float(tokens), limit, cost)


def headers_for(decision: Decision) -> dict[str, str]:
    """The X-RateLimit-* headers (and Retry-After on a 429) for one decision."""
    out = {
        "X-RateLimit-Limit": str(decision.limit),
        "X-RateLimit-Remaining": str(decision.remaining),
        "X-RateLimit-Reset": str(math.ceil(decision.reset_after)),
    }
    if not decision.allowed:
        out["Retry-After"] = str(max(1, math.ceil(decision.retry_after)))
    return out
'''

TEST_RATELIMIT = '''import pytest
from fastapi.testclient import TestClient

from snip.app import create_app
from snip.config import Settings
from snip.ratelimit import Limit, MemoryLimiter, headers_for
from snip.storage import MemoryStore

from .conftest import _ring


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


async def test_burst_then_reject(clock: FakeClock) -> None:
    limiter = MemoryLimiter(clock=clock)
    limit = Limit(per_minute=60, burst=5)
    results = [await limiter.hit("k1", limit) for _ in range(6)]
    assert [r.allowed for r in results] == [True] * 5 + [False]
    assert results[-1].retry_after == pytest.approx(1.0)


async def test_refill_over_time(clock: FakeClock) -> None:
    limiter = MemoryLimiter(clock=clock)
    limit = Limit(per_minute=60, burst=2)
    assert (await limiter.hit("k1", limit)).allowed
    assert (await limiter.hit("k1", limit)).allowed
    assert not (await limiter.hit("k1", limit)).allowed
    clock.advance(1.0)
    assert (await limiter.hit("k1", limit)).allowed


async def test_keys_are_independent(clock: FakeClock) -> None:
    limiter = MemoryLimiter(clock=clock)
    limit = Limit(per_minute=60, burst=1)
    assert (await limiter.hit("k1", limit)).allowed
    assert (await limiter.hit("k2", limit)).allowed
    assert not (await limiter.hit("k1", limit)).allowed


async def test_headers_on_reject(clock: FakeClock) -> None:
    limiter = MemoryLimiter(clock=clock)
    limit = Limit(per_minute=30, burst=1)
    await limiter.hit("k1", limit)
    d = await limiter.hit("k1", limit)
    h = headers_for(d)
    assert h["Retry-After"] == "2"
    assert h["X-RateLimit-Remaining"] == "0"
    assert h["X-RateLimit-Limit"] == "1"


def _client(clock: FakeClock, **overrides: object) -> TestClient:
    settings = Settings(base_url="https://s.test", api_keys_file="/dev/null",
                        rate_limit_per_minute=60, rate_limit_burst=3, **overrides)
    app = create_app(settings=settings, store=MemoryStore(), keyring=_ring(),
                     limiter=MemoryLimiter(clock=clock))
    return TestClient(app)


def test_api_returns_429_with_retry_after(clock: FakeClock, auth: dict[str, str]) -> None:
    client = _client(clock)
    codes = [client.get("/v1/links", headers=auth).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    r = client.get("/v1/links", headers=auth)
    assert r.headers["Retry-After"] == "1"
    assert r.json() == {"detail": "rate limit exceeded", "retry_after": 1}


def test_redirects_are_not_limited(clock: FakeClock, auth: dict[str, str]) -> None:
    client = _client(clock)
    code = client.post("/v1/links", json={"url": "https://example.org/x"}, headers=auth).json()["code"]
    for _ in range(20):
        assert client.get(f"/{code}", follow_redirects=False).status_code == 307


def test_per_key_override(clock: FakeClock, auth: dict[str, str], auth_bob: dict[str, str]) -> None:
    client = _client(clock, rate_limit_overrides={"k2": "600/10"})
    bob = [client.get("/v1/links", headers=auth_bob).status_code for _ in range(10)]
    assert bob == [200] * 10
    alice = [client.get("/v1/links", headers=auth).status_code for _ in range(4)]
    assert alice[-1] == 429


def test_unauthenticated_requests_are_not_charged(clock: FakeClock, auth: dict[str, str]) -> None:
    client = _client(clock)
    for _ in range(10):
        assert client.get("/v1/links").status_code == 401
    assert client.get("/v1/links", headers=auth).status_code == 200
'''
