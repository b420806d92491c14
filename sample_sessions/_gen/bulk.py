"""Generated tool output that real sessions are full of: app logs, redis MONITOR, load tests, pytest runs."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta


def app_log(rng: random.Random, n: int, start: str, *, with_limits: bool = False) -> str:
    """structlog JSON lines from the snip app (one per request, plus the odd warning)."""
    t = datetime.fromisoformat(start)
    lines = []
    for _ in range(n):
        t += timedelta(milliseconds=rng.randint(5, 220))
        node = rng.choice(["app-1", "app-2"])
        r = rng.random()
        if r < 0.55:
            cursor = rng.randrange(0, 40000, 200)
            ev = {"event": "request", "method": "GET", "path": "/v1/links", "query": f"cursor={cursor}&limit=200",
                  "status": 200, "duration_ms": round(rng.uniform(110, 880), 1), "key_id": "k_7Qx2",
                  "redis_calls": 201, "level": "info"}
            if with_limits and rng.random() < 0.7:
                ev.update(status=429, duration_ms=round(rng.uniform(0.6, 2.4), 1), redis_calls=1,
                          event="ratelimit.rejected", retry_after=rng.randint(1, 3), level="warning")
        elif r < 0.8:
            ev = {"event": "redirect", "code": rng.choice(["aZ3kP0q", "promo24", "Xy81LmQ", "launch", "hiring"]),
                  "status": 307, "duration_ms": round(rng.uniform(1.1, 9.5), 1), "level": "info"}
        elif r < 0.88:
            ev = {"event": "link.created", "code": "".join(rng.choice("abcdefghijkmnpqrstuvwxyzABCDEFGH23456789")
                                                           for _ in range(7)),
                  "owner": rng.choice(["k_2bNf", "k_9LmA", "k_Q3ze"]), "level": "info"}
        elif r < 0.95:
            ev = {"event": "redis.slow", "command": "ZRANGE", "elapsed_ms": round(rng.uniform(40, 400), 1),
                  "key": "snip:owner:k_7Qx2", "level": "warning"}
        else:
            ev = {"event": "request", "method": "GET", "path": "/v1/links", "status": 504,
                  "duration_ms": 30000.0, "key_id": "k_7Qx2", "error": "upstream timed out", "level": "error"}
        ev["node"] = node
        ev["timestamp"] = t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"
        lines.append(json.dumps(ev))
    return "\n".join(lines)


def redis_monitor(rng: random.Random, n: int, start_epoch: float) -> str:
    """`redis-cli monitor` lines while the limiter is under load."""
    t = start_epoch
    lines = []
    for _ in range(n):
        t += rng.uniform(0.0004, 0.004)
        peer = f"172.18.0.{rng.choice([3, 4])}:{rng.randint(40000, 60000)}"
        r = rng.random()
        key = rng.choice(["k_7Qx2"] * 6 + ["k_2bNf", "k_9LmA", "k_Q3ze", "k1", "k2"])
        if r < 0.6:
            lines.append(f'{t:.6f} [0 {peer}] "EVALSHA" "6f0e0d3c9a5b51e3b1b3c1f4fd3b0a7e9d2c1b4a" "1" '
                         f'"snip:rl:{key}" "120" "2" "{t:.6f}" "1" "60"')
            lines.append(f'{t + 0.00002:.6f} [0 lua] "HMGET" "snip:rl:{key}" "tokens" "ts"')
            lines.append(f'{t + 0.00004:.6f} [0 lua] "HSET" "snip:rl:{key}" "tokens" '
                         f'"{rng.uniform(0, 20):.4f}" "ts" "{t:.6f}"')
            lines.append(f'{t + 0.00005:.6f} [0 lua] "EXPIRE" "snip:rl:{key}" "60"')
        elif r < 0.85:
            code = "".join(rng.choice("abcdefghijkmnpqrstuvwxyz0123456789") for _ in range(7))
            lines.append(f'{t:.6f} [0 {peer}] "HGETALL" "snip:link:{code}"')
        else:
            lines.append(f'{t:.6f} [0 {peer}] "ZRANGE" "snip:owner:{key}" "{rng.randrange(0, 4000, 200)}" '
                         f'"{rng.randrange(200, 4200, 200)}"')
    return "\n".join(lines)


def hey_report(rng: random.Random, total: int, seconds: float, ok: int, limited: int, p50: float) -> str:
    """The summary `hey` prints after a load test."""
    rps = total / seconds
    buckets = [p50 * f for f in (0.2, 0.5, 0.8, 1.0, 1.3, 1.8, 2.6, 3.9, 5.5, 8.0, 12.0)]
    counts = sorted((rng.randint(1, total // 3) for _ in buckets), reverse=True)
    hist = "\n".join(f"  {b:.3f} [{c}]\t|{'■' * max(1, c * 40 // max(counts))}" for b, c in zip(buckets, counts))
    lat = "\n".join(f"  {p}% in {p50 * f:.4f} secs" for p, f in
                    ((10, 0.4), (25, 0.7), (50, 1.0), (75, 1.5), (90, 2.4), (95, 3.3), (99, 6.1)))
    return f"""
Summary:
  Total:\t{seconds:.4f} secs
  Slowest:\t{p50 * 14:.4f} secs
  Fastest:\t{p50 * 0.12:.4f} secs
  Average:\t{p50 * 1.2:.4f} secs
  Requests/sec:\t{rps:.4f}


Response time histogram:
{hist}


Latency distribution:
{lat}

Details (average, fastest, slowest):
  DNS+dialup:\t0.0001 secs, {p50 * 0.12:.4f} secs, {p50 * 14:.4f} secs
  DNS-lookup:\t0.0000 secs, 0.0000 secs, 0.0012 secs
  req write:\t0.0000 secs, 0.0000 secs, 0.0021 secs
  resp wait:\t{p50 * 1.1:.4f} secs, {p50 * 0.1:.4f} secs, {p50 * 13:.4f} secs
  resp read:\t0.0001 secs, 0.0000 secs, 0.0040 secs

Status code distribution:
  [200]\t{ok} responses
  [429]\t{limited} responses
""".strip("\n")
