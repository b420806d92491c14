"""Claude Code and Codex sessions of any size, grown from sessions the real programs wrote (bench/grow_sessions.py, the work-count tests).

The corpus (tests/fixtures/corpus) holds sessions written by Claude Code 2.1.331 and
Codex 0.169.0 themselves. A grown session keeps the file's opening records, then repeats
its real turns (from the first user prompt to the first compaction: tool calls, results,
attachments, usage records) until it has the records asked for: one long stretch with no
compaction, as a session with auto-compaction off or a 1M-token window grows. Every id a
turn defines (uuids, message, tool-call and turn ids) is made new in each repeat, a
repeat's first record hangs under the previous repeat's last one (Claude Code's
`parentUuid` chain) and Codex's `ordinal` counts on. Deterministic.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "corpus"
SOURCES = {
    "claude-code": CORPUS / "claude-code" / "main" / "session.jsonl",
    "codex": CORPUS / "codex" / "main" / "rollout.jsonl",
}
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# a message / call id as a JSON string value: not a key (`"call_id":`, which the pattern would read as an id and
# rename, leaving every grown Codex call and output without its `call_id`)
_TOKEN_ID = re.compile(r'"((?:msg|rs|call|fc|toolu|req|srvtoolu)_[A-Za-z0-9_-]+)"(?!\s*:)')
_ORDINAL = re.compile(r'^(\{"timestamp":"[^"]*","ordinal":)\d+')


def _block(lines: list[str], agent: str) -> tuple[int, int]:
    """[start, stop) of the real turns to repeat: the first user prompt up to the first compaction."""
    start = stop = None
    for i, line in enumerate(lines):
        record = json.loads(line)
        if agent == "claude-code":
            prompt = record.get("type") == "user" and isinstance(record.get("message", {}).get("content"), str)
            compaction = record.get("subtype") == "compact_boundary"
        else:
            payload = record.get("payload") or {}
            prompt = record.get("type") == "response_item" and payload.get("role") == "user"
            prompt = prompt and "environment_context" not in line
            compaction = record.get("type") == "compacted"
        if start is None and prompt:
            start = i
        if start is not None and compaction:
            stop = i
            break
    if start is None or stop is None:
        raise SystemExit(f"no turns before a compaction in the {agent} session")
    return start, stop


def _new_uuid(old: str, k: int) -> str:
    digest = hashlib.sha256(f"{old}/{k}".encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-a{digest[17:20]}-{digest[20:32]}"


def _renamed(line: str, k: int, defined: set[str]) -> str:
    """A block line in repeat k: each uuid the block defines and each message / call id made new."""
    line = _UUID.sub(lambda m: _new_uuid(m.group(0), k) if m.group(0) in defined else m.group(0), line)
    return _TOKEN_ID.sub(lambda m: f'"{m.group(1)}_r{k}"', line)


def grow(agent: str, records: int, out: Path) -> Path:
    """Write a session of `records` records grown from the corpus session of `agent`."""
    lines = SOURCES[agent].read_text(encoding="utf-8").splitlines()
    start, stop = _block(lines, agent)
    block = lines[start:stop]
    session_ids = {m for line in lines[:start] for m in _UUID.findall(line) if '"sessionId":"' + m in line}
    session_ids |= {json.loads(lines[0]).get("payload", {}).get("id", "")} if agent == "codex" else set()
    defined = {u for line in block for u in _UUID.findall(line)} - session_ids
    uuids = [json.loads(line).get("uuid") for line in block]
    last = next((u for u in reversed(uuids) if u), None)
    written = [*lines[:start]]
    k = 0
    while len(written) < records:
        for j, line in enumerate(block):
            if len(written) >= records:
                break
            if k:
                line = _renamed(line, k, defined)
                if j == 0 and agent == "claude-code" and last is not None:
                    record = json.loads(line)
                    record["parentUuid"] = _new_uuid(last, k - 1) if k > 1 else last
                    line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
            if agent == "codex":
                line = _ORDINAL.sub(lambda m: f"{m.group(1)}{len(written)}", line)
            written.append(line)
        k += 1
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text("\n".join(written) + "\n", encoding="utf-8")
    tmp.replace(out)
    return out
