"""Random sessions planned by current pi (0.87.1) and OpenClaw 2026.9 (their own code; needs node) and by cutline.

A dev check beyond the hand-made goldens: fuzz_parity.py's mix (every pi entry kind,
branches, compactions with kept ids present, missing or null, aborted/error usage,
images, astral text, JS-formatted numbers) plus what the new rule sets know: system
prompts with sections and tool changes, context edits (replace, omit, several on one
target, recovery tails), usage entries, retain-none compactions with a system message,
resets, CJK text, excluded messages, senders, provider context usage, apply_patch
results, prefixed tool names and runtime carriers. Prints every difference and the
counts; `--keep DIR` also writes each session and both oracles' answers there (the
committed set in tests/golden/fuzz-rules is replayed by tests/test_rules_parity.py).

    .venv/bin/python tests/golden/fuzz_rules.py FIRST_SEED LAST_SEED [--keep tests/golden/fuzz-rules]
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" if (ROOT.parent / "shared").is_dir() else ROOT.parent.parent / "shared"
ORACLES = {
    "pi": (str(SHARED / "tools" / "pi-oracle" / "run"), {"PI_VERSION": "0.87.1"}),
    "openclaw": (str(SHARED / "tools" / "openclaw-oracle" / "run"), {}),
}
RULES = {"pi": "pi", "openclaw": "openclaw-2026.9"}
KEEPS = [0, 1, 50, 300, 1000, 3000, 8000, 30000]

from cutline.core.agents import read_session  # noqa: E402
from cutline.core.config.settings import CompactionSettings  # noqa: E402
from cutline.core.engine.plan import index_path, plan  # noqa: E402
from cutline.core.engine.rules.estimates import openclaw_tokens, pi_current_tokens  # noqa: E402

WORDS = ["alpha", "beta", "gamma", "😀", "é", "ü", "中", "delta", "한국", "ｶﾀ", "𠜎", "文字", "·"]
_LONE = re.compile("[\ud800-\udfff]")


def text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def make(seed: int, out: Path) -> Path:  # noqa: C901 (one branch per entry kind, on purpose)
    rng = random.Random(seed * 7919 + 11)
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": f"s{seed}", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/"}
    ]
    ids: list[str] = []
    kinds: dict[str, str] = {}
    count = 0
    leaf: str | None = None

    def add(rec: dict[str, Any], parent: str | bool | None = True) -> str:
        nonlocal count, leaf
        count += 1
        eid = f"{seed:03x}{count:05x}"
        lines.append(
            {"id": eid, "parentId": leaf if parent is True else parent, "timestamp": "2026-01-01T00:00:00.000Z", **rec}
        )
        ids.append(eid)
        kinds[eid] = rec["type"] if rec["type"] != "message" else rec["message"]["role"]
        leaf = eid
        return eid

    def usage() -> dict[str, Any]:
        u: dict[str, Any] = {
            "input": rng.randint(0, 5000),
            "output": rng.randint(0, 500),
            "cacheRead": rng.randint(0, 50000),
            "cacheWrite": rng.randint(0, 500),
            "totalTokens": rng.choice([0, rng.randint(1000, 90000)]),
        }
        if rng.random() < 0.15:
            u["contextUsage"] = rng.choice(
                [{"state": "available", "totalTokens": rng.randint(1, 80000)}, {"state": "unavailable"}]
            )
        return u

    calls = 0
    for _ in range(rng.randint(5, 110)):
        r = rng.random()
        if r < 0.17:
            message: dict[str, Any] = {"role": "user", "timestamp": 1}
            body = text(rng, rng.randint(0, 300))
            message["content"] = (
                body
                if rng.random() < 0.4
                else [{"type": "text", "text": body}]
                + ([{"type": "image", "data": "x", "mimeType": "image/png"}] if rng.random() < 0.15 else [])
            )
            if rng.random() < 0.08:
                message["excludeFromContext"] = True
            if rng.random() < 0.1:
                message["__openclaw"] = {"senderId": rng.choice(["u1", " ", "u\u00002"]), "senderName": "N"}
            add({"type": "message", "message": message})
        elif r < 0.40:
            blocks: list[dict[str, Any]] = [{"type": "text", "text": text(rng, rng.randint(0, 200))}]
            if rng.random() < 0.2:
                blocks.append({"type": "thinking", "thinking": text(rng, rng.randint(1, 80))})
            cids = []
            for _ in range(rng.randint(0, 3)):
                calls += 1
                name = rng.choice(["read", "write", "edit", "bash", "apply_patch", "mcp__fs__read", "Edit"])
                key = rng.choice(["path", "path", "path", "file_path", "filePath"])
                args: dict[str, Any] = (
                    {key: rng.choice(["a.py", "b/ü.md", "c.txt", "𝔘.rs", ""])} if rng.random() < 0.9 else {"cmd": 1.5}
                )
                if rng.random() < 0.3:
                    args["x"] = rng.choice([1.0, 1e21, 0.1, 12345678901234567890, -0.0])
                blocks.append({"type": "toolCall", "id": f"t{calls}", "name": name, "arguments": args})
                cids.append((f"t{calls}", name))
            message = {
                "role": "assistant",
                "content": blocks,
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "stopReason": rng.choice(["stop", "toolUse", "aborted", "error", "length"]),
                "timestamp": 1,
            }
            if rng.random() < 0.7:
                message["usage"] = usage()
            if rng.random() < 0.05:
                message["api"] = "cli"
            add({"type": "message", "message": message})
            for cid, name in cids:
                if rng.random() < 0.1:
                    continue  # an unanswered call
                result: dict[str, Any] = {
                    "role": "toolResult",
                    "toolCallId": cid if rng.random() < 0.95 else "other",
                    "toolName": name,
                    "content": [{"type": "text", "text": text(rng, rng.randint(0, 900))}]
                    + ([{"type": "image", "data": "x", "mimeType": "image/png"}] if rng.random() < 0.1 else []),
                    "isError": rng.random() < 0.1,
                    "timestamp": 1,
                }
                if name == "apply_patch":
                    result["details"] = {"summary": {"added": ["new.py"], "modified": ["a.py", "m.py"]}}
                add({"type": "message", "message": result})
        elif r < 0.44:
            add(
                {
                    "type": "message",
                    "message": {
                        "role": "bashExecution",
                        "command": "ls",
                        "output": text(rng, rng.randint(0, 300)),
                        "exitCode": 0,
                        "cancelled": False,
                        "truncated": False,
                        "timestamp": 1,
                    },
                }
            )
        elif r < 0.48:
            add(
                {
                    "type": "message",
                    "message": {
                        "role": "custom",
                        "customType": "x",
                        "content": text(rng, 50),
                        "display": True,
                        "timestamp": 1,
                    },
                }
            )
        elif r < 0.55:
            add(
                {
                    "type": rng.choice(["model_change", "thinking_level_change", "label", "session_info", "custom"]),
                    "data": {},
                }
            )
        elif r < 0.59:
            rec: dict[str, Any] = {
                "type": "custom_message",
                "customType": "n",
                "content": text(rng, rng.randint(1, 200)),
                "display": True,
            }
            if rng.random() < 0.2:
                rec["details"] = {"runtimeContextCarrier": True}
            add(rec)
        elif r < 0.62:
            add(
                {
                    "type": "branch_summary",
                    "fromId": "x",
                    "summary": text(rng, rng.randint(0, 100)) if rng.random() < 0.8 else "",
                }
            )
        elif r < 0.67:
            system: dict[str, Any] = {
                "role": "system",
                "content": text(rng, rng.randint(0, 120)),
                "timestamp": rng.choice([1, 2]),
            }
            if rng.random() < 0.5:
                system["sections"] = {
                    rng.choice(["a", "b", "c"]): rng.choice([text(rng, 30), None, ""]) for _ in range(2)
                }
            if rng.random() < 0.4:
                system["toolsAdded"] = [
                    {"name": rng.choice(["read", "x", "y"]), "description": text(rng, 5), "parameters": {}}
                ]
            if rng.random() < 0.2:
                system["toolsRemoved"] = [{"name": rng.choice(["read", "x"])}]
            add({"type": "message", "message": system})
        elif r < 0.73 and ids:
            targets = [i for i in ids if kinds[i] in ("user", "assistant", "toolResult", "custom_message")]
            if targets:
                target = rng.choice(targets[-8:])
                replacement = rng.choice(
                    [
                        None,
                        {"content": text(rng, rng.randint(1, 40))},
                        {"content": [{"type": "text", "text": text(rng, 20)}]},
                    ]
                )
                add({"type": "context_edit", "targetId": target, "replacement": replacement})
        elif r < 0.76:
            add({"type": "usage", "kind": "turn", "provider": "anthropic", "model": "m", "usage": usage()})
        elif r < 0.8 and ids:
            rec = {"type": "compaction", "summary": text(rng, rng.randint(1, 300)), "tokensBefore": 1}
            own = f"{seed:03x}{count + 1:05x}"
            rec["firstKeptEntryId"] = rng.choice([*ids[-12:], None, "missing1", own, own])
            if rng.random() < 0.6:
                rec["details"] = {"readFiles": ["old.py", "a.py"], "modifiedFiles": ["m.py"]}
                if rng.random() < 0.3:
                    rec["details"]["latestUnresolvedUserRequest"] = "earlier ask " + text(rng, 5)
            if rng.random() < 0.2:
                rec["fromHook"] = True
            if rng.random() < 0.3:
                rec["systemMessage"] = {"role": "system", "content": text(rng, 40), "timestamp": 5}
            add(rec)
        elif r < 0.82 and ids:
            rec = {"type": "reset", "reason": "r"}
            if rng.random() < 0.7:
                rec["firstKeptEntryId"] = rng.choice(ids[-15:])
            add(rec)
        elif r < 0.85 and len(ids) > 3:
            leaf = rng.choice(ids)  # branch off from an earlier entry
        elif r < 0.88:
            # a recovery tail: the last input, a failed attempt, the edit that hides it
            add({"type": "message", "message": {"role": "user", "content": text(rng, 20), "timestamp": 1}})
            failed = add(
                {
                    "type": "message",
                    "message": {
                        "role": "assistant",
                        "content": [{"type": "text", "text": ""}],
                        "stopReason": "length",
                        "provider": "p",
                        "model": "m",
                        "timestamp": 1,
                    },
                }
            )
            add({"type": "context_edit", "targetId": failed, "replacement": None})
    path = out / f"f{seed}.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    return path


def oracle(name: str, session: Path) -> dict[str, Any] | None:
    run, env = ORACLES[name]
    import os

    done = subprocess.run(
        [run, str(session), *map(str, KEEPS)], capture_output=True, text=True, env={**os.environ, **env}, check=False
    )
    if done.returncode != 0:
        print(session.name, name, "oracle failed:", done.stderr.strip().splitlines()[-1:] if done.stderr else "")
        return None
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def scrub(value: Any) -> Any:
    return _LONE.sub("\ufffd", value) if isinstance(value, str) else value


def compare(name: str, session: Path, expected: dict[str, Any]) -> list[str]:
    """Every difference between cutline under the oracle's rules and the oracle."""
    path = read_session(session).active_path()
    if len(path) != expected["pathLength"]:
        return [f"pathLength {len(path)} != {expected['pathLength']}"]
    diffs: list[str] = []
    estimate = pi_current_tokens if name == "pi" else openclaw_tokens
    for i, (entry, want) in enumerate(zip(path, expected["perEntry"], strict=True)):
        if want["type"] == "message" and entry.message is not None and estimate(entry.message) != want["tokens"]:
            diffs.append(f"perEntry {i}: {estimate(entry.message)} != {want['tokens']}")
    index = index_path(path)
    for keep in KEEPS:
        want = expected["plans"][str(keep)]
        got = plan(index, CompactionSettings(keepRecentTokens=keep), rules=RULES[name])
        if want is None:
            if not (got.alreadyCompacted or got.nothingToCompact) or got.refusal:
                diffs.append(f"keep {keep}: expected no plan, got cut {got.firstKeptPathIndex} {got.refusal}")
            continue
        if "error" in want:
            if got.refusal != want["error"]:
                diffs.append(
                    f"keep {keep}: expected error {want['error']!r}, got {got.refusal!r} {got.firstKeptPathIndex}"
                )
            continue
        if got.alreadyCompacted or got.nothingToCompact or got.refusal:
            diffs.append(f"keep {keep}: expected a plan, got none ({got.refusal})")
            continue
        fields = [
            "firstKeptPathIndex",
            "isSplitTurn",
            "tokensBefore",
            "messagesToSummarize",
            "turnPrefixMessages",
            "previousSummary",
            "readFiles",
            "writtenFiles",
            "editedFiles",
        ]
        if name == "openclaw":
            fields.append("latestUnresolvedUserRequest")
        for field in fields:
            value, target = getattr(got, field), want[field]
            target = [scrub(t) for t in target] if isinstance(target, list) else scrub(target)
            if value != target:
                diffs.append(f"keep {keep}: {field} {str(value)[:80]!r} != {str(target)[:80]!r}")
    return diffs


def golden(session: Path, data: dict[str, Any], rel: str) -> str:
    data = {**data, "source": rel, "sourceSha256": hashlib.sha256(session.read_bytes()).hexdigest()}
    data.pop("file", None)
    for p in data["plans"].values():
        if p:
            p.pop("ms", None)
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    keep_dir = None
    if "--keep" in argv:
        k = argv.index("--keep")
        keep_dir = Path(argv[k + 1])
        argv = argv[:k] + argv[k + 2 :]
    first = int(argv[0])
    last = int(argv[1]) if len(argv) > 1 else first + 20
    out = keep_dir or Path(tempfile.mkdtemp(prefix="cutline-fuzz-rules-"))
    out.mkdir(parents=True, exist_ok=True)
    cases = dict.fromkeys(ORACLES, 0)
    bad = dict.fromkeys(ORACLES, 0)
    for seed in range(first, last):
        session = make(seed, out)
        for name in ORACLES:
            expected = oracle(name, session)
            if expected is None:
                bad[name] += 1
                continue
            cases[name] += len(KEEPS)
            diffs = compare(name, session, expected)
            for d in diffs:
                print(f"seed {seed} {name}: {d}")
            bad[name] += len(diffs)
            if keep_dir is not None:
                rel = str(session.resolve().relative_to(ROOT))
                text = golden(session, expected, rel)
                (keep_dir / f"f{seed}.{name}.golden.json").write_bytes(text.encode("utf-8", "backslashreplace"))
    for name in ORACLES:
        print(f"{name}: {last - first} sessions, {cases[name]} plans compared, {bad[name]} differences")
    return 1 if any(bad.values()) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
