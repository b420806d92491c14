"""The floors under `audit` and `compact` on a long stretch: each command's reading of the messages, timed alone.

`bench_commands.py` times `audit --proposal` and `compact` against a whole process doing
`json.loads` of every line (target ≤ 2x). On a session with no compaction both read every
message of the 100,000 they summarize. This bench times that reading on its own, in a
child process that has already loaded the stored session (untimed), with nothing else:

- `read`: every stored entry's JSON decoded (msgspec, the fastest decoder cutline has) from
  the store's `raw` column, in path order: the least a command that reads every message
  pays to have them, before looking at one;
- `facts`: the audit's reading of what was said, `core.facts.entry_facts` of every entry
  (the facts the audit then judges against the summary; judging is not included);
- `span`: the offline summarizer's reading, `core.summarizers.session_state.read_span` of
  every message (the state its summary is written from; writing is not included);
- `words`: one regular-expression pass (`\\w+`) over the same messages' text, the least
  any reading of words costs.

Each is CPU (`time.process_time`) inside the child, median of `--repeat` children, and
its ratio against the median CPU of the `json.loads` baseline, measured in the same run
(alternating). A stage above 2x alone, or `read` plus a stage above it, means its command
cannot reach 2x while it reads the messages that way, however little else it does.

    python bench/bench_floors.py [--files F1,F2] [--sizes 100k] [--sessions uncompacted] [--grown 50000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_commands import _LOADS, CUTLINE, PY, home_env, load, timed  # noqa: E402
from grow_sessions import grown_file  # noqa: E402
from sessions import parse_sizes, session_file  # noqa: E402

_STAGES = r"""
import json, re, sys, time
from cutline.core.store import Store
from cutline.core.facts import entry_facts
from cutline.core.summarizers.session_state import read_span

import msgspec

with Store() as store:
    sid = store.import_file(sys.argv[1]).session_id
    session = store.load_session(sid)
    start = time.process_time()
    decode = msgspec.json.Decoder().decode
    rows = 0
    for (raw,) in store.database.conn.execute("SELECT raw FROM entries WHERE session_id = ? ORDER BY seq", (sid,)):
        decode(raw)
        rows += 1
    read = time.process_time() - start
entries = session.entries
messages = [e.message for e in entries if e.message is not None]
word = re.compile(r"\w+")
out = {"entries": len(entries), "messages": len(messages), "read": read, "rows": rows}

start = time.process_time()
facts = 0
for entry in entries:
    facts += len(entry_facts(entry))
out["facts"] = time.process_time() - start
out["fact_count"] = facts

start = time.process_time()
read_span(messages)
out["span"] = time.process_time() - start

start = time.process_time()
words = 0
for message in messages:
    words += len(word.findall(message.text()))
out["words"] = time.process_time() - start
out["word_count"] = words
print(json.dumps(out))
"""

STAGES = ("read", "facts", "span", "words")


def stages(file: Path, env: dict[str, str]) -> dict[str, float]:
    done = subprocess.run([PY, "-c", _STAGES, str(file)], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"failed: {file}\n{done.stderr[-2000:]}")
    result: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return result


def bench_file(file: Path, label: str, repeat: int) -> None:
    home = tempfile.mkdtemp(prefix="cutline-floors-")
    env = home_env(home)
    try:
        timed([CUTLINE, "import", str(file)], env)
        base, runs = [], []
        for _ in range(repeat):
            base.append(timed([PY, "-c", _LOADS, str(file)]).cpu)
            runs.append(stages(file, env))
        baseline = statistics.median(base)
        first = runs[0]
        print(
            f"  {label:<22} {first['entries']:,} entries, {first['messages']:,} messages, "
            f"{first['fact_count']:,} facts, {first['word_count']:,} words; "
            f"json.loads baseline {baseline:.2f} s cpu",
            flush=True,
        )
        for stage in STAGES:
            cpu = statistics.median(r[stage] for r in runs)
            print(f"    {stage:<6} {cpu:6.2f} s cpu  {cpu / max(baseline, 0.01):5.2f}x the baseline", flush=True)
        for stage in STAGES[1:]:
            cpu = statistics.median(r["read"] + r[stage] for r in runs)
            print(f"    read + {stage:<6} {cpu:6.2f} s cpu  {cpu / max(baseline, 0.01):5.2f}x", flush=True)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", default="", help="session files (comma-separated), instead of the generated ones")
    parser.add_argument("--sizes", default="100k")
    parser.add_argument("--spellings", default="compact")
    parser.add_argument("--sessions", default="uncompacted", help="compacted, uncompacted or both (comma-separated)")
    parser.add_argument("--grown", default="", help="also Claude Code and Codex sessions of these record counts")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average at start: {load()}", flush=True)
    if args.files:
        for name in args.files.split(","):
            bench_file(Path(name), Path(name).name, args.repeat)
    else:
        for size in parse_sizes(args.sizes):
            for compacted in (kind == "compacted" for kind in args.sessions.split(",")):
                for spelling in args.spellings.split(","):
                    label = f"pi {size // 1000}k {spelling}" + ("" if compacted else " nocomp")
                    bench_file(session_file(size, spelling, compacted=compacted), label, args.repeat)
    for records in parse_sizes(args.grown) if args.grown else []:
        for agent in ("claude-code", "codex"):
            bench_file(grown_file(agent, records), f"{agent} {records // 1000}k", args.repeat)
    print(f"load average at end: {load()}  ({os.cpu_count()} cores)", flush=True)


if __name__ == "__main__":
    main()
