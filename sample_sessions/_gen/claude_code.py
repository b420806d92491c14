"""claude-code-compacted.jsonl: a Claude Code transcript (~/.claude/projects/<dir>/<session>.jsonl).

Records carry uuid/parentUuid, sessionId, cwd, version, gitBranch, isSidechain and
userType; each content block of an API response is its own `assistant` record
(sharing message.id and requestId); tool results come back in `user` records. The
file holds a /model meta exchange, a Task subagent's sidechain, a rewind (two user
records with the same parent) and a manual /compact: a `compact_boundary` system
record followed by the `isCompactSummary` user record, then more work.
"""

from __future__ import annotations

import json
import math
import random
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any

from . import snip_src as src
from .bulk import app_log
from .workspace import access_log

CWD = "/home/dana/src/snip"
VERSION = "2.0.37"
MODEL = "claude-sonnet-4-5-20250929"
SYSTEM_TOKENS = 14870  # Claude Code's system prompt + tool definitions


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class ClaudeCodeSession:
    def __init__(self, seed: int, start: str) -> None:
        self.rng = random.Random(seed)
        self.t = datetime.fromisoformat(start.replace("Z", "+00:00")).astimezone(timezone.utc)
        self.session_id = str(self._uuid())
        self.records: list[dict] = []
        self.leaf: str | None = None
        self.branch = "main"
        self.context_chars = 0  # chars of everything in the model's context since the last compaction
        self.cached = 0
        self.files: dict[str, str] = {}
        self.side_leaf: str | None = None

    def _uuid(self) -> uuid.UUID:
        return uuid.UUID(int=self.rng.getrandbits(128), version=4)

    def tick(self, lo: float, hi: float) -> str:
        self.t += timedelta(milliseconds=self.rng.randint(int(lo * 1000), int(hi * 1000)))
        return self.t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.t.microsecond // 1000:03d}Z"

    def add(self, type_: str, body: dict, *, parent: Any = True, sidechain: bool = False,
            pause: tuple[float, float] = (0.2, 2.0), extra_front: dict | None = None) -> dict:
        rec: dict[str, Any] = {"parentUuid": self.leaf if parent is True else parent}
        rec.update(extra_front or {})
        rec.update({"isSidechain": sidechain, "userType": "external", "cwd": CWD, "sessionId": self.session_id,
                    "version": VERSION, "gitBranch": self.branch})
        rec["type"] = type_
        rec.update(body)
        rec["uuid"] = str(self._uuid())
        rec["timestamp"] = self.tick(*pause)
        self.records.append(rec)
        if not sidechain:
            self.leaf = rec["uuid"]
        return rec

    # ------------------------------------------------------------ messages
    def user(self, text: str, *, pause: tuple[float, float] = (20, 120), meta: bool = False, **extra: Any) -> dict:
        self.context_chars += len(text)
        body: dict[str, Any] = {"message": {"role": "user", "content": text}}
        if meta:
            body["isMeta"] = True
        body.update(extra)
        return self.add("user", body, pause=pause)

    def usage(self, out_chars: int) -> dict:
        prompt = SYSTEM_TOKENS + math.ceil(self.context_chars / 4 * self.rng.uniform(1.28, 1.33))
        fresh = self.rng.randint(3, 10)
        read = min(self.cached, prompt - fresh)
        create = prompt - fresh - read
        self.cached = prompt
        return {"input_tokens": fresh, "cache_creation_input_tokens": create, "cache_read_input_tokens": read,
                "cache_creation": {"ephemeral_5m_input_tokens": create, "ephemeral_1h_input_tokens": 0},
                "output_tokens": max(1, round(out_chars / 4 * self.rng.uniform(1.1, 1.3))), "service_tier": "standard"}

    def assistant(self, blocks: list[dict], *, sidechain: bool = False, stop: str | None = None) -> list[dict]:
        """One API response, written as one record per content block (as Claude Code does)."""
        out_chars = sum(len(b.get("text", "")) + len(b.get("thinking", "")) + len(_dumps(b.get("input", {})))
                        for b in blocks)
        usage = self.usage(out_chars)
        self.context_chars += out_chars
        msg_id = "msg_01" + "".join(self.rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz123456789")
                                    for _ in range(22))
        req = "req_011C" + "".join(self.rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz123456789")
                                   for _ in range(18))
        recs = []
        for i, block in enumerate(blocks):
            last = i == len(blocks) - 1
            message = {"model": MODEL, "id": msg_id, "type": "message", "role": "assistant", "content": [block],
                       "stop_reason": (stop or ("tool_use" if block["type"] == "tool_use" else "end_turn")) if last else None,
                       "stop_sequence": None, "usage": usage}
            recs.append(self.add("assistant", {"message": message, "requestId": req}, sidechain=sidechain,
                                 parent=(recs[-1]["uuid"] if recs else True) if not sidechain else
                                 (recs[-1]["uuid"] if recs else self.side_leaf),
                                 pause=(1.0, 4.0) if i == 0 else (0.05, 0.6)))
            if sidechain:
                self.side_leaf = recs[-1]["uuid"]
        return recs

    def tool_use_id(self) -> str:
        return "toolu_01" + "".join(self.rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789")
                                    for _ in range(22))

    def tool(self, name: str, inp: dict, result: str, *, error: bool = False, thinking: str | None = None,
             text: str | None = None, tool_use_result: Any = None, sidechain: bool = False) -> None:
        blocks: list[dict] = []
        if thinking:
            blocks.append({"type": "thinking", "thinking": thinking,
                           "signature": "Eu" + "".join(self.rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
                                                       for _ in range(300))})
        if text:
            blocks.append({"type": "text", "text": text})
        tid = self.tool_use_id()
        blocks.append({"type": "tool_use", "id": tid, "name": name, "input": inp})
        recs = self.assistant(blocks, sidechain=sidechain)
        self.context_chars += len(result)
        content: dict[str, Any] = {"tool_use_id": tid, "type": "tool_result", "content": result}
        if error:
            content["is_error"] = True
        body: dict[str, Any] = {"message": {"role": "user", "content": [content]}}
        body["toolUseResult"] = tool_use_result if tool_use_result is not None else (
            f"Error: {result}" if error else {"stdout": result, "stderr": "", "interrupted": False, "isImage": False})
        rec = self.add("user", body, sidechain=sidechain, parent=recs[-1]["uuid"], pause=(0.1, 3))
        if sidechain:
            self.side_leaf = rec["uuid"]

    def read(self, path: str, **kw: Any) -> None:
        content = self.files[path]
        lines = content.split("\n")
        numbered = "\n".join(f"{i:>6}→{line}" for i, line in enumerate(lines, 1))
        self.tool("Read", {"file_path": f"{CWD}/{path}"}, numbered,
                  tool_use_result={"type": "text", "file": {"filePath": f"{CWD}/{path}", "content": content,
                                                            "numLines": len(lines), "startLine": 1,
                                                            "totalLines": len(lines)}}, **kw)

    def edit(self, path: str, old: str, new: str, **kw: Any) -> bool:
        content = self.files[path]
        inp = {"file_path": f"{CWD}/{path}", "old_string": old, "new_string": new}
        if old not in content:
            self.tool("Edit", inp, "<tool_use_error>String to replace not found in file.\nString: " + old +
                      "</tool_use_error>", error=True, **kw)
            return False
        self.files[path] = content.replace(old, new, 1)
        start = content[: content.index(old)].count("\n") + 1
        snippet = "\n".join(f"{start + i:>6}→{line}" for i, line in enumerate(self.files[path].split("\n")[start - 1:start + 8]))
        self.tool("Edit", inp, f"The file {CWD}/{path} has been updated. Here's the result of running `cat -n` on a "
                  f"snippet of the edited file:\n{snippet}",
                  tool_use_result={"filePath": f"{CWD}/{path}", "oldString": old, "newString": new,
                                   "originalFile": content, "structuredPatch": [], "userModified": False,
                                   "replaceAll": False}, **kw)
        return True

    def write(self, path: str) -> None:
        for rec in self.records:
            rec.pop("_", None)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            for rec in self.records:
                fh.write(_dumps(rec) + "\n")


SUMMARY = """This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:
Analysis:
The user asked me to add a CSV export of a user's links to snip (FastAPI URL shortener at /home/dana/src/snip). I read src/snip/app.py, src/snip/storage.py and tests/test_api.py, looked at the production logs to size the export, delegated a search for existing CSV helpers to a Task subagent (it found none, only the stdlib csv module in use nowhere), and implemented a streaming endpoint. The user rewound once: my first attempt built the whole CSV in memory; they asked for streaming instead, which is what now exists.

Summary:
1. Primary Request and Intent:
   - Add `GET /v1/links/export.csv` returning all links of the calling API key as CSV (columns: code, url, short_url, clicks, created_at ISO 8601 UTC).
   - Must stream (owners can have 40k+ links, e.g. key k_7Qx2); no loading everything into memory.
   - Must be rate-limit friendly: one request per export, no pagination for the client.
   - Excel-compatible: UTF-8 with BOM, CRLF line endings.

2. Key Technical Concepts:
   - FastAPI `StreamingResponse` with an async generator.
   - `RedisStore.list_for(owner, cursor, limit)` pagination (ZRANGE on `snip:owner:<key id>`), 500 links per page.
   - csv.writer over an io.StringIO buffer flushed per row batch.

3. Files and Code Sections:
   - src/snip/app.py
     - Added the `export_links` route before `GET /v1/links/{code}` so "export.csv" is not captured as a code.
     ```python
     @app.get("/v1/links/export.csv")
     async def export_links(key: ApiKey = Depends(require_key)) -> StreamingResponse:
         return StreamingResponse(rows(store, key.key_id, settings.base_url), media_type="text/csv; charset=utf-8",
                                  headers={"Content-Disposition": 'attachment; filename="snip-links.csv"'})
     ```
   - src/snip/export.py (new): `rows()` async generator yielding the BOM, the header row, then one chunk per page.
   - tests/test_export.py (new): header/BOM test, 1,203-link streaming test, owner isolation test.

4. Errors and fixes:
   - `test_export_route_not_shadowed` failed with 404 "no such link": the route was registered after `/v1/links/{code}`. Fixed by moving it above.
   - Edit failed once with "String to replace not found in file" because I used the pre-edit text of app.py; re-read the file and retried.

5. Problem Solving:
   - Verified with the production log sample that the biggest owner (k_7Qx2) has ~40k links, so a 500-link page size gives ~80 Redis round trips per export.

6. All user messages:
   - "Add a CSV export of all my links to the API..."
   - "Go ahead." (then rewound)
   - "Go ahead, but don't build it in memory: k_7Qx2 has 40k links. Stream it."
   - "/compact"

7. Pending Tasks:
   - Run the full test suite and ruff/mypy.
   - Document the endpoint in README.md.

8. Current Work:
   Streaming export implemented and its three tests pass; full suite not yet run after the route move.

9. Optional Next Step:
   Run `pytest -q && ruff check src tests && mypy`, then add the README section.
Please continue the conversation from where we left it off without asking the user any further questions. Continue with the last task that you were asked to work on."""

EXPORT = '''"""CSV export of a key's links, streamed page by page."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator
from datetime import datetime, timezone

from .storage import LinkStore

PAGE = 500


async def rows(store: LinkStore, owner: str, base_url: str) -> AsyncIterator[str]:
    """UTF-8 BOM, a header, then one chunk per page of links (CRLF, as Excel expects)."""
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\\r\\n")
    out.writerow(["code", "url", "short_url", "clicks", "created_at"])
    yield "\\ufeff" + buf.getvalue()
    cursor: int | None = 0
    while cursor is not None:
        links, cursor = await store.list_for(owner, cursor, PAGE)
        buf.seek(0)
        buf.truncate()
        for link in links:
            created = datetime.fromtimestamp(link.created_at, tz=timezone.utc).isoformat()
            out.writerow([link.code, link.url, f"{base_url}/{link.code}", link.clicks, created])
        yield buf.getvalue()
'''


def build() -> ClaudeCodeSession:
    s = ClaudeCodeSession(seed=71, start="2026-11-22T10:03:27.512Z")
    rng = s.rng
    s.files = {"src/snip/app.py": src.APP, "src/snip/storage.py": src.STORAGE, "tests/test_api.py": src.TEST_API,
               "tests/conftest.py": src.CONFTEST, "README.md": src.README,
               "logs/app-2026-11-19.jsonl": app_log(rng, 160, "2026-11-19T02:10:00"),
               "logs/edge-access-2026-11-19.log": access_log(rng, 220, "2026-11-19T02:10:00")}
    s.records.append({"type": "summary", "summary": "CSV export endpoint for snip links",
                      "leafUuid": "PLACEHOLDER"})
    # /model as a local command: caveat (meta) + command + stdout
    s.user("Caveat: The messages below were generated by the user while running local commands. DO NOT respond "
           "to these messages or otherwise consider them in your response unless the user explicitly asks you to.",
           meta=True, pause=(0, 1))
    s.context_chars = 0
    s.user("<command-name>/model</command-name>\n            <command-message>model</command-message>\n"
           "            <command-args></command-args>", pause=(1, 3))
    s.user("<local-command-stdout>Set model to \u001b[1mDefault (Sonnet 4.5 · Smart model for daily use)\u001b[22m"
           "</local-command-stdout>", pause=(0.2, 1))
    s.context_chars = 0
    first = s.user("Add a CSV export of all my links to the API: GET /v1/links/export.csv with code, url, short_url, "
                   "clicks, created_at. It should open cleanly in Excel.", pause=(5, 20))
    s.read("src/snip/app.py", thinking="I need to see the routes and how list_for is used before adding an export.")
    s.read("src/snip/storage.py")
    s.tool("Bash", {"command": "wc -l logs/*.log logs/*.jsonl && grep -c k_7Qx2 logs/edge-access-2026-11-19.log",
                    "description": "Size the logs and count the big key's requests"},
           "   220 logs/edge-access-2026-11-19.log\n   160 logs/app-2026-11-19.jsonl\n   380 total\n131")
    s.tool("Read", {"file_path": f"{CWD}/logs/edge-access-2026-11-19.log"},
           "\n".join(f"{i:>6}→{line}" for i, line in enumerate(s.files["logs/edge-access-2026-11-19.log"].split("\n"), 1)))
    # Task subagent on a sidechain
    task_prompt = ("Search the snip repository for any existing CSV or export helpers (csv module use, "
                   "StreamingResponse, 'export' in names). Report file paths and a one-line description each. "
                   "Do not modify files.")
    _, = s.assistant([{"type": "tool_use", "id": (tid := s.tool_use_id()), "name": "Task",
                       "input": {"description": "Find existing CSV/export helpers", "prompt": task_prompt,
                                 "subagent_type": "Explore"}}], stop="tool_use")
    task_call = s.leaf
    s.side_leaf = None
    side_root = s.add("user", {"message": {"role": "user", "content": task_prompt}}, parent=None, sidechain=True,
                      extra_front={})
    s.side_leaf = side_root["uuid"]
    s.tool("Grep", {"pattern": "import csv|StreamingResponse|export", "path": CWD, "output_mode": "files_with_matches"},
           "No files found", sidechain=True)
    s.tool("Bash", {"command": "git log --oneline -S 'csv' | head", "description": "Search history for csv"},
           "(no output)", sidechain=True)
    s.assistant([{"type": "text", "text": "No CSV or export helpers exist in the repository (no `csv` import, no "
                  "`StreamingResponse`, nothing named export*). Git history has no commit touching csv either."}],
                sidechain=True)
    s.leaf = task_call
    s.context_chars += 300
    s.add("user", {"message": {"role": "user", "content": [{"tool_use_id": tid, "type": "tool_result", "content": [
        {"type": "text", "text": "No CSV or export helpers exist in the repository (no `csv` import, no "
         "`StreamingResponse`, nothing named export*). Git history has no commit touching csv either."}]}]},
        "toolUseResult": {"status": "completed", "prompt": task_prompt, "totalDurationMs": 21873,
                          "totalTokens": 18211, "totalToolUseCount": 2}})
    s.assistant([{"type": "text", "text": "Nothing to reuse in the repo. The endpoint will sit next to the other "
                  "`/v1/links` routes and page through `list_for`. Shall I go ahead?"}])
    # first attempt: in-memory, then the user rewinds to their prompt and sends a different one
    before_attempt = s.leaf
    s.user("Go ahead.", pause=(20, 60))
    s.assistant([{"type": "text", "text": "I'll add the route with `csv.writer` into a `StringIO`, collecting all "
                  "links via `list_for` pages, and return it as a `Response`."}])
    s.edit("src/snip/app.py", "    @app.get(\"/v1/links/{code}\")\n",
           "    @app.get(\"/v1/links/export.csv\")\n    async def export_links(key: ApiKey = Depends(require_key)) -> Response:\n"
           "        buf = io.StringIO()\n        ...\n\n    @app.get(\"/v1/links/{code}\")\n")
    # rewind: the user goes back to before the attempt and asks again (two children of before_attempt)
    s.files["src/snip/app.py"] = src.APP
    s.leaf = before_attempt
    s.user("Go ahead, but don't build it in memory: k_7Qx2 has 40k links. Stream it.", pause=(40, 90))
    s.tool("Write", {"file_path": f"{CWD}/src/snip/export.py", "content": EXPORT},
           f"File created successfully at: {CWD}/src/snip/export.py",
           tool_use_result={"type": "create", "filePath": f"{CWD}/src/snip/export.py", "content": EXPORT,
                            "structuredPatch": []},
           thinking="Stream with an async generator: BOM + header first, then one chunk per 500-link page.")
    s.files["src/snip/export.py"] = EXPORT
    s.edit("src/snip/app.py", "from fastapi.responses import RedirectResponse\n",
           "from fastapi.responses import RedirectResponse, StreamingResponse\n")
    s.edit("src/snip/app.py", "from .config import Settings, get_settings\n",
           "from .config import Settings, get_settings\nfrom .export import rows\n")
    s.edit("src/snip/app.py", "    @app.delete(\"/v1/links/{code}\", status_code=status.HTTP_204_NO_CONTENT)\n",
           "    @app.get(\"/v1/links/export.csv\")\n    async def export_links(key: ApiKey = Depends(require_key)) -> StreamingResponse:\n"
           "        return StreamingResponse(rows(store, key.key_id, settings.base_url),\n"
           "                                 media_type=\"text/csv; charset=utf-8\",\n"
           "                                 headers={\"Content-Disposition\": 'attachment; filename=\"snip-links.csv\"'})\n\n"
           "    @app.delete(\"/v1/links/{code}\", status_code=status.HTTP_204_NO_CONTENT)\n")
    test = ("import csv\nimport io\n\n\ndef test_export_route_not_shadowed(client, auth):\n"
            "    r = client.get(\"/v1/links/export.csv\", headers=auth)\n    assert r.status_code == 200\n"
            "    assert r.text.startswith(\"\\ufeffcode,url,short_url,clicks,created_at\\r\\n\")\n\n\n"
            "def test_export_streams_all_pages(client, auth):\n    for i in range(1203):\n"
            "        client.post(\"/v1/links\", json={\"url\": f\"https://example.org/{i}\"}, headers=auth)\n"
            "    rows = list(csv.reader(io.StringIO(client.get(\"/v1/links/export.csv\", headers=auth).text.lstrip(\"\\ufeff\"))))\n"
            "    assert len(rows) == 1204\n\n\n"
            "def test_export_only_own_links(client, auth, auth_bob):\n"
            "    client.post(\"/v1/links\", json={\"url\": \"https://example.org/a\"}, headers=auth)\n"
            "    rows = client.get(\"/v1/links/export.csv\", headers=auth_bob).text.strip().splitlines()\n    assert len(rows) == 1\n")
    s.tool("Write", {"file_path": f"{CWD}/tests/test_export.py", "content": test},
           f"File created successfully at: {CWD}/tests/test_export.py")
    s.tool("Bash", {"command": "pytest -q tests/test_export.py 2>&1 | tail -15", "description": "Run export tests"},
           "F..\n=================================== FAILURES ===================================\n"
           "________________________ test_export_route_not_shadowed ________________________\n"
           "    def test_export_route_not_shadowed(client, auth):\n        r = client.get(\"/v1/links/export.csv\", headers=auth)\n"
           ">       assert r.status_code == 200\nE       assert 404 == 200\nE        +  where 404 = <Response [404 Not Found]>.status_code\n\n"
           "tests/test_export.py:7: AssertionError\n=========================== short test summary info ============================\n"
           "FAILED tests/test_export.py::test_export_route_not_shadowed - assert 404 == 200\n1 failed, 2 passed in 1.88s",
           error=True)
    s.edit("src/snip/app.py", "    @app.get(\"/v1/links/export.csv\")\n    async def export_links(key: ApiKey = Depends(require_key)) -> Response:\n",
           "", text="`/v1/links/{code}` is registered first and captures \"export.csv\". Moving the route above it.")
    s.read("src/snip/app.py")
    block_start = s.files["src/snip/app.py"].index("    @app.get(\"/v1/links/export.csv\")")
    block_end = s.files["src/snip/app.py"].index("    @app.delete(")
    block = s.files["src/snip/app.py"][block_start:block_end]
    s.edit("src/snip/app.py", block, "")
    s.edit("src/snip/app.py", "    @app.get(\"/v1/links/{code}\")\n", block + "    @app.get(\"/v1/links/{code}\")\n")
    s.tool("Bash", {"command": "pytest -q tests/test_export.py 2>&1 | tail -2", "description": "Re-run export tests"},
           "...\n3 passed in 2.04s")
    s.tool("Read", {"file_path": f"{CWD}/logs/app-2026-11-19.jsonl"},
           "\n".join(f"{i:>6}→{line}" for i, line in enumerate(s.files["logs/app-2026-11-19.jsonl"].split("\n"), 1)),
           thinking="Check how long list pages take in production to estimate export duration for 40k links.")
    # manual compaction
    s.user("Caveat: The messages below were generated by the user while running local commands. DO NOT respond "
           "to these messages or otherwise consider them in your response unless the user explicitly asks you to.",
           meta=True, pause=(60, 200))
    s.user("<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n"
           "            <command-args></command-args>", pause=(0.5, 2))
    pre_tokens = s.cached + 900
    before = s.leaf
    boundary = s.add("system", {"subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": False,
                                "level": "info", "compactMetadata": {"trigger": "manual", "preTokens": pre_tokens}},
                     parent=None, extra_front={"logicalParentUuid": before}, pause=(25, 60))
    s.context_chars = len(SUMMARY)
    s.cached = 0
    s.add("user", {"message": {"role": "user", "content": SUMMARY}, "isVisibleInTranscriptOnly": True,
                   "isCompactSummary": True}, pause=(0.01, 0.2))
    s.user("<local-command-stdout>\u001b[2mCompacted (ctrl+o to see full summary)\u001b[22m</local-command-stdout>",
           pause=(0.1, 0.5))
    s.user("Carry on.", pause=(10, 40))
    s.tool("Bash", {"command": "pytest -q 2>&1 | tail -2 && ruff check src tests && mypy",
                    "description": "Full suite, lint and types"},
           "...........\n11 passed in 2.31s\nsrc/snip/app.py:1:1: I001 [*] Import block is un-sorted or un-formatted\nFound 1 error.\n"
           "[*] 1 fixable with the `--fix` option.", error=True)
    s.tool("Bash", {"command": "ruff check --fix src tests && mypy", "description": "Fix lint, run mypy"},
           "Found 1 error (1 fixed, 0 remaining).\nSuccess: no issues found in 8 source files")
    s.edit("README.md", "| GET | `/healthz` | liveness |\n",
           "| GET | `/v1/links/export.csv` | all your links as CSV (UTF-8 BOM, CRLF), streamed |\n"
           "| GET | `/healthz` | liveness |\n")
    s.assistant([{"type": "text", "text": "Done. `GET /v1/links/export.csv` streams all of the caller's links "
                  "(BOM + header, then 500-link pages), registered before `/v1/links/{code}`; 3 new tests, the "
                  "full suite, ruff and mypy pass; README's API table lists the endpoint."}])
    # the summary record at the top points at the final leaf, as Claude Code writes it on resume
    s.records[0]["leafUuid"] = s.leaf
    del boundary, first
    return s
