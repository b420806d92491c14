"""A builder that writes pi session files the way pi's SessionManager would.

It keeps the entry tree, a clock, and a model of what the provider would report as
usage, so every assistant message carries plausible token numbers: the prompt side
(input + cacheRead + cacheWrite) is the chars/4 estimate of the context before it
times a per-session factor of about 1.3, because real Claude tokenization counts more
than chars/4.
"""

from __future__ import annotations

import json
import math
import random
import re
import uuid
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

# claude-sonnet-4-5 list prices, dollars per million tokens
PRICES = {"input": 3.0, "output": 15.0, "cacheRead": 0.30, "cacheWrite": 3.75}


_NUM = "\u0000num:"


def js_number(x: float) -> str:
    """A float as JavaScript's Number#toString writes it (0 not 0.0, 0.000009 not 9e-06, 3e-7 not 3e-07)."""
    if x == int(x) and abs(x) < 1e21:
        return str(int(x))
    text = repr(x)
    if "e" not in text:
        return text
    mantissa, exp = text.split("e")
    if abs(x) >= 1e-6:
        return format(Decimal(text), "f")
    return f"{mantissa}e{int(exp)}"


def _mark_floats(obj: Any) -> Any:
    if isinstance(obj, float):
        return _NUM + js_number(obj)
    if isinstance(obj, dict):
        return {k: _mark_floats(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_mark_floats(v) for v in obj]
    return obj


def dumps(obj: Any) -> str:
    """Serialize like JavaScript's JSON.stringify (compact, non-ASCII kept, JS number formatting)."""
    text = json.dumps(_mark_floats(obj), ensure_ascii=False, separators=(",", ":"))
    return re.sub(r'"\\u0000num:([^"]*)"', r"\1", text)


def js_len(text: str) -> int:
    """Length in UTF-16 code units, as JavaScript's String.length counts."""
    return len(text.encode("utf-16-le")) // 2


def estimate_tokens(msg: dict) -> int:
    """pi's estimateTokens (chars/4, rounded up) for one agent message."""
    role = msg.get("role")
    chars = 0
    content = msg.get("content")
    if role == "user":
        if isinstance(content, str):
            chars = js_len(content)
        else:
            chars = sum(js_len(b.get("text") or "") for b in content if b.get("type") == "text")
    elif role == "assistant":
        for b in content:
            if b["type"] == "text":
                chars += js_len(b["text"])
            elif b["type"] == "thinking":
                chars += js_len(b["thinking"])
            elif b["type"] == "toolCall":
                chars += js_len(b["name"]) + js_len(dumps(b["arguments"]))
    elif role in ("custom", "toolResult", "hookMessage"):
        if isinstance(content, str):
            chars = js_len(content)
        else:
            for b in content:
                if b.get("type") == "text" and b.get("text"):
                    chars += js_len(b["text"])
                if b.get("type") == "image":
                    chars += 4800
    elif role == "bashExecution":
        chars = js_len(msg["command"]) + js_len(msg["output"])
    elif role in ("branchSummary", "compactionSummary"):
        chars = js_len(msg["summary"])
    return math.ceil(chars / 4)


class Clock:
    """A fixed-start clock advanced by seeded random steps."""

    def __init__(self, start: str, rng: random.Random) -> None:
        self.t = datetime.fromisoformat(start.replace("Z", "+00:00")).astimezone(timezone.utc)
        self.rng = rng

    def tick(self, lo: float = 0.2, hi: float = 2.0) -> None:
        self.t += timedelta(milliseconds=self.rng.randint(int(lo * 1000), int(hi * 1000)))

    def iso(self) -> str:
        return self.t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.t.microsecond // 1000:03d}Z"

    def ms(self) -> int:
        return int(self.t.timestamp() * 1000)


_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


class PiSession:
    """Accumulates a pi session (header + entry tree) and writes it as JSONL."""

    def __init__(
        self,
        *,
        seed: int,
        start: str,
        cwd: str,
        version: int | None = 3,
        model: str = "claude-sonnet-4-5",
        provider: str = "anthropic",
        api: str = "anthropic-messages",
        ratio: float | None = None,
    ) -> None:
        self.rng = random.Random(seed)
        self.clock = Clock(start, self.rng)
        self.version = version
        self.model = model
        self.provider = provider
        self.api = api
        self.ratio = ratio if ratio is not None else self.rng.uniform(1.27, 1.33)
        self.session_id = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        self.header: dict[str, Any] = {"type": "session"}
        if version is not None:
            self.header["version"] = version
        self.header.update({"id": self.session_id, "timestamp": self.clock.iso(), "cwd": cwd})
        self.entries: list[dict] = []
        self.by_id: dict[str, dict] = {}
        self.leaf: str | None = None
        self.cached_prefix = 0
        self.open_calls: dict[str, str] = {}
        # how much denser than chars/4 the provider's tokenizer counts each message (code and logs differ)
        self.density: dict[int, float] = {}

    # ------------------------------------------------------------------ ids
    def new_id(self) -> str:
        while True:
            candidate = f"{self.rng.getrandbits(32):08x}"
            if candidate not in self.by_id:
                return candidate

    def tool_call_id(self) -> str:
        return "toolu_01" + "".join(self.rng.choice(_B62) for _ in range(22))

    def response_id(self) -> str:
        return "msg_01" + "".join(self.rng.choice(_B62) for _ in range(22))

    def signature(self, n: int = 340) -> str:
        alphabet = _B62 + "+/"
        body = "".join(self.rng.choice(alphabet) for _ in range(n))
        return "Eq" + body + "=="

    # --------------------------------------------------------------- entries
    def append(self, type_: str, fields: dict, *, parent: str | None | bool = True, before_id: bool = False) -> dict:
        """Add an entry as a child of the leaf (or of `parent`) and move the leaf to it."""
        parent_id = self.leaf if parent is True else parent
        entry: dict[str, Any] = {"type": type_}
        base = {"id": self.new_id(), "parentId": parent_id, "timestamp": self.clock.iso()}
        if before_id:
            entry.update(fields)
            entry.update(base)
        else:
            entry.update(base)
            entry.update(fields)
        self.entries.append(entry)
        self.by_id[entry["id"]] = entry
        self.leaf = entry["id"]
        return entry

    def branch(self, entry_id: str | None) -> None:
        """Move the leaf back to an earlier entry, as pi's /tree navigation does."""
        self.leaf = entry_id
        self.cached_prefix = 0

    def model_change(self, provider: str, model_id: str) -> dict:
        self.clock.tick(1, 4)
        self.model, self.provider = model_id, provider
        self.cached_prefix = 0
        return self.append("model_change", {"provider": provider, "modelId": model_id})

    def thinking_level(self, level: str) -> dict:
        self.clock.tick(1, 4)
        return self.append("thinking_level_change", {"thinkingLevel": level})

    def session_info(self, name: str) -> dict:
        self.clock.tick(1, 3)
        return self.append("session_info", {"name": name})

    def label(self, target_id: str, label: str) -> dict:
        self.clock.tick(1, 3)
        return self.append("label", {"targetId": target_id, "label": label})

    def custom(self, custom_type: str, data: Any) -> dict:
        self.clock.tick(0.05, 0.3)
        return self.append("custom", {"customType": custom_type, "data": data}, before_id=True)

    def custom_message(self, custom_type: str, content: Any, display: bool = True, details: Any = None) -> dict:
        self.clock.tick(0.1, 1)
        fields: dict[str, Any] = {"customType": custom_type, "content": content, "display": display}
        if details is not None:
            fields["details"] = details
        return self.append("custom_message", fields, before_id=True)

    def branch_summary(self, from_id: str, summary: str, details: Any = None) -> dict:
        """Go back to `from_id` and attach a summary of the abandoned branch there."""
        self.branch(from_id)
        self.clock.tick(8, 25)
        fields: dict[str, Any] = {"fromId": from_id, "summary": summary}
        if details is not None:
            fields["details"] = details
        return self.append("branch_summary", fields)

    # -------------------------------------------------------------- messages
    def message(self, msg: dict) -> dict:
        self.density[id(msg)] = self.ratio + self.rng.uniform(-0.05, 0.05)
        return self.append("message", {"message": msg})

    def user(self, text: str, *, images: list[dict] | None = None, pause: tuple[float, float] = (20, 140)) -> dict:
        self.clock.tick(*pause)
        if pause[0] >= 300:
            self.cached_prefix = 0  # the prompt cache expires after five idle minutes
        content: list[dict] = [{"type": "text", "text": text}]
        content.extend(images or [])
        return self.message({"role": "user", "content": content, "timestamp": self.clock.ms()})

    def bash_execution(self, command: str, output: str, exit_code: int = 0) -> dict:
        """A command the user ran with `!` in pi's editor; its output joins the context as a user turn."""
        self.clock.tick(20, 90)
        msg = {"role": "bashExecution", "command": command, "output": output, "exitCode": exit_code,
               "cancelled": False, "truncated": False, "timestamp": self.clock.ms()}
        self.clock.tick(0.2, 2)
        return self.message(msg)

    def hook_message(self, custom_type: str, content: Any, display: bool = True) -> dict:
        self.clock.tick(0.1, 1)
        msg = {"role": "hookMessage", "customType": custom_type, "content": content, "display": display,
               "timestamp": self.clock.ms()}
        return self.message(msg)

    def assistant(
        self,
        *,
        text: str | None = None,
        thinking: str | None = None,
        calls: list[tuple[str, dict]] | None = None,
        stop: str | None = None,
        error: str | None = None,
    ) -> tuple[dict, list[str]]:
        """Add an assistant message; returns the entry and the ids of its tool calls."""
        self.clock.tick(0.8, 3)
        started = self.clock.ms()
        content: list[dict] = []
        if thinking:
            content.append({"type": "thinking", "thinking": thinking, "thinkingSignature": self.signature()})
        if text:
            content.append({"type": "text", "text": text})
        ids: list[str] = []
        for name, args in calls or []:
            call_id = self.tool_call_id()
            ids.append(call_id)
            self.open_calls[call_id] = name
            content.append({"type": "toolCall", "id": call_id, "name": name, "arguments": args})
        stop_reason = stop or ("toolUse" if calls else "stop")
        msg: dict[str, Any] = {
            "role": "assistant",
            "content": content,
            "api": self.api,
            "provider": self.provider,
            "model": self.model,
            "responseId": self.response_id(),
        }
        msg["usage"] = self._usage(msg)
        msg["stopReason"] = stop_reason
        if error:
            msg["errorMessage"] = error
        msg["timestamp"] = started
        out_tokens = msg["usage"]["output"]
        self.clock.t += timedelta(milliseconds=int(out_tokens * self.rng.uniform(9, 16)) + 400)
        return self.message(msg), ids

    def tool_result(self, call_id: str, text: str, *, is_error: bool = False, details: Any = None,
                    image: dict | None = None, took: tuple[float, float] = (0.05, 1.5)) -> dict:
        self.clock.tick(*took)
        name = self.open_calls.pop(call_id)
        content: list[dict] = [{"type": "text", "text": text}]
        if image:
            content.append(image)
        msg: dict[str, Any] = {"role": "toolResult", "toolCallId": call_id, "toolName": name, "content": content}
        if details is not None:
            msg["details"] = details
        msg["isError"] = is_error
        msg["timestamp"] = self.clock.ms()
        return self.message(msg)

    def step(self, name: str, args: dict, result: str, *, error: bool = False, text: str | None = None,
             thinking: str | None = None, details: Any = None, image: dict | None = None,
             took: tuple[float, float] = (0.05, 1.5)) -> dict:
        """One assistant turn with a single tool call, followed by its result."""
        _, ids = self.assistant(text=text, thinking=thinking, calls=[(name, args)])
        return self.tool_result(ids[0], result, is_error=error, details=details, image=image, took=took)

    def steps(self, calls: list[tuple[str, dict, str, bool]], *, text: str | None = None,
              thinking: str | None = None) -> None:
        """One assistant turn with parallel tool calls, followed by their results in order."""
        _, ids = self.assistant(text=text, thinking=thinking, calls=[(n, a) for n, a, _, _ in calls])
        for call_id, (_, _, result, err) in zip(ids, calls):
            self.tool_result(call_id, result, is_error=err)

    def say(self, text: str, *, thinking: str | None = None) -> dict:
        entry, _ = self.assistant(text=text, thinking=thinking)
        return entry

    # ---------------------------------------------------------------- context
    def path(self, leaf: str | None = None) -> list[dict]:
        out: list[dict] = []
        cur = self.by_id.get(leaf if leaf is not None else self.leaf) if (leaf or self.leaf) else None
        while cur is not None:
            out.append(cur)
            cur = self.by_id.get(cur["parentId"]) if cur["parentId"] else None
        out.reverse()
        return out

    @staticmethod
    def entry_message(entry: dict) -> dict | None:
        t = entry["type"]
        if t == "message":
            return entry["message"]
        if t == "custom_message":
            return {"role": "custom", "content": entry["content"]}
        if t == "branch_summary":
            return {"role": "branchSummary", "summary": entry["summary"]}
        if t == "compaction":
            return {"role": "compactionSummary", "summary": entry["summary"]}
        return None

    def context(self, leaf: str | None = None) -> list[dict]:
        """The messages pi's buildSessionContext would send for the path to `leaf`."""
        path = self.path(leaf)
        comp_idx = max((i for i, e in enumerate(path) if e["type"] == "compaction"), default=-1)
        msgs: list[dict] = []
        if comp_idx < 0:
            for e in path:
                m = self.entry_message(e) if e["type"] != "compaction" else None
                if m:
                    msgs.append(m)
            return msgs
        comp = path[comp_idx]
        msgs.append({"role": "compactionSummary", "summary": comp["summary"]})
        found = False
        for e in path[:comp_idx]:
            if e["id"] == comp["firstKeptEntryId"]:
                found = True
            if found and e["type"] != "compaction":
                m = self.entry_message(e)
                if m:
                    msgs.append(m)
        for e in path[comp_idx + 1:]:
            m = self.entry_message(e)
            if m:
                msgs.append(m)
        return msgs

    def context_estimate(self) -> int:
        return sum(estimate_tokens(m) for m in self.context())

    def _usage(self, msg: dict) -> dict:
        prompt = max(1, round(sum(estimate_tokens(m) * self.density.get(id(m), self.ratio) for m in self.context())))
        fresh = min(prompt, self.rng.randint(1, 12))
        cache_read = min(self.cached_prefix, prompt - fresh)
        cache_write = prompt - fresh - cache_read
        self.cached_prefix = prompt
        out_est = estimate_tokens(msg)
        output = max(1, round(out_est * self.rng.uniform(1.12, 1.32)))
        usage = {"input": fresh, "output": output, "cacheRead": cache_read, "cacheWrite": cache_write,
                 "totalTokens": fresh + output + cache_read + cache_write}
        cost = {k: usage[k] * PRICES[k] / 1_000_000 for k in ("input", "output", "cacheRead", "cacheWrite")}
        cost["total"] = sum(cost.values())
        usage["cost"] = cost
        return usage

    # ------------------------------------------------------------- compaction
    def compact(self, summary: str, *, keep_recent: int = 20000, extra_files: bool = True,
                turn_prefix: str | None = None) -> dict:
        """Compact the active path the way pi's prepareCompaction + compact would, with given summary texts.

        When the cut splits a turn, pi summarizes the turn's prefix separately and appends it after `---`;
        `turn_prefix` is that second text, required exactly when the cut splits a turn.
        """
        path = self.path()
        prev_idx = max((i for i, e in enumerate(path) if e["type"] == "compaction"), default=-1)
        start = 0
        prev = None
        if prev_idx >= 0:
            prev = path[prev_idx]
            kept = next((i for i, e in enumerate(path) if e["id"] == prev["firstKeptEntryId"]), -1)
            start = kept if kept >= 0 else prev_idx + 1
        cut, turn_start, split = find_cut_point(path, start, len(path), keep_recent)
        history_end = turn_start if split else cut
        summarized = [self.entry_message(e) for e in path[start:history_end] if e["type"] != "compaction"]
        if split != (turn_prefix is not None):
            raise ValueError(f"cut at path index {cut} {'splits' if split else 'does not split'} a turn; "
                             "pass turn_prefix exactly for split turns")
        if split:
            if not any(summarized):
                summary = "No prior history."
            summary = f"{summary}\n\n---\n\n**Turn Context (split turn):**\n\n{turn_prefix}"
            summarized += [self.entry_message(e) for e in path[turn_start:cut] if e["type"] != "compaction"]
        read: set[str] = set()
        modified: set[str] = set()
        if prev is not None and prev.get("details"):
            read.update(prev["details"].get("readFiles", []))
            modified.update(prev["details"].get("modifiedFiles", []))
        for m in summarized:
            if not m or m.get("role") != "assistant":
                continue
            for b in m["content"]:
                if b["type"] == "toolCall" and isinstance(b["arguments"].get("path"), str):
                    p = b["arguments"]["path"]
                    if b["name"] == "read":
                        read.add(p)
                    elif b["name"] in ("write", "edit"):
                        modified.add(p)
        read_files = sorted(read - modified)
        modified_files = sorted(modified)
        text = summary
        if extra_files:
            sections = []
            if read_files:
                sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
            if modified_files:
                sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
            if sections:
                text += "\n\n" + "\n\n".join(sections)
        tokens_before = self.context_tokens_from_usage()
        self.clock.tick(25, 70)
        entry = self.append("compaction", {
            "summary": text,
            "firstKeptEntryId": path[cut]["id"],
            "tokensBefore": tokens_before,
            "details": {"readFiles": read_files, "modifiedFiles": modified_files},
        })
        self.cached_prefix = 0
        return entry

    def tokens_since(self, entry_id: str) -> int:
        """chars/4 of the path's messages from `entry_id` to the leaf: the keepRecentTokens that cuts exactly there."""
        path = self.path()
        start = next(i for i, e in enumerate(path) if e["id"] == entry_id)
        return sum(estimate_tokens(e["message"]) for e in path[start:] if e["type"] == "message")

    def context_tokens_from_usage(self) -> int:
        """pi's estimateContextTokens: last assistant usage plus chars/4 of what follows it."""
        msgs = self.context()
        for i in range(len(msgs) - 1, -1, -1):
            m = msgs[i]
            if m.get("role") == "assistant" and m.get("usage") and m.get("stopReason") not in ("aborted", "error"):
                return m["usage"]["totalTokens"] + sum(estimate_tokens(x) for x in msgs[i + 1:])
        return sum(estimate_tokens(x) for x in msgs)

    # ---------------------------------------------------------------- output
    def lines(self, *, legacy_v1: bool = False) -> list[str]:
        if not legacy_v1:
            return [dumps(self.header)] + [dumps(e) for e in self.entries]
        index = {e["id"]: i + 1 for i, e in enumerate(self.entries)}  # header is index 0
        out = [dumps(self.header)]
        for e in self.entries:
            v1 = {k: v for k, v in e.items() if k not in ("id", "parentId")}
            if e["type"] == "compaction":
                kept = v1.pop("firstKeptEntryId")
                rebuilt: dict[str, Any] = {}
                for k, v in v1.items():
                    rebuilt[k] = v
                    if k == "summary":
                        rebuilt["firstKeptEntryIndex"] = index[kept]
                v1 = rebuilt
            out.append(dumps(v1))
        return out

    def write(self, path: str, *, legacy_v1: bool = False) -> None:
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            for line in self.lines(legacy_v1=legacy_v1):
                fh.write(line + "\n")


def find_cut_point(path: list[dict], start: int, end: int, keep_recent: int) -> tuple[int, int, bool]:
    """pi's findCutPoint over path entries: (first kept index, turn start index, is split turn)."""
    cut_roles = {"bashExecution", "custom", "branchSummary", "compactionSummary", "user", "assistant", "hookMessage"}
    cut_points = [
        i for i in range(start, end)
        if (path[i]["type"] == "message" and path[i]["message"]["role"] in cut_roles)
        or path[i]["type"] in ("branch_summary", "custom_message")
    ]
    if not cut_points:
        return start, -1, False
    acc = 0
    cut = cut_points[0]
    for i in range(end - 1, start - 1, -1):
        e = path[i]
        if e["type"] != "message":
            continue
        acc += estimate_tokens(e["message"])
        if acc >= keep_recent:
            for c in cut_points:
                if c >= i:
                    cut = c
                    break
            break
    while cut > start:
        prev = path[cut - 1]
        if prev["type"] in ("compaction", "message"):
            break
        cut -= 1
    e = path[cut]
    is_user = e["type"] == "message" and e["message"]["role"] == "user"
    turn_start = -1
    if not is_user:
        for i in range(cut, start - 1, -1):
            x = path[i]
            if x["type"] in ("branch_summary", "custom_message"):
                turn_start = i
                break
            if x["type"] == "message" and x["message"]["role"] in ("user", "bashExecution"):
                turn_start = i
                break
    return cut, turn_start, (not is_user and turn_start != -1)
