"""Checks on the sample sessions in sample_sessions/: well-formed, internally consistent, and each showing the case it exists for.

The token rule here is pi's chars/4 estimate written out again on purpose (not imported
from the generator or from core), so a drift in either shows up as a failure.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.support.paths import SAMPLES

PI_FILES = [
    "pi-coding-session.jsonl",
    "pi-job-search.jsonl",
    "pi-displaced-last-exchange.jsonl",
    "pi-one-compaction.jsonl",
    "pi-two-compactions.jsonl",
    "pi-branched.jsonl",
    "pi-v1-legacy.jsonl",
    "pi-v2-hookmessage.jsonl",
]
ALL_FILES = [*PI_FILES, "claude-code-compacted.jsonl", "codex-rollout-compacted.jsonl"]


def load(name: str) -> list[dict]:
    return [json.loads(line) for line in (SAMPLES / name).read_text(encoding="utf-8").split("\n") if line]


def js_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def chars4(msg: dict) -> int:
    """pi's estimateTokens: ceil(chars / 4) by role."""
    role, content, chars = msg.get("role"), msg.get("content"), 0
    if role == "user":
        chars = (
            js_len(content)
            if isinstance(content, str)
            else sum(js_len(b.get("text", "")) for b in content if b["type"] == "text")
        )
    elif role == "assistant":
        for b in content:
            if b["type"] == "text":
                chars += js_len(b["text"])
            elif b["type"] == "thinking":
                chars += js_len(b["thinking"])
            elif b["type"] == "toolCall":
                chars += js_len(b["name"]) + js_len(
                    json.dumps(b["arguments"], ensure_ascii=False, separators=(",", ":"))
                )
    elif role in ("toolResult", "custom", "hookMessage"):
        if isinstance(content, str):
            chars = js_len(content)
        else:
            for b in content:
                chars += js_len(b.get("text", "")) if b["type"] == "text" else 4800 if b["type"] == "image" else 0
    elif role == "bashExecution":
        chars = js_len(msg["command"]) + js_len(msg["output"])
    return math.ceil(chars / 4)


def active_path(entries: list[dict]) -> list[dict]:
    by_id = {e["id"]: e for e in entries}
    path, cur = [], entries[-1]
    while cur is not None:
        path.append(cur)
        cur = by_id.get(cur["parentId"]) if cur["parentId"] else None
    return path[::-1]


def cut_index(path: list[dict], keep: int) -> int:
    """pi's findCutPoint (no previous compaction): index of the first kept entry."""
    ok_roles = {"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"}
    cuts = [
        i
        for i, e in enumerate(path)
        if (e["type"] == "message" and e["message"]["role"] in ok_roles)
        or e["type"] in ("branch_summary", "custom_message")
    ]
    acc, cut = 0, cuts[0]
    for i in range(len(path) - 1, -1, -1):
        if path[i]["type"] != "message":
            continue
        acc += chars4(path[i]["message"])
        if acc >= keep:
            cut = next((c for c in cuts if c >= i), cut)
            break
    while cut > 0 and path[cut - 1]["type"] not in ("message", "compaction"):
        cut -= 1
    return cut


def js_stringify(obj: object) -> str:
    """JSON.stringify: compact, non-ASCII kept, numbers as JavaScript prints them (0, 0.000009, 3e-7)."""
    if isinstance(obj, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + js_stringify(v) for k, v in obj.items()) + "}"
    if isinstance(obj, list):
        return "[" + ",".join(js_stringify(v) for v in obj) + "]"
    if isinstance(obj, float):
        if obj.is_integer():
            return str(int(obj))
        digits, _, exp = repr(obj).partition("e")
        if not exp:
            return digits
        if abs(obj) < 1e-6:
            return f"{digits}e{int(exp)}"
        return f"{obj:.{len(digits.replace('.', '').lstrip('-0')) - int(exp) - 1}f}"
    return json.dumps(obj, ensure_ascii=False)


@pytest.mark.parametrize("name", ALL_FILES)
def test_file_is_compact_jsonl(name: str) -> None:
    """One compact JSON object per line, written as the agent writes it (Node for pi and Claude Code, Rust for Codex)."""
    raw = (SAMPLES / name).read_bytes()
    assert raw.endswith(b"\n") and b"\r" not in raw
    for line in raw.decode("utf-8").split("\n")[:-1]:
        obj = json.loads(line)
        assert isinstance(obj, dict)
        if name.startswith("codex"):
            assert line == json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
        else:
            assert line == js_stringify(obj)


def test_js_stringify_matches_node_number_format() -> None:
    assert (
        js_stringify({"a": [0.0, 9e-06, 3e-07, 0.000372, 12.0, 1.234e-05]})
        == '{"a":[0,0.000009,3e-7,0.000372,12,0.00001234]}'
    )  # node: String(9e-6) === "0.000009"


@pytest.mark.parametrize("name", [n for n in PI_FILES if n != "pi-v1-legacy.jsonl"])
def test_pi_tree_is_consistent(name: str) -> None:
    lines = load(name)
    assert lines[0]["type"] == "session" and isinstance(lines[0]["id"], str)
    entries = lines[1:]
    ids = [e["id"] for e in entries]
    assert len(ids) == len(set(ids))
    assert all(len(i) == 8 and int(i, 16) >= 0 for i in ids)
    known: set[str] = set()
    for e in entries:
        assert e["parentId"] is None or e["parentId"] in known, e["id"]
        known.add(e["id"])
        if e["type"] == "compaction":
            assert e["firstKeptEntryId"] in known


@pytest.mark.parametrize("name", PI_FILES)
def test_pi_tool_results_follow_their_calls(name: str) -> None:
    calls: dict[str, str] = {}
    for e in load(name)[1:]:
        if e["type"] != "message":
            continue
        m = e["message"]
        if m["role"] == "assistant":
            for b in m["content"]:
                if b["type"] == "toolCall":
                    calls[b["id"]] = b["name"]
        elif m["role"] == "toolResult":
            assert calls.pop(m["toolCallId"]) == m["toolName"]
    assert not calls, f"tool calls without a result: {sorted(calls)}"


@pytest.mark.parametrize("name", PI_FILES)
def test_pi_turns_are_well_formed(name: str) -> None:
    """Tool results come right after their call, in call order; every session ends on a final answer."""
    msgs = [e["message"] for e in load(name)[1:] if e["type"] == "message"]
    for i, m in enumerate(msgs):
        if m["role"] == "assistant" and m["stopReason"] == "toolUse":
            ids = [b["id"] for b in m["content"] if b["type"] == "toolCall"]
            following = [x.get("toolCallId") for x in msgs[i + 1 : i + 1 + len(ids)]]
            assert following == ids, f"message {i}"
    assert msgs[-1]["role"] == "assistant" and msgs[-1]["stopReason"] == "stop"


@pytest.mark.parametrize("name", PI_FILES)
def test_pi_assistant_messages_carry_usage(name: str) -> None:
    for e in load(name)[1:]:
        if e["type"] == "message" and e["message"]["role"] == "assistant":
            m = e["message"]
            u = m["usage"]
            assert u["totalTokens"] == u["input"] + u["output"] + u["cacheRead"] + u["cacheWrite"]
            assert set(u["cost"]) == {"input", "output", "cacheRead", "cacheWrite", "total"}
            assert m["provider"] == "anthropic" and m["model"] == "claude-sonnet-4-5"
            assert m["stopReason"] in ("toolUse", "stop")
            assert (m["stopReason"] == "toolUse") == any(b["type"] == "toolCall" for b in m["content"])


def test_coding_session_is_big_and_varied() -> None:
    lines = load("pi-coding-session.jsonl")
    msgs = [e["message"] for e in lines[1:] if e["type"] == "message"]
    assert sum(chars4(m) for m in msgs) > 200_000
    images = [b for m in msgs if isinstance(m["content"], list) for b in m["content"] if b.get("type") == "image"]
    assert len(images) == 1 and images[0]["mimeType"] == "image/png"
    errors = [m for m in msgs if m["role"] == "toolResult" and m["isError"]]
    assert len(errors) >= 4
    assert any(b["type"] == "thinking" for m in msgs if m["role"] == "assistant" for b in m["content"])
    types = Counter(e["type"] for e in lines[1:])
    assert types["model_change"] >= 1 and types["thinking_level_change"] >= 1
    assert {b["name"] for m in msgs if m["role"] == "assistant" for b in m["content"] if b["type"] == "toolCall"} >= {
        "read",
        "write",
        "edit",
        "bash",
    }


def test_coding_session_usage_tracks_the_context() -> None:
    """input + cacheRead + cacheWrite is about 1.3x the chars/4 of everything before each assistant message."""
    before, ratios, prompts = 0, [], []
    for e in load("pi-coding-session.jsonl")[1:]:
        if e["type"] != "message":
            continue
        m = e["message"]
        if m["role"] == "assistant":
            u = m["usage"]
            prompt = u["input"] + u["cacheRead"] + u["cacheWrite"]
            prompts.append(prompt)
            if before > 2000:
                ratios.append(prompt / before)
        before += chars4(m)
    assert all(1.2 <= r <= 1.4 for r in ratios)
    assert prompts[-1] > prompts[0] and prompts == sorted(prompts)


def test_displaced_exchange_falls_into_the_summarized_part() -> None:
    path = active_path(load("pi-displaced-last-exchange.jsonl")[1:])

    def is_report(e: dict) -> bool:
        return e["message"]["content"][0]["text"].startswith("[subagent report]")

    users = [i for i, e in enumerate(path) if e["type"] == "message" and e["message"]["role"] == "user"]
    last_real = max(i for i in users if not is_report(path[i]))
    reports = [i for i in users if is_report(path[i])]
    assert len(reports) >= 4 and sum(chars4(path[i]["message"]) for i in reports) > 20_000
    cut = cut_index(path, 20_000)
    assert cut > last_real
    assert cut == reports[0]  # the reports fill the kept window exactly: the cut lands on the first one
    assert any(path[i]["message"]["role"] == "assistant" for i in range(last_real + 1, cut))
    assert cut_index(path, 50_000) <= last_real


def test_job_search_criteria_are_summarized_at_20k() -> None:
    path = active_path(load("pi-job-search.jsonl")[1:])
    first = next(e for e in path if e["type"] == "message" and e["message"]["role"] == "user")
    assert first["message"]["content"][0]["text"] == "Execute the job search prompt from search-prompt.txt"
    criteria = next(
        i
        for i, e in enumerate(path)
        if e["type"] == "message"
        and e["message"]["role"] == "toolResult"
        and "Scoring rubric" in e["message"]["content"][0]["text"]
    )
    next_user = next(
        i for i, e in enumerate(path) if i > criteria and e["type"] == "message" and e["message"]["role"] == "user"
    )
    assert cut_index(path, 20_000) > next_user
    big = [
        e
        for e in path
        if e["type"] == "message"
        and e["message"]["role"] == "toolResult"
        and e["message"]["toolName"] in ("linkedin_job_detail", "gmail_read")
    ]
    assert len(big) >= 8 and all(len(e["message"]["content"][0]["text"]) >= 8000 for e in big)
    assert any(
        e["type"] == "message"
        and e["message"]["role"] == "assistant"
        and any(
            b["type"] == "toolCall" and b["name"] == "write" and b["arguments"]["path"].startswith("todays-jobs-")
            for b in e["message"]["content"]
        )
        for e in path[-4:]
    )


def test_compaction_samples() -> None:
    one = [e for e in load("pi-one-compaction.jsonl")[1:] if e["type"] == "compaction"]
    assert len(one) == 1
    summary = one[0]["summary"]
    for heading in (
        "## Goal",
        "## Constraints & Preferences",
        "## Progress",
        "### Done",
        "### In Progress",
        "### Blocked",
        "## Key Decisions",
        "## Next Steps",
        "## Critical Context",
        "<read-files>",
        "<modified-files>",
    ):
        assert heading in summary
    assert one[0]["details"]["modifiedFiles"] and one[0]["tokensBefore"] > 0
    first, second = [e for e in load("pi-two-compactions.jsonl")[1:] if e["type"] == "compaction"]
    for fact in ("snip:clicks:pending", "at or below 1 second"):
        assert fact in first["summary"] and fact not in second["summary"]
    assert "## Goal" in second["summary"] and second["firstKeptEntryId"] != first["firstKeptEntryId"]


def test_branched_session() -> None:
    entries = load("pi-branched.jsonl")[1:]
    children = Counter(e["parentId"] for e in entries)
    assert max(children.values()) >= 3
    path = active_path(entries)
    types = {e["type"] for e in path}
    assert {"branch_summary", "label", "session_info", "custom"} <= types
    summary = next(e for e in path if e["type"] == "branch_summary")
    assert summary["fromId"] == summary["parentId"]
    assert len(path) < len(entries)


def test_v1_legacy_session() -> None:
    lines = load("pi-v1-legacy.jsonl")
    assert "version" not in lines[0]
    assert all("id" not in e and "parentId" not in e for e in lines[1:])
    comp = next(e for e in lines if e["type"] == "compaction")
    target = lines[comp["firstKeptEntryIndex"]]
    assert target["type"] == "message" and target["message"]["role"] in ("user", "assistant")
    assert lines.index(comp) > comp["firstKeptEntryIndex"]


def test_v2_hook_message() -> None:
    lines = load("pi-v2-hookmessage.jsonl")
    assert lines[0]["version"] == 2
    hooks = [e["message"] for e in lines[1:] if e["type"] == "message" and e["message"]["role"] == "hookMessage"]
    assert hooks and all({"customType", "content", "display", "timestamp"} <= set(h) for h in hooks)
    assert {h["display"] for h in hooks} == {True, False}
    bash = [e["message"] for e in lines[1:] if e["type"] == "message" and e["message"]["role"] == "bashExecution"]
    assert len(bash) == 1 and bash[0]["exitCode"] == 0 and bash[0]["command"] == "git diff --stat"


def test_claude_code_transcript() -> None:
    recs = load("claude-code-compacted.jsonl")
    conv = [r for r in recs if "uuid" in r]
    uuids = [r["uuid"] for r in conv]
    assert len(uuids) == len(set(uuids))
    known = set(uuids)
    assert all(r["parentUuid"] is None or r["parentUuid"] in known for r in conv)
    boundary = next(r for r in conv if r.get("subtype") == "compact_boundary")
    assert boundary["parentUuid"] is None and boundary["logicalParentUuid"] in known
    assert boundary["compactMetadata"]["preTokens"] > 0
    after = conv[conv.index(boundary) + 1]
    assert after["isCompactSummary"] is True and after["parentUuid"] == boundary["uuid"]
    assert any(r["isSidechain"] for r in conv) and any(r.get("isMeta") for r in conv)
    users = Counter(
        r["parentUuid"]
        for r in conv
        if r["type"] == "user" and not r["isSidechain"] and isinstance(r["message"]["content"], str)
    )
    assert max(users.values()) >= 2  # a rewind: two prompts answering the same parent
    uses = {
        b["id"] for r in conv if r["type"] == "assistant" for b in r["message"]["content"] if b["type"] == "tool_use"
    }
    results = [
        b["tool_use_id"]
        for r in conv
        if r["type"] == "user" and isinstance(r["message"]["content"], list)
        for b in r["message"]["content"]
        if b.get("type") == "tool_result"
    ]
    assert results and set(results) <= uses
    assert any(r["message"]["usage"]["cache_read_input_tokens"] > 0 for r in conv if r["type"] == "assistant")


def test_codex_rollout() -> None:
    lines = load("codex-rollout-compacted.jsonl")
    assert lines[0]["type"] == "session_meta" and lines[0]["payload"]["cwd"]
    kinds = Counter(line["payload"].get("type") for line in lines if line["type"] in ("response_item", "event_msg"))
    for kind in (
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "user_message",
        "agent_message",
        "token_count",
    ):
        assert kinds[kind] > 0, kind
    calls = set()
    for line in lines:
        p = line["payload"]
        if line["type"] == "response_item" and p["type"] in ("function_call", "custom_tool_call"):
            calls.add(p["call_id"])
        if line["type"] == "response_item" and p["type"] in ("function_call_output", "custom_tool_call_output"):
            assert p["call_id"] in calls
            json.loads(p["output"])
    roles = {
        line["payload"]["role"]
        for line in lines
        if line["type"] == "response_item" and line["payload"]["type"] == "message"
    }
    assert roles == {"developer", "user", "assistant"}
    compacted = [line for line in lines if line["type"] == "compacted"]
    assert len(compacted) == 1
    payload = compacted[0]["payload"]
    assert payload["message"] and payload["replacement_history"][-1]["content"][0]["text"].endswith(payload["message"])
    counts = [
        line["payload"]["info"]["total_token_usage"]["total_tokens"]
        for line in lines
        if line["type"] == "event_msg" and line["payload"]["type"] == "token_count"
    ]
    assert counts == sorted(counts)


def test_generator_reproduces_the_committed_files(tmp_path: Path) -> None:
    """generate.py is deterministic and the committed samples are its current output."""
    subprocess.run([sys.executable, str(SAMPLES / "generate.py"), str(tmp_path)], check=True, timeout=120)
    for name in ALL_FILES:
        assert (tmp_path / name).read_bytes() == (SAMPLES / name).read_bytes(), name
