"""Write a large, realistic, deterministic pi v3 session for the benchmarks (default 100,000 entries, ~100 MB).

A long coding session: user requests, assistant turns with thinking, text and tool
calls (usage with cost on every one), tool results of realistic sizes (file reads,
test runs, searches, some failures), model and thinking-level changes, and a
compaction whenever the context passes pi's default threshold (200k window). The
same seed always gives the same bytes.

    python bench/gen_large_session.py [-o /tmp/cutline-100k.jsonl] [--entries 100000] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

DEFAULT_PATH = Path("/tmp/cutline-100k.jsonl")

_WORDS = [
    "the",
    "a",
    "to",
    "of",
    "and",
    "in",
    "for",
    "is",
    "on",
    "that",
    "with",
    "this",
    "it",
    "be",
    "as",
    "are",
    "by",
    "from",
    "at",
    "or",
    "an",
    "not",
    "we",
    "can",
    "function",
    "module",
    "test",
    "error",
    "value",
    "result",
    "file",
    "path",
    "config",
    "session",
    "entry",
    "token",
    "cache",
    "store",
    "import",
    "export",
    "parse",
    "read",
    "write",
    "update",
    "delete",
    "create",
    "return",
    "check",
    "handle",
    "build",
    "run",
    "fix",
    "should",
    "would",
    "could",
    "need",
    "want",
    "make",
    "sure",
    "keep",
    "move",
    "add",
    "remove",
    "change",
    "use",
    "call",
    "pass",
    "fail",
    "compaction",
    "summary",
    "context",
    "window",
    "budget",
    "cut",
    "point",
    "message",
    "assistant",
    "user",
    "tool",
    "branch",
    "leaf",
    "database",
    "query",
    "index",
    "migration",
    "schema",
    "row",
    "column",
    "table",
    "transaction",
    "commit",
    "rollback",
    "retry",
    "request",
    "response",
    "timeout",
    "header",
    "body",
    "status",
    "stream",
    "chunk",
    "buffer",
    "offset",
    "limit",
    "batch",
    "queue",
]
_NAMES = ["store", "planner", "reader", "engine", "review", "tokens", "context", "audit", "chunking", "triggers"]
_EXTS = [".py", ".ts", ".md", ".toml", ".json"]
_TOOLS = ["read", "bash", "edit", "write", "grep", "ls"]


class _Text:
    """Deterministic prose and code from a fixed pool, so 95 MB is generated in seconds."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.sentences = [self._sentence() for _ in range(3000)]
        self.code_lines = [self._code_line() for _ in range(3000)]

    def _sentence(self) -> str:
        words = [self.rng.choice(_WORDS) for _ in range(self.rng.randint(6, 22))]
        words[0] = words[0].capitalize()
        tail = self.rng.choice([".", ".", ".", "?", ":", " → done.", " (café test)."])
        return " ".join(words) + tail

    def _code_line(self) -> str:
        indent = "    " * self.rng.randint(0, 3)
        name = f"{self.rng.choice(_WORDS)}_{self.rng.choice(_WORDS)}"
        kind = self.rng.randint(0, 5)
        if kind == 0:
            return f"{indent}def {name}(self, {self.rng.choice(_WORDS)}: str) -> int:"
        if kind == 1:
            return f'{indent}{name} = self.{self.rng.choice(_WORDS)}("{self.rng.choice(_WORDS)}", {self.rng.randint(0, 999)})'
        if kind == 2:
            return f"{indent}if {name} is None:"
        if kind == 3:
            return f"{indent}return {name}"
        if kind == 4:
            return f"{indent}# {self._sentence()}"
        return f"{indent}for {self.rng.choice(_WORDS)} in {name}:"

    def prose(self, chars: int) -> str:
        out: list[str] = []
        size = 0
        while size < chars:
            sentence = self.rng.choice(self.sentences)
            out.append(sentence)
            size += len(sentence) + 1
            if self.rng.random() < 0.15:
                out.append("\n\n")
        return " ".join(out).strip()

    def code(self, chars: int) -> str:
        out: list[str] = []
        size = 0
        number = self.rng.randint(1, 400)
        while size < chars:
            line = f"{number:>5}\t{self.rng.choice(self.code_lines)}"
            out.append(line)
            size += len(line) + 1
            number += 1
        return "\n".join(out)


class _Writer:
    """Builds entries as pi writes them (JSON.stringify: compact, non-ASCII unescaped)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.ids: set[str] = set()
        self.clock = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)
        self.leaf: str | None = None
        self.count = 0
        self.context_tokens = 3000

    def new_id(self) -> str:
        while True:
            value = f"{self.rng.getrandbits(32):08x}"
            if value not in self.ids:
                self.ids.add(value)
                return value

    def tick(self, seconds: float) -> tuple[str, int]:
        self.clock += timedelta(seconds=seconds)
        iso = self.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        return iso, int(self.clock.timestamp() * 1000)

    def entry(self, kind: str, seconds: float, **fields: object) -> tuple[str, str]:
        entry_id = self.new_id()
        iso, _ = self.tick(seconds)
        record = {"type": kind, "id": entry_id, "parentId": self.leaf, "timestamp": iso, **fields}
        self.leaf = entry_id
        self.count += 1
        return entry_id, json.dumps(record, separators=(",", ":"), ensure_ascii=False)


def _usage(rng: random.Random, context: int, output: int) -> dict[str, object]:
    cache_read = max(0, context - rng.randint(200, 4000))
    fresh = context - cache_read
    cache_write = rng.randint(0, fresh)
    input_tokens = fresh - cache_write
    cost_in = input_tokens * 3e-6
    cost_out = output * 15e-6
    cost_read = cache_read * 0.3e-6
    cost_write = cache_write * 3.75e-6
    return {
        "input": input_tokens,
        "output": output,
        "cacheRead": cache_read,
        "cacheWrite": cache_write,
        "totalTokens": input_tokens + output + cache_read + cache_write,
        "cost": {
            "input": round(cost_in, 6),
            "output": round(cost_out, 6),
            "cacheRead": round(cost_read, 6),
            "cacheWrite": round(cost_write, 6),
            "total": round(cost_in + cost_out + cost_read + cost_write, 6),
        },
    }


def _tool_call(rng: random.Random, text: _Text) -> tuple[str, dict[str, object]]:
    tool = rng.choice(_TOOLS)
    path = f"src/{rng.choice(_NAMES)}/{rng.choice(_WORDS)}{rng.choice(_EXTS)}"
    if tool == "read":
        return tool, {"path": path}
    if tool == "bash":
        return tool, {
            "command": rng.choice(["pytest -q", "git status", "ruff check .", "ls -la src", "python -m build"])
        }
    if tool == "edit":
        return tool, {
            "path": path,
            "oldText": text.code(rng.randint(40, 200)),
            "newText": text.code(rng.randint(40, 240)),
        }
    if tool == "write":
        return tool, {"path": path, "content": text.code(rng.randint(150, 1100))}
    if tool == "grep":
        return tool, {"pattern": rng.choice(_WORDS), "path": "src"}
    return tool, {"path": "src"}


def _tool_output(rng: random.Random, text: _Text, tool: str) -> tuple[str, bool]:
    if rng.random() < 0.06:
        return f"Error: {text.prose(rng.randint(60, 400))}", True
    if tool == "read":
        return text.code(rng.randint(350, 2300)), False
    if tool == "bash":
        return text.code(rng.randint(120, 1500)), False
    if tool == "grep":
        return text.code(rng.randint(100, 1100)), False
    if tool == "ls":
        return "\n".join(f"{rng.choice(_WORDS)}{rng.choice(_EXTS)}" for _ in range(rng.randint(3, 40))), False
    return f"Successfully wrote {rng.randint(100, 9000)} bytes", False


def generate(path: Path, entries: int = 100_000, seed: int = 7, compactions: bool = True) -> int:
    """Write the session; with `compactions` False, none is ever inserted (auto-compaction off, a 1M-token window)."""
    """Write the session to `path`; returns its size in bytes."""
    rng = random.Random(seed)
    text = _Text(rng)
    writer = _Writer(rng)
    session_id = f"{rng.getrandbits(32):08x}-{rng.getrandbits(16):04x}-4{rng.getrandbits(12):03x}-a{rng.getrandbits(12):03x}-{rng.getrandbits(48):012x}"
    model = "claude-sonnet-4-5"
    lines: list[str] = []
    emit = lines.append

    header = {
        "type": "session",
        "version": 3,
        "id": session_id,
        "timestamp": writer.tick(0)[0],
        "cwd": "/home/dev/project",
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write(json.dumps(header, separators=(",", ":"), ensure_ascii=False) + "\n")
        emit(writer.entry("model_change", 0.2, provider="anthropic", modelId=model)[1])
        emit(writer.entry("thinking_level_change", 0.1, thinkingLevel="medium")[1])
        turn_starts: list[str] = []
        while writer.count < entries:
            if len(lines) > 2000:
                out.write("\n".join(lines) + "\n")
                lines.clear()
            # pi compacts when the context passes contextWindow - reserveTokens (200000 - 16384)
            if compactions and writer.context_tokens > 183_616 and len(turn_starts) > 4:
                kept = turn_starts[-3]
                tokens_before = writer.context_tokens
                emit(
                    writer.entry(
                        "compaction",
                        rng.uniform(5, 30),
                        summary="## Goal\n" + text.prose(rng.randint(1500, 4000)),
                        firstKeptEntryId=kept,
                        tokensBefore=tokens_before,
                        details={
                            "readFiles": [f"src/{n}.py" for n in _NAMES[:4]],
                            "modifiedFiles": [f"src/{_NAMES[0]}.py"],
                        },
                    )[1]
                )
                # what stays: the summary plus the kept recent turns (pi keeps ~20000 tokens)
                writer.context_tokens = 24_000
                continue
            if rng.random() < 0.01:
                model = rng.choice(["claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"])
                emit(writer.entry("model_change", 1, provider="anthropic", modelId=model)[1])
                continue
            user_text = text.prose(rng.randint(40, 900))
            _, ms = writer.tick(0)
            entry_id, line = writer.entry(
                "message",
                rng.uniform(10, 300),
                message={"role": "user", "content": [{"type": "text", "text": user_text}], "timestamp": ms},
            )
            turn_starts.append(entry_id)
            emit(line)
            writer.context_tokens += len(user_text) // 4
            for step in range(rng.randint(1, 12)):
                if writer.count >= entries:
                    break
                final = step > 0 and rng.random() < 0.15
                content: list[dict[str, object]] = []
                if rng.random() < 0.6:
                    content.append(
                        {
                            "type": "thinking",
                            "thinking": text.prose(rng.randint(60, 600)),
                            "thinkingSignature": f"sig{rng.getrandbits(64):016x}",
                        }
                    )
                content.append({"type": "text", "text": text.prose(rng.randint(30, 380))})
                calls: list[tuple[str, str]] = []
                if not final:
                    for _ in range(1 if rng.random() < 0.85 else 2):
                        tool, arguments = _tool_call(rng, text)
                        call_id = f"toolu_{rng.getrandbits(64):016x}"
                        calls.append((call_id, tool))
                        content.append({"type": "toolCall", "id": call_id, "name": tool, "arguments": arguments})
                output = sum(len(json.dumps(block)) for block in content) // 4
                writer.context_tokens += output
                _, ms = writer.tick(0)
                message = {
                    "role": "assistant",
                    "content": content,
                    "api": "anthropic-messages",
                    "provider": "anthropic",
                    "model": model,
                    "usage": _usage(rng, writer.context_tokens, output),
                    "stopReason": "stop" if final else "toolUse",
                    "timestamp": ms,
                }
                emit(writer.entry("message", rng.uniform(2, 40), message=message)[1])
                if final:
                    break
                for call_id, tool in calls:
                    if writer.count >= entries:
                        break
                    result, is_error = _tool_output(rng, text, tool)
                    writer.context_tokens += len(result) // 4
                    _, ms = writer.tick(0)
                    message = {
                        "role": "toolResult",
                        "toolCallId": call_id,
                        "toolName": tool,
                        "content": [{"type": "text", "text": result}],
                        "isError": is_error,
                        "timestamp": ms,
                    }
                    emit(writer.entry("message", rng.uniform(0.1, 20), message=message)[1])
        if lines:
            out.write("\n".join(lines) + "\n")
    return path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-compactions", action="store_true", help="never compact (one uncompacted stretch)")
    args = parser.parse_args()
    size = generate(args.output, args.entries, args.seed, compactions=not args.no_compactions)
    print(f"{args.output}: {args.entries} entries, {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
