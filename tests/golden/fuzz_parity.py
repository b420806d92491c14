"""Random pi sessions planned by pi (the oracle; needs node) and by cutline, compared field by field.

A dev check beyond the committed goldens: random mixes of every entry kind, branches,
compactions (firstKeptEntryId present, missing or null; details with and without
fromHook), aborted/error usage, images, astral text and JS-formatted numbers.

    /tmp/cvenv/bin/python tests/golden/fuzz_parity.py FIRST_SEED LAST_SEED
"""

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
ORACLE = str(ROOT.parent / "shared" / "tools" / "pi-oracle" / "run")
OUT = Path(tempfile.mkdtemp(prefix="cutline-fuzz-"))
from cutline.core.agents import read_session
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.plan import index_path, plan

WORDS = ["alpha", "beta", "gamma", "😀", "é", "ü", "中", "delta"]


def text(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def make(seed):
    rng = random.Random(seed)
    lines = [{"type": "session", "version": 3, "id": f"s{seed}", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/"}]
    ids = []
    count = 0
    leaf = None

    def add(rec, parent="leaf"):
        nonlocal count, leaf
        count += 1
        eid = f"{seed:03x}{count:05x}"
        p = leaf if parent == "leaf" else parent
        lines.append({"id": eid, "parentId": p, "timestamp": "2026-01-01T00:00:00.000Z", **rec})
        ids.append(eid)
        leaf = eid
        return eid

    calls = 0
    for _step in range(rng.randint(5, 120)):
        r = rng.random()
        if r < 0.2:
            c = rng.choice(["text", "str"])
            add(
                {
                    "type": "message",
                    "message": {
                        "role": "user",
                        "content": text(rng, rng.randint(1, 400))
                        if c == "str"
                        else [{"type": "text", "text": text(rng, rng.randint(1, 400))}],
                        "timestamp": 1,
                    },
                }
            )
        elif r < 0.45:
            blocks = [{"type": "text", "text": text(rng, rng.randint(0, 200))}]
            n = rng.randint(0, 3)
            cids = []
            for _ in range(n):
                calls += 1
                name = rng.choice(["read", "write", "edit", "bash"])
                args = {"path": rng.choice(["a.py", "b/ü.md", "c.txt", "𝔘.rs"])} if rng.random() < 0.9 else {"cmd": 1.5}
                if rng.random() < 0.3:
                    args["x"] = rng.choice([1.0, 1e21, 0.1, 12345678901234567890, -0.0])
                blocks.append({"type": "toolCall", "id": f"t{calls}", "name": name, "arguments": args})
                cids.append((f"t{calls}", name))
            msg = {
                "role": "assistant",
                "content": blocks,
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "stopReason": rng.choice(["stop", "toolUse", "aborted", "error"]),
                "timestamp": 1,
            }
            if rng.random() < 0.7:
                msg["usage"] = {
                    "input": rng.randint(0, 5000),
                    "output": rng.randint(0, 500),
                    "cacheRead": rng.randint(0, 50000),
                    "cacheWrite": rng.randint(0, 500),
                    "totalTokens": rng.choice([0, rng.randint(1000, 90000)]),
                }
            add({"type": "message", "message": msg})
            for cid, name in cids:
                add(
                    {
                        "type": "message",
                        "message": {
                            "role": "toolResult",
                            "toolCallId": cid,
                            "toolName": name,
                            "content": [{"type": "text", "text": text(rng, rng.randint(0, 900))}]
                            + ([{"type": "image", "data": "x", "mimeType": "image/png"}] if rng.random() < 0.1 else []),
                            "isError": False,
                            "timestamp": 1,
                        },
                    }
                )
        elif r < 0.5:
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
        elif r < 0.55:
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
        elif r < 0.65:
            add(
                {
                    "type": rng.choice(["model_change", "thinking_level_change", "label", "session_info", "custom"]),
                    "data": {},
                }
            )
        elif r < 0.7:
            add(
                {
                    "type": "custom_message",
                    "customType": "n",
                    "content": text(rng, rng.randint(1, 200)),
                    "display": True,
                }
            )
        elif r < 0.74:
            add(
                {
                    "type": "branch_summary",
                    "fromId": "x",
                    "summary": text(rng, rng.randint(0, 100)) if rng.random() < 0.8 else "",
                }
            )
        elif r < 0.78 and ids:
            fk = rng.choice([*ids, None, "missing1"])
            det = {"readFiles": ["old.py", "a.py"], "modifiedFiles": ["m.py"]} if rng.random() < 0.6 else None
            rec = {
                "type": "compaction",
                "summary": text(rng, rng.randint(1, 300)),
                "firstKeptEntryId": fk,
                "tokensBefore": 1,
            }
            if det:
                rec["details"] = det
            if rng.random() < 0.2:
                rec["fromHook"] = True
            add(rec)
        elif r < 0.8 and len(ids) > 3:
            # branch off from an earlier entry
            leaf = rng.choice(ids)
    path = str(OUT / f"f{seed}.jsonl")
    with open(path, "w") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    return path


keeps = [0, 1, 50, 300, 1000, 3000, 8000, 30000]
bad = 0
for seed in range(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else int(sys.argv[1]) + 20):
    p = make(seed)
    out = subprocess.run([ORACLE, p, *map(str, keeps)], capture_output=True, text=True)
    if out.returncode != 0:
        print(seed, "oracle failed", out.stderr[-300:])
        continue
    exp = json.loads(out.stdout)
    path = read_session(p).active_path()
    idx = index_path(path)
    if len(path) != exp["pathLength"]:
        print(seed, "pathLength", len(path), exp["pathLength"])
        bad += 1
        continue
    for k in keeps:
        e = exp["plans"][str(k)]
        r = plan(idx, CompactionSettings(keepRecentTokens=k))
        if e is None:
            if not r.alreadyCompacted:
                print(seed, k, "expected None")
                bad += 1
            continue
        got = (
            r.firstKeptPathIndex,
            r.isSplitTurn,
            r.tokensBefore,
            r.messagesToSummarize,
            r.turnPrefixMessages,
            r.previousSummary,
            r.readFiles,
            r.writtenFiles,
            r.editedFiles,
        )
        want = (
            e["firstKeptPathIndex"],
            e["isSplitTurn"],
            e["tokensBefore"],
            e["messagesToSummarize"],
            e["turnPrefixMessages"],
            e["previousSummary"],
            e["readFiles"],
            e["writtenFiles"],
            e["editedFiles"],
        )
        if got != want:
            bad += 1
            print(seed, k, "DIFF", [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w])
print("bad", bad)
