"""pi-branched.jsonl, pi-v1-legacy.jsonl and pi-v2-hookmessage.jsonl."""

from __future__ import annotations

from . import snip_src as src
from .bulk import app_log
from .pi import PiSession
from .workspace import Workspace, access_log

ROOT = "/home/dana/src/snip"


def branched() -> PiSession:
    """A session where the user went back twice: one branch dropped silently, one with a branch summary."""
    s = PiSession(seed=41, start="2026-11-18T15:02:31.007Z", cwd=ROOT, ratio=1.3)
    rng = s.rng
    files = {"src/snip/app.py": src.APP, "src/snip/config.py": src.CONFIG, "tests/conftest.py": src.CONFTEST,
             "tests/test_api.py": src.TEST_API, "pyproject.toml": src.PYPROJECT,
             "logs/edge-access-2026-11-17.log": access_log(rng, 900, "2026-11-17T10:00:00", hot_share=0.3)}
    w = Workspace(s, ROOT, files)
    s.model_change("anthropic", "claude-sonnet-4-5")
    s.thinking_level("medium")
    s.user("Spike, not a real change yet: what's the quickest way to put a rate limit on snip's /v1 API? "
           "Look at the code first.", pause=(1, 3))
    s.steps([("read", {"path": p}, w.read_result(p)[0], False) for p in ("src/snip/app.py", "pyproject.toml")])
    w.read("logs/edge-access-2026-11-17.log", thinking="A sense of normal request rates per key helps pick numbers.")
    options = s.say(
        "Three realistic options:\n\n"
        "1. **nginx `limit_req`** at the edge, keyed on the Authorization header: zero code, but nginx only "
        "sees the raw token (hash it with `map`), and limits are per nginx instance.\n"
        "2. **slowapi** (a Flask-Limiter port): decorators per route, Redis storage via `limits`; a new dependency "
        "and it needs a `request: Request` parameter on every limited endpoint.\n"
        "3. **Own token bucket** as a FastAPI dependency after `require_key`, Redis + Lua for the shared state: "
        "~120 lines, no new dependency, exact control over headers and which routes are limited.\n\n"
        "For a spike I'd try 2 first (fastest to see working), with 3 as the likely real implementation.")
    # branch 1: nginx question, abandoned without a summary
    s.user("How would option 1 look concretely?", pause=(30, 90))
    s.say("```nginx\nmap $http_authorization $rl_key { default $http_authorization; \"\" \"\"; }\n"
          "limit_req_zone $rl_key zone=perkey:10m rate=2r/s;\n\nserver {\n  location /v1/ {\n"
          "    limit_req zone=perkey burst=20 nodelay;\n    limit_req_status 429;\n    proxy_pass http://app;\n  }\n}\n```\n\n"
          "Two nginx instances would each allow 2 r/s, so the effective limit doubles; and no Retry-After header "
          "unless you add it with `add_header ... always` in an error_page block.", thinking="Keep it short.")
    # back to the options message, no summary: the user just asks something else from there
    s.branch(options["id"])
    s.user("OK, try option 2 (slowapi) quickly.", pause=(40, 120))
    w.bash("pip install slowapi==0.1.9 2>&1 | tail -2",
           "Successfully installed Deprecated-1.2.14 limits-3.13.0 slowapi-0.1.9 wrapt-1.16.0\n"
           "[notice] A new release of pip is available: 24.0 -> 24.3.1", took=(4, 9))
    w.edit("src/snip/app.py", "from fastapi.responses import RedirectResponse\n",
           "from fastapi.responses import RedirectResponse\nfrom slowapi import Limiter, _rate_limit_exceeded_handler\n"
           "from slowapi.errors import RateLimitExceeded\n")
    w.edit("src/snip/app.py", "    app = FastAPI(title=\"snip\", version=\"0.9.3\")\n",
           "    app = FastAPI(title=\"snip\", version=\"0.9.3\")\n"
           "    limiter = Limiter(key_func=lambda request: request.headers.get(\"authorization\", \"anon\"),\n"
           "                      storage_uri=settings.redis_url or \"memory://\")\n"
           "    app.state.limiter = limiter\n    app.add_exception_handler(RateLimitExceeded, _rate_limit_exceeded_handler)\n")
    w.edit("src/snip/app.py", "    @app.get(\"/v1/links\")\n", "    @app.get(\"/v1/links\")\n    @limiter.limit(\"120/minute\")\n")
    w.bash("pytest -q 2>&1 | tail -12",
           "ImportError while loading conftest '/home/dana/src/snip/tests/conftest.py'.\ntests/conftest.py:5: in <module>\n"
           "    from snip.app import create_app\nsrc/snip/app.py:48: in create_app\n"
           "E   Exception: No \"request\" or \"websocket\" argument on function \"<function create_app.<locals>.list_links at 0x7f9e2c1d3b00>\"",
           code=4)
    s.say("That's slowapi's known requirement: every decorated endpoint must take `request: Request` explicitly, "
          "so each limited route changes signature. It also keys on the raw Authorization header (secret in Redis "
          "keys!) unless I parse the key id myself, and the 429 body/headers are slowapi's format. Workable, but "
          "it's touching every route for less control than option 3.")
    s.user("Yeah no, secrets in Redis keys is a non-starter. Let's go back and do option 3.", pause=(30, 90))
    s.branch_summary(options["id"], (
        "## Goal\nSpike: rate-limit snip's /v1 API with slowapi (option 2).\n\n"
        "## Progress\n### Done\n- [x] Installed slowapi 0.1.9 (pulls in limits 3.13.0, Deprecated, wrapt).\n"
        "- [x] Added a `Limiter` keyed on the Authorization header with Redis storage and decorated `GET /v1/links`.\n\n"
        "### Blocked\n- Import fails: `Exception: No \"request\" or \"websocket\" argument on function` — every limited "
        "endpoint needs an explicit `request: Request` parameter.\n\n"
        "## Key Decisions\n- **Abandoned slowapi**: keys on the raw Authorization header (API secrets would end up in "
        "Redis keys), changes every route signature, fixed 429 format. User rejected it.\n\n"
        "## Next Steps\n1. Implement option 3: own token bucket dependency after `require_key`.\n"
        "2. `pip uninstall slowapi limits` and revert src/snip/app.py.\n\n"
        "<modified-files>\nsrc/snip/app.py\n</modified-files>"),
        details={"readFiles": ["pyproject.toml"], "modifiedFiles": ["src/snip/app.py"]})
    s.custom("todo", {"items": [{"text": "uninstall slowapi + limits", "done": False},
                                {"text": "token bucket dependency", "done": False}]})
    s.label(options["id"], "rate-limit options")
    s.user("Option 3 then, still as a spike: undo the slowapi bits and write the token bucket module. Don't wire "
           "it into the routes yet.", pause=(20, 60))
    w.files["src/snip/app.py"] = src.APP
    w.bash("pip uninstall -y slowapi limits Deprecated wrapt 2>&1 | tail -4 && git checkout -- src/snip/app.py && git status --short",
           "Successfully uninstalled wrapt-1.16.0\nSuccessfully uninstalled Deprecated-1.2.14\n"
           "Successfully uninstalled limits-3.13.0\nSuccessfully uninstalled slowapi-0.1.9",
           thinking="The slowapi branch is summarized above; its side effects are still on disk (packages in the "
                    "venv, edits in app.py). Undo those first.")
    w.read_chunks("logs/edge-access-2026-11-17.log", 2, ["Normal per-key rates, to pick spike defaults.",
                                                          "Below 10/min for every normal key."])
    w.write("src/snip/ratelimit.py", src.RATELIMIT, text="Option 3: the token bucket module.")
    s.session_info("snip: rate limiting spike")
    s.say("Spike state: `src/snip/ratelimit.py` has the bucket (memory + Redis/Lua) and the 429 headers helper; "
          "slowapi is uninstalled and app.py is back to main. Wiring it in as a dependency after `require_key` is "
          "the next step if you want to turn the spike into the real change.")
    s.custom("todo", {"items": [{"text": "uninstall slowapi + limits", "done": True},
                                {"text": "token bucket dependency", "done": False}]})
    return s


def v1_legacy() -> PiSession:
    """An old (version 1) session: no ids, a compaction pointing at an entry index."""
    s = PiSession(seed=51, start="2025-11-02T10:14:09.330Z", cwd="/home/dana/src/snip", version=None, ratio=1.28)
    rng = s.rng
    files = {"README.md": src.README, "pyproject.toml": src.PYPROJECT,
             "logs/app-2025-11-01.jsonl": app_log(rng, 700, "2025-11-01T09:00:00")}
    w = Workspace(s, ROOT, files)
    s.user("Add a Makefile with install/test/lint/run targets and fix the README's development section to use it.",
           pause=(1, 3))
    s.steps([("read", {"path": "README.md"}, w.read_result("README.md")[0], False),
             ("read", {"path": "pyproject.toml"}, w.read_result("pyproject.toml")[0], False)])
    w.bash("ls; cat .github/workflows/ci.yml 2>/dev/null | head -30",
           "README.md\nkeys.example.json\npyproject.toml\nsrc\ntests\n")
    mk = (".PHONY: install test lint run\n\ninstall:\n\tpip install -e '.[dev]'\n\ntest:\n\tpytest -q\n\n"
          "lint:\n\truff check src tests\n\tmypy\n\nrun:\n\tuvicorn snip.app:create_app --factory --reload --port 8080\n")
    w.write("Makefile", mk)
    w.bash("make lint", "ruff check src tests\nAll checks passed!\nmypy\nSuccess: no issues found in 6 source files")
    w.read_chunks("logs/app-2025-11-01.jsonl", 3, [
        "The README should say what `make run` prints; checking a real log from the dev setup.",
        "JSON lines from structlog, one per request, plus link.created events.",
        "Same structure to the end; redis.slow warnings appear too. Enough for the README note."])
    s.say("Makefile added (install/test/lint/run) and `make lint` passes. The dev server logs one JSON line per "
          "request (structlog), which I'll mention next to `make run` in the README.")
    second = s.user("Also make `make run` load .env if present.", pause=(60, 120))
    w.edit("Makefile", "\tuvicorn snip.app:create_app --factory --reload --port 8080\n",
           "\tuvicorn snip.app:create_app --factory --reload --port 8080 $(if $(wildcard .env),--env-file .env,)\n")
    w.bash("make -n run", "uvicorn snip.app:create_app --factory --reload --port 8080 --env-file .env")
    s.compact("The user asked for a Makefile (install/test/lint/run) in /home/dana/src/snip and a README update. "
              "Makefile written; `make lint` passes; `make run` passes --env-file .env when .env exists. "
              "Remaining: update the README development section to use the make targets.",
              keep_recent=s.tokens_since(second["id"]), extra_files=False)
    s.entries[-1].pop("details", None)
    w.edit("README.md", "    pip install -e '.[dev]'\n    pytest -q\n    ruff check src tests && mypy\n",
           "    make install\n    make test\n    make lint\n    make run    # dev server on :8080, loads .env if present\n")
    s.say("README's development section now uses `make install/test/lint/run`.")
    return s


def v2_hookmessage() -> PiSession:
    """A version 2 session where an extension hook injected a message (role hookMessage, `custom` since v3)."""
    s = PiSession(seed=61, start="2025-12-09T16:20:00.000Z", cwd="/home/dana/src/snip", version=2, ratio=1.3)
    rng = s.rng
    files = {"src/snip/auth.py": src.AUTH, "tests/conftest.py": src.CONFTEST,
             "logs/app-2025-12-08.jsonl": app_log(rng, 500, "2025-12-08T12:00:00")}
    w = Workspace(s, ROOT, files)
    s.model_change("anthropic", "claude-sonnet-4-5")
    s.thinking_level("low")
    s.user("Someone sent a 4 KB Authorization header yesterday. Make KeyRing.verify reject key ids longer than 16 "
           "characters. Small change.", pause=(1, 3))
    w.read("src/snip/auth.py")
    w.edit("src/snip/auth.py",
           "        entry = self._entries.get(key_id)\n        if entry is None:\n            return None\n",
           "        entry = self._entries.get(key_id)\n        if entry is None or len(key_id) > 16:\n            return None\n")
    s.hook_message("auth-guard",
                   "[auth-guard] src/snip/auth.py:37: `self._entries.get(key_id)` uses `key_id` (from the "
                   "Authorization header) before its length is checked. Validate untrusted input before using it "
                   "as a lookup key.", display=True)
    w.edit("src/snip/auth.py",
           "        key_id, secret = parts[2], parts[3]\n        entry = self._entries.get(key_id)\n"
           "        if entry is None or len(key_id) > 16:\n            return None\n",
           "        key_id, secret = parts[2], parts[3]\n        if len(key_id) > 16:\n            return None\n"
           "        entry = self._entries.get(key_id)\n        if entry is None:\n            return None\n",
           text="The auth-guard hook is right: the length check belongs before the lookup. Moving it.")
    s.hook_message("auth-guard", "[auth-guard] src/snip/auth.py: no findings.", display=False)
    w.read_chunks("logs/app-2025-12-08.jsonl", 2, ["Any legitimate key ids near 16 characters in recent traffic?",
                                                   "All key_ids in the log are 6 characters (k_ + 4)."])
    w.bash("pytest -q 2>&1 | tail -2", "........\n8 passed in 0.52s")
    s.say("Done: `KeyRing.verify` returns None for key ids longer than 16 characters, checked before the key "
          "dict is touched (moved there after the auth-guard hook's note). Real key ids in yesterday's traffic "
          "are 6 characters; tests pass.")
    s.bash_execution("git diff --stat", " src/snip/auth.py | 2 ++\n 1 file changed, 2 insertions(+)")
    s.user("Commit it with a message that mentions the 4 KB header.", pause=(10, 40))
    w.bash("git commit -qam 'auth: reject key ids longer than 16 chars before the lookup' -m 'A 4 KB Authorization "
           "header reached the key dict lookup on 2025-12-08.' && git log --oneline -1",
           "b71c0e4 auth: reject key ids longer than 16 chars before the lookup")
    s.say("Committed as b71c0e4.")
    return s
