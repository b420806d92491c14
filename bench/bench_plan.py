"""Time cutline's planner on a large pi session next to pi's own prepareCompaction on the same file.

(a) In process, counts cached: the per-entry chars4 counts are given (as the store
    caches them). Reported: building the path index once (settings-independent,
    O(n)), then one plan per keepRecentTokens from that index (target < 10 ms at
    100k entries), and index + plan together. pi's figure is the oracle's `ms`: one
    prepareCompaction call, which walks the path every time.
(b) Cold whole process: `cutline plan --json FILE` with a fresh CUTLINE_HOME, so it
    reads the file, imports it into the store, counts every entry, caches the counts
    and plans; next to the oracle's whole process (node start, parse, migrate,
    prepareCompaction) with one keepRecentTokens value. Also the warm run (same
    store, file unchanged: read, recognize, cached counts, plan).

Both sides run in the same session of this script, on the same file, so the ratio
is meaningful even on a busy machine. Every plan is checked against pi's answer.

    python bench/bench_plan.py [--file /tmp/cutline-100k.jsonl] [--repeat 5]

Needs node for the oracle (../shared/tools/pi-oracle/run); without it, only our side is shown.
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
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ORACLE = ROOT.parent / "shared" / "tools" / "pi-oracle" / "run"
KEEPS = (2000, 20000, 50000)


def _oracle(file: Path, keeps: tuple[int, ...]) -> tuple[dict | None, float | None]:
    if not ORACLE.exists() or shutil.which("node") is None:
        return None, None
    start = time.perf_counter()
    out = subprocess.run([str(ORACLE), str(file), *map(str, keeps)], capture_output=True, text=True, check=True).stdout
    return json.loads(out), time.perf_counter() - start


def in_process(file: Path, repeat: int, oracle: dict | None) -> None:
    from cutline.core.agents import read_session
    from cutline.core.config.settings import CompactionSettings
    from cutline.core.engine.plan import index_path, plan
    from cutline.core.tokens import path_tokens

    session = read_session(file)
    path = session.active_path()
    tokens = path_tokens(path, "chars4")
    print(f"\n(a) planning {len(path):,} path entries with counts given")
    builds = []
    for _ in range(repeat):
        start = time.perf_counter()
        index = index_path(path, tokens)
        index.context_estimate()  # tokensBefore: settings-independent, part of the index
        builds.append(time.perf_counter() - start)
    build_ms = statistics.median(builds) * 1000
    print(f"  index build (once per path): {build_ms:9.1f} ms")
    print(
        f"  {'keep':>7} {'plan from index':>16} {'index + plan':>13} {'pi prepareCompaction':>21} {'pi / ours':>10}  parity"
    )
    for keep in KEEPS:
        settings = CompactionSettings(keepRecentTokens=keep)
        plan(index, settings)  # first plan also resolves the previous compaction's boundary once
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            result = plan(index, settings)
            times.append(time.perf_counter() - start)
        ours = statistics.median(times) * 1000
        fresh = []
        for _ in range(max(1, repeat // 2)):
            start = time.perf_counter()
            plan(path, settings, tokens=tokens)
            fresh.append(time.perf_counter() - start)
        fresh_ms = statistics.median(fresh) * 1000
        pi_ms = ratio = parity = "-"
        if oracle is not None:
            expected = oracle["plans"][str(keep)]
            pi_ms = f"{expected['ms']:.1f} ms"
            ratio = f"{expected['ms'] / ours:.0f}x"
            same = (
                result.firstKeptPathIndex == expected["firstKeptPathIndex"]
                and result.isSplitTurn == expected["isSplitTurn"]
                and result.tokensBefore == expected["tokensBefore"]
                and result.messagesToSummarize == expected["messagesToSummarize"]
                and result.turnPrefixMessages == expected["turnPrefixMessages"]
                and result.readFiles == expected["readFiles"]
            )
            parity = "same" if same else "DIFFERENT"
        print(f"  {keep:>7} {ours:13.2f} ms {fresh_ms:10.1f} ms {pi_ms:>21} {ratio:>10}  {parity}")


def _run(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def whole_process(file: Path, repeat: int) -> None:
    cutline = shutil.which("cutline", path=str(Path(sys.executable).parent)) or "cutline"
    print("\n(b) whole process, keepRecentTokens 20000")
    colds, warms = [], []
    for _ in range(repeat):
        home = tempfile.mkdtemp(prefix="cutline-bench-")
        env = {**os.environ, "CUTLINE_HOME": home}
        colds.append(_run([cutline, "plan", "--json", "--keep-recent-tokens", "20000", str(file)], env))
        warms.append(_run([cutline, "plan", "--json", "--keep-recent-tokens", "20000", str(file)], env))
        shutil.rmtree(home, ignore_errors=True)
    cold, warm = statistics.median(colds), statistics.median(warms)
    print(f"  cutline plan, cold (fresh store: read + import + count + plan): {cold:7.2f} s")
    print(f"  cutline plan, warm (stored, unchanged file, cached counts):     {warm:7.2f} s")
    if ORACLE.exists() and shutil.which("node"):
        pis = [_run([str(ORACLE), str(file), "20000"], dict(os.environ)) for _ in range(repeat)]
        pi = statistics.median(pis)
        print(f"  pi oracle whole process (node, parse, migrate, prepare):        {pi:7.2f} s")
        print(f"  cold / pi = {cold / pi:.2f}   warm / pi = {warm / pi:.2f}   (target: cold <= 1.00)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=Path("/tmp/cutline-100k.jsonl"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip-process", action="store_true", help="Only the in-process planning figures.")
    parser.add_argument("--skip-inprocess", action="store_true", help="Only the whole-process figures.")
    args = parser.parse_args()
    if not args.file.exists():
        sys.exit(f"{args.file} does not exist: python bench/gen_large_session.py -o {args.file}")
    print(f"file: {args.file} ({args.file.stat().st_size / 1e6:.1f} MB)")
    if not args.skip_inprocess:
        oracle, oracle_seconds = _oracle(args.file, KEEPS)
        if oracle_seconds is not None:
            print(f"pi oracle run with {len(KEEPS)} keep values: {oracle_seconds:.1f} s")
        in_process(args.file, args.repeat, oracle)
    if not args.skip_process:
        whole_process(args.file, max(1, args.repeat // 2))


if __name__ == "__main__":
    main()
