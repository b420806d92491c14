"""codex-rollout-compacted.jsonl: a Codex CLI rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).

Every line is {timestamp, type, payload}: session_meta, turn_context, response_item
(message / reasoning / function_call / function_call_output / custom_tool_call /
custom_tool_call_output), event_msg (user_message, agent_message, agent_reasoning,
token_count, context_compacted) and one `compacted` record whose replacement_history
is the history Codex continues from.
"""

from __future__ import annotations

import base64
import json
import math
import random
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any

from . import snip_src as src
from .bulk import app_log

CWD = "/home/dana/src/snip"
MODEL = "gpt-5-codex"
BASE_PROMPT_TOKENS = 9120  # Codex's instructions + tool schemas

SUMMARY_PREFIX = ("Another language model started to solve this problem and produced a summary of its thinking "
                  "process. You also have access to the state of the tools that were used by that language model. "
                  "Use this to build on the work that has already been done and avoid duplicating work. Here is the "
                  "summary produced by the other language model, use the information in this summary to assist with "
                  "your own analysis:")

ENV_CONTEXT = f"""<environment_context>
  <cwd>{CWD}</cwd>
  <approval_policy>on-request</approval_policy>
  <sandbox_mode>workspace-write</sandbox_mode>
  <network_access>restricted</network_access>
  <shell>bash</shell>
</environment_context>"""

AGENTS_MD = """# AGENTS.md instructions for /home/dana/src/snip

<INSTRUCTIONS>
- Python 3.12, FastAPI. Run `pytest -q` and `ruff check src tests && mypy` before declaring anything done.
- Never change the public JSON shape of existing endpoints without saying so explicitly.
- Secrets live in keys.json (gitignored); never print them.
</INSTRUCTIONS>"""


PERMISSIONS = """<permissions instructions>
Filesystem sandboxing defines which files can be read or written. `sandbox_mode` is `workspace-write`: you can
read any file and write only inside the current working directory and /tmp. Network access is restricted.
Approval policy is `on-request`: commands run in the sandbox; ask for escalated permissions (with a short
justification) only when a command needs to write outside the workspace or reach the network.
</permissions instructions>"""


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class Rollout:
    def __init__(self, seed: int, start: str) -> None:
        self.rng = random.Random(seed)
        self.t = datetime.fromisoformat(start.replace("Z", "+00:00")).astimezone(timezone.utc)
        self.lines: list[dict] = []
        self.history_chars = 0
        self.total = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0,
                      "reasoning_output_tokens": 0, "total_tokens": 0}
        self.cached = 0
        self.history: list[dict] = []  # response items the model currently sees

    def ts(self, lo: float = 0.05, hi: float = 1.0) -> str:
        self.t += timedelta(milliseconds=self.rng.randint(int(lo * 1000), int(hi * 1000)))
        return self.t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.t.microsecond // 1000:03d}Z"

    def emit(self, type_: str, payload: dict, pause: tuple[float, float] = (0.01, 0.3)) -> dict:
        line = {"timestamp": self.ts(*pause), "type": type_, "payload": payload}
        self.lines.append(line)
        return line

    def item(self, payload: dict, pause: tuple[float, float] = (0.01, 0.3)) -> None:
        self.emit("response_item", payload, pause)
        self.history.append(payload)
        self.history_chars += len(_dumps(payload))

    def call_id(self) -> str:
        return "call_" + "".join(self.rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
                                 for _ in range(24))

    def encrypted(self) -> str:
        raw = bytes(self.rng.getrandbits(8) for _ in range(self.rng.randint(700, 1400)))
        return "gAAAAAB" + base64.urlsafe_b64encode(raw).decode()

    def token_count(self, out_chars: int, reasoning: int) -> None:
        prompt = BASE_PROMPT_TOKENS + math.ceil(self.history_chars / 4 * 1.16)
        cached = min(self.cached, prompt)
        self.cached = prompt - prompt % 64  # the prompt cache works in blocks
        output = max(1, round(out_chars / 4 * 1.1)) + reasoning
        last = {"input_tokens": prompt, "cached_input_tokens": cached, "output_tokens": output,
                "reasoning_output_tokens": reasoning, "total_tokens": prompt + output}
        for k in self.total:
            self.total[k] += last[k]
        used = min(99.0, 3.0 + self.total["total_tokens"] / 60000)
        self.emit("event_msg", {"type": "token_count", "info": {"total_token_usage": dict(self.total),
                                                              "last_token_usage": last,
                                                              "model_context_window": 272000},
                                "rate_limits": {"primary": {"used_percent": round(used, 1), "window_minutes": 300,
                                                            "resets_in_seconds": 11480},
                                                "secondary": {"used_percent": round(used / 7, 1),
                                                              "window_minutes": 10080, "resets_in_seconds": 431210}}})

    def turn_context(self) -> None:
        self.emit("turn_context", {"cwd": CWD, "approval_policy": "on-request",
                                   "sandbox_policy": {"mode": "workspace-write", "network_access": False,
                                                      "exclude_tmpdir_env_var": False, "exclude_slash_tmp": False},
                                   "model": MODEL, "effort": "medium", "summary": "auto"})

    def user(self, text: str) -> None:
        self.turn_context()
        self.item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
                  pause=(20, 120))
        self.emit("event_msg", {"type": "user_message", "message": text, "images": []})

    def reasoning(self, title: str, body: str) -> int:
        text = f"**{title}**\n\n{body}"
        self.item({"type": "reasoning", "summary": [{"type": "summary_text", "text": text}], "content": None,
                   "encrypted_content": self.encrypted()}, pause=(1, 5))
        self.emit("event_msg", {"type": "agent_reasoning", "text": f"**{title}**"})
        return self.rng.randint(64, 900)

    def shell(self, command: str, output: str, *, code: int = 0, reason: tuple[str, str] | None = None,
              timeout_ms: int | None = None) -> None:
        reasoning = self.reasoning(*reason) if reason else 0
        args: dict[str, Any] = {"command": ["bash", "-lc", command], "workdir": CWD}
        if timeout_ms:
            args["timeout_ms"] = timeout_ms
        cid = self.call_id()
        self.item({"type": "function_call", "name": "shell", "arguments": _dumps(args), "call_id": cid})
        self.token_count(len(command) + 40, reasoning)
        self.item({"type": "function_call_output", "call_id": cid,
                   "output": _dumps({"output": output, "metadata": {"exit_code": code,
                                                                      "duration_seconds": round(self.rng.uniform(0.02, 3.5), 1)}})},
                  pause=(0.1, 4))

    def patch(self, patch: str, files: list[str], reason: tuple[str, str] | None = None, *,
              error: str | None = None) -> None:
        reasoning = self.reasoning(*reason) if reason else 0
        cid = self.call_id()
        self.item({"type": "custom_tool_call", "status": "completed", "call_id": cid, "name": "apply_patch",
                   "input": patch})
        self.token_count(len(patch), reasoning)
        if error is None:
            out = "Success. Updated the following files:\n" + "\n".join(files) + "\n"
            code = 0
        else:
            out, code = error, 1
        self.item({"type": "custom_tool_call_output", "call_id": cid,
                   "output": _dumps({"output": out, "metadata": {"exit_code": code, "duration_seconds": 0.0}})})

    def say(self, text: str, reason: tuple[str, str] | None = None) -> None:
        reasoning = self.reasoning(*reason) if reason else 0
        self.item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]},
                  pause=(1, 6))
        self.emit("event_msg", {"type": "agent_message", "message": text})
        self.token_count(len(text), reasoning)

    def write(self, path: str) -> None:
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            for line in self.lines:
                fh.write(_dumps(line) + "\n")


def sed(content: str, a: int, b: int) -> str:
    return "\n".join(content.split("\n")[a - 1:b])


CURSOR = '''"""Opaque, signed pagination cursors: clients can't jump to arbitrary offsets or read other owners' pages."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json


class BadCursor(ValueError):
    """The cursor was not issued by us for this owner (or is corrupt)."""


def encode(offset: int, owner: str, secret: bytes) -> str:
    body = json.dumps({"o": offset, "k": owner}, separators=(",", ":")).encode()
    mac = hmac.new(secret, body, hashlib.sha256).digest()[:12]
    return base64.urlsafe_b64encode(body + mac).decode().rstrip("=")


def decode(cursor: str, owner: str, secret: bytes) -> int:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        body, mac = raw[:-12], raw[-12:]
        if not hmac.compare_digest(mac, hmac.new(secret, body, hashlib.sha256).digest()[:12]):
            raise BadCursor("signature mismatch")
        data = json.loads(body)
    except (ValueError, json.JSONDecodeError) as exc:
        raise BadCursor(str(exc)) from exc
    if data.get("k") != owner or not isinstance(data.get("o"), int) or data["o"] < 0:
        raise BadCursor("cursor belongs to another key")
    return int(data["o"])
'''

SUMMARY = """Goal: make `GET /v1/links` pagination cursors opaque and signed in snip (/home/dana/src/snip), so clients can no longer pass arbitrary integer offsets (the 2026-11-19 incident client looped on cursor values up to 40000).

Done so far:
- Added src/snip/cursor.py: `encode(offset, owner, secret)` → urlsafe base64 of compact JSON {"o": offset, "k": owner} + 12-byte HMAC-SHA256; `decode(cursor, owner, secret)` raises `BadCursor` on a bad signature, wrong owner or negative offset.
- Settings: new `cursor_secret: SecretStr` (SNIP_CURSOR_SECRET), required in production; tests use a fixed value in conftest.
- `list_links` in src/snip/app.py: `cursor: str | None = None`; decodes it, returns `next_cursor` as an opaque string; `BadCursor` → 400 {"detail": "invalid cursor"}.
- tests/test_cursor.py: round trip, tampered MAC, other owner, legacy integer cursor rejected. All pass.

Open issue: tests/test_api.py::test_list_pagination still passes `cursor=4` (integer) and asserts `next_cursor == 2`; the user said the JSON shape change is acknowledged (cursor becomes a string), so the test must be rewritten to follow `next_cursor`.

Decisions: HMAC truncated to 12 bytes (96 bits) to keep cursors short; owner bound into the cursor so a leaked cursor is useless to other keys; integer cursors are rejected outright (no transition period) per the user.

Next: rewrite test_list_pagination, run `pytest -q`, `ruff check src tests && mypy`, document the change in README (API table + a "Breaking changes" note)."""


def build() -> Rollout:
    r = Rollout(seed=81, start="2026-11-22T14:02:11.604Z")
    rng = r.rng
    files = {"src/snip/app.py": src.APP, "src/snip/config.py": src.CONFIG, "tests/test_api.py": src.TEST_API,
             "tests/conftest.py": src.CONFTEST, "src/snip/storage.py": src.STORAGE,
             "logs/app-2026-11-19.jsonl": app_log(rng, 260, "2026-11-19T02:04:00")}
    sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    r.emit("session_meta", {"id": sid, "timestamp": r.t.strftime("%Y-%m-%dT%H:%M:%S.") + "604Z", "cwd": CWD,
                            "originator": "codex_cli_rs", "cli_version": "0.58.0", "instructions": None,
                            "source": "cli", "model_provider": "openai",
                            "git": {"commit_hash": "a3e91c0b7d2f4e18c6a5b90d3e1f7c2a48b6d015", "branch": "main",
                                    "repository_url": "git@github.com:acme/snip.git"}}, pause=(0, 0))
    r.item({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": PERMISSIONS}]})
    r.item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": AGENTS_MD}]})
    r.item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": ENV_CONTEXT}]})
    r.user("The list API takes an integer cursor (an offset). During the incident the client looped over "
           "cursor=0..40000. Make cursors opaque and signed (bound to the key), reject integer cursors. The JSON "
           "shape of next_cursor changes from int to string; that's acknowledged.")
    r.shell("rg -n \"cursor\" src tests", "\n".join([
        "src/snip/app.py:97:    async def list_links(cursor: int = 0, limit: int = 50,",
        "src/snip/app.py:99:        links, nxt = await store.list_for(key.key_id, cursor, min(limit, 200))",
        "src/snip/app.py:100:        return {\"links\": [out(l) for l in links], \"next_cursor\": nxt}",
        "src/snip/storage.py:25:    async def list_for(self, owner: str, cursor: int, limit: int) -> tuple[list[Link], int | None]: ...",
        "src/snip/storage.py:55:    async def list_for(self, owner: str, cursor: int, limit: int) -> tuple[list[Link], int | None]:",
        "src/snip/storage.py:58:        page = mine[cursor : cursor + limit]",
        "src/snip/storage.py:107:    async def list_for(self, owner: str, cursor: int, limit: int) -> tuple[list[Link], int | None]:",
        "tests/test_api.py:42:    assert len(first[\"links\"]) == 2 and first[\"next_cursor\"] == 2",
        "tests/test_api.py:43:    last = client.get(\"/v1/links?limit=2&cursor=4\", headers=auth).json()",
    ]), reason=("Locating cursor handling", "I'll grep for cursor usage across src and tests to see where the "
                "offset flows."))
    r.shell("sed -n '1,200p' src/snip/app.py", files["src/snip/app.py"])
    r.shell("sed -n '1,80p' src/snip/config.py", files["src/snip/config.py"])
    r.shell("sed -n '1,200p' src/snip/storage.py", files["src/snip/storage.py"],
            reason=("Reviewing storage pagination", "Storage keeps integer offsets internally; only the API layer "
                    "needs opaque cursors, so the LinkStore protocol can stay as it is."))
    r.shell("grep -c '\"cursor=' logs/app-2026-11-19.jsonl; sed -n '1,260p' logs/app-2026-11-19.jsonl",
            "143\n" + files["logs/app-2026-11-19.jsonl"])
    r.patch("*** Begin Patch\n*** Add File: src/snip/cursor.py\n" + "\n".join("+" + l for l in CURSOR.split("\n")[:-1])
            + "\n*** End Patch\n", ["A src/snip/cursor.py"],
            reason=("Designing the cursor format", "Encode {offset, owner} as compact JSON, append a truncated "
                    "HMAC-SHA256, urlsafe base64 without padding. Decoding checks the MAC, the owner and the "
                    "offset type."))
    r.patch("*** Begin Patch\n*** Update File: src/snip/config.py\n@@\n     trusted_proxies: list[str] = Field(default_factory=lambda: [\"10.0.0.0/8\"])\n"
            "+    cursor_secret: SecretStr = SecretStr(\"dev-only-cursor-secret\")\n*** End Patch\n",
            ["M src/snip/config.py"])
    r.patch("*** Begin Patch\n*** Update File: src/snip/app.py\n@@\n-    async def list_links(cursor: int = 0, limit: int = 50,\n"
            "-                         key: ApiKey = Depends(require_key)) -> dict[str, object]:\n"
            "-        links, nxt = await store.list_for(key.key_id, cursor, min(limit, 200))\n"
            "-        return {\"links\": [out(l) for l in links], \"next_cursor\": nxt}\n"
            "+    async def list_links(cursor: str | None = None, limit: int = 50,\n"
            "+                         key: ApiKey = Depends(require_key)) -> dict[str, object]:\n"
            "+        secret = settings.cursor_secret.get_secret_value().encode()\n"
            "+        try:\n+            offset = decode(cursor, key.key_id, secret) if cursor else 0\n"
            "+        except BadCursor:\n+            raise HTTPException(status.HTTP_400_BAD_REQUEST, \"invalid cursor\") from None\n"
            "+        links, nxt = await store.list_for(key.key_id, offset, min(limit, 200))\n"
            "+        return {\"links\": [out(l) for l in links],\n"
            "+                \"next_cursor\": encode(nxt, key.key_id, secret) if nxt is not None else None}\n*** End Patch\n",
            ["M src/snip/app.py"])
    r.patch("*** Begin Patch\n*** Update File: src/snip/app.py\n@@\n-from .config import Settings, get_settings\n"
            "+from .config import Settings, get_settings\n+from .cursor import BadCursor, decode, encode\n*** End Patch\n",
            ["M src/snip/app.py"])
    test = ("import pytest\n\nfrom snip.cursor import BadCursor, decode, encode\n\nS = b\"test-secret\"\n\n\n"
            "def test_round_trip():\n    assert decode(encode(400, \"k1\", S), \"k1\", S) == 400\n\n\n"
            "def test_tampered():\n    c = encode(400, \"k1\", S)\n    with pytest.raises(BadCursor):\n"
            "        decode(c[:-2] + (\"A\" if c[-2] != \"A\" else \"B\") + c[-1], \"k1\", S)\n\n\n"
            "def test_other_owner():\n    with pytest.raises(BadCursor):\n        decode(encode(0, \"k1\", S), \"k2\", S)\n\n\n"
            "def test_integer_cursor_rejected():\n    with pytest.raises(BadCursor):\n        decode(\"4000\", \"k1\", S)\n")
    r.patch("*** Begin Patch\n*** Add File: tests/test_cursor.py\n" + "\n".join("+" + l for l in test.split("\n")[:-1])
            + "\n*** End Patch\n", ["A tests/test_cursor.py"])
    pytest_out = ("......F.....\n=================================== FAILURES ===================================\n"
                  "____________________________ test_list_pagination _____________________________\n\n"
                  "client = <starlette.testclient.TestClient object at 0x7f8a1b2c3d40>, auth = {'Authorization': 'Bearer sk_test_k1_s3cr3tvalue'}\n\n"
                  "    def test_list_pagination(client: TestClient, auth: dict[str, str]) -> None:\n"
                  "        for i in range(5):\n            client.post(\"/v1/links\", json={\"url\": f\"https://example.org/p{i}\"}, headers=auth)\n"
                  "        first = client.get(\"/v1/links?limit=2\", headers=auth).json()\n"
                  ">       assert len(first[\"links\"]) == 2 and first[\"next_cursor\"] == 2\n"
                  "E       AssertionError: assert (2 == 2 and 'eyJvIjoyLCJrIjoiazEifQ3xLwN1pQmYc8HfA' == 2)\n\n"
                  "tests/test_api.py:42: AssertionError\n=========================== short test summary info ============================\n"
                  "FAILED tests/test_api.py::test_list_pagination - AssertionError: assert (2 == 2 and 'eyJvIjoyLCJrIjoiazEifQ3xLwN1pQmYc8HfA' == 2)\n"
                  "1 failed, 11 passed in 0.97s")
    r.shell("pytest -q", pytest_out, code=1, reason=("Running tests", "Expect the old pagination test to fail on "
                                                    "the new cursor type."))
    r.say("The new cursor tests pass; `test_list_pagination` fails as expected because it asserts the old integer "
          "`next_cursor`. I'll rewrite it to follow the opaque cursor.")
    # compaction: the history is replaced by the user messages plus the summary
    summary_item = {"type": "message", "role": "user",
                    "content": [{"type": "input_text", "text": SUMMARY_PREFIX + "\n" + SUMMARY}]}
    kept_users = [h for h in r.history if h.get("type") == "message" and h.get("role") == "user"]
    replacement = kept_users + [summary_item]
    r.emit("compacted", {"message": SUMMARY, "replacement_history": replacement}, pause=(20, 45))
    r.emit("event_msg", {"type": "context_compacted"})
    r.history = list(replacement)
    r.history_chars = sum(len(_dumps(h)) for h in replacement)
    r.cached = 0
    r.turn_context()
    r.patch("*** Begin Patch\n*** Update File: tests/test_api.py\n@@\n-    first = client.get(\"/v1/links?limit=2\", headers=auth).json()\n"
            "-    assert len(first[\"links\"]) == 2 and first[\"next_cursor\"] == 2\n"
            "-    last = client.get(\"/v1/links?limit=2&cursor=4\", headers=auth).json()\n"
            "-    assert len(last[\"links\"]) == 1 and last[\"next_cursor\"] is None\n"
            "+    seen, cursor = [], None\n+    while True:\n"
            "+        page = client.get(\"/v1/links\", params={\"limit\": 2, **({\"cursor\": cursor} if cursor else {})}, headers=auth).json()\n"
            "+        seen += [l[\"code\"] for l in page[\"links\"]]\n+        cursor = page[\"next_cursor\"]\n"
            "+        if cursor is None:\n+            break\n+        assert isinstance(cursor, str)\n"
            "+    assert len(seen) == 5 and len(set(seen)) == 5\n\n\n"
            "+def test_integer_cursor_is_rejected(client: TestClient, auth: dict[str, str]) -> None:\n"
            "+    assert client.get(\"/v1/links?cursor=4\", headers=auth).status_code == 400\n*** End Patch\n",
            ["M tests/test_api.py"],
            reason=("Rewriting the pagination test", "Follow next_cursor until None and collect codes; add a test "
                    "that an integer cursor gets 400."))
    r.shell("pytest -q && ruff check src tests && mypy",
            ".............\n13 passed in 1.02s\nsrc/snip/config.py:10:1: F821 Undefined name `SecretStr`\nFound 1 error.",
            code=1)
    r.patch("*** Begin Patch\n*** Update File: src/snip/config.py\n@@\n-from pydantic import Field\n+from pydantic import Field, SecretStr\n*** End Patch\n",
            ["M src/snip/config.py"])
    r.shell("ruff check src tests && mypy", "All checks passed!\nSuccess: no issues found in 8 source files")
    r.patch("*** Begin Patch\n*** Update File: docs/api.md\n@@\n-`cursor` (integer): offset of the first link\n"
            "+`cursor` (string): the opaque `next_cursor` of the previous page\n*** End Patch\n",
            ["M docs/api.md"], error="apply_patch verification failed: Failed to read file to update docs/api.md: "
                                     "No such file or directory (os error 2)")
    r.shell("grep -rn 'cursor' README.md docs 2>&1 | head", "README.md:21:| GET | `/v1/links` | list your links, "
            "`?cursor=` pagination |\ngrep: docs: No such file or directory",
            reason=("Finding the API docs", "There is no docs/api.md; the API table lives in the README."))
    r.patch("*** Begin Patch\n*** Update File: README.md\n@@\n-| GET | `/v1/links` | list your links, `?cursor=` pagination |\n"
            "+| GET | `/v1/links` | list your links; pass the opaque `next_cursor` back as `?cursor=` |\n*** End Patch\n",
            ["M README.md"])
    r.say("Done:\n- `src/snip/cursor.py`: signed, owner-bound opaque cursors (`encode`/`decode`, `BadCursor`).\n"
          "- `GET /v1/links`: `cursor` is now an opaque string; integer or foreign cursors get **400 invalid "
          "cursor**; `next_cursor` is a string or null (**breaking change**, acknowledged).\n"
          "- New setting `SNIP_CURSOR_SECRET` (must be set in production; the default is dev-only).\n"
          "- Tests: 4 cursor unit tests, pagination test rewritten, integer-cursor rejection test; pytest, ruff and "
          "mypy pass.\n- README's API table describes the opaque cursor.")
    return r
