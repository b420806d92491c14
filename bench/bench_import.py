"""Time importing a large session into a fresh store, and loading it back, against a baseline measured in the same run.

The baseline is the least any importer must do: `json.loads` of every line plus an
`executemany` of the raw lines into an SQLite table, in one transaction. Each
measurement runs in its own child process, which reports its wall time and its
peak RSS, so the figures do not leak into each other.

    python bench/bench_import.py [--file /tmp/cutline-100k.jsonl] [--repeat 3]

Targets: import within 2x of the baseline, peak RSS under 500 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _peak_rss_mb() -> float:
    # ru_maxrss is in kilobytes on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class _Timer:
    """Wall and CPU seconds of a block; CPU time is steadier on a shared machine."""

    def __enter__(self) -> _Timer:
        self.wall, self.cpu = time.perf_counter(), _cpu()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall, self.cpu = time.perf_counter() - self.wall, _cpu() - self.cpu

    def result(self, rows: int) -> dict[str, float]:
        return {"seconds": self.wall, "cpu": self.cpu, "peak_rss_mb": _peak_rss_mb(), "rows": rows}


def child_baseline(file: Path, db_path: Path) -> dict[str, float]:
    import sqlite3

    with _Timer() as timer:
        conn = sqlite3.connect(db_path)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("CREATE TABLE lines (n INTEGER PRIMARY KEY, type TEXT, raw TEXT)")
        with open(file, encoding="utf-8") as handle:
            rows = []
            for number, line in enumerate(handle, start=1):
                text = line.rstrip("\n")
                value = json.loads(text)
                rows.append((number, value.get("type"), text))
        with conn:
            conn.executemany("INSERT INTO lines VALUES (?, ?, ?)", rows)
        conn.close()
    return timer.result(len(rows))


def child_import(file: Path, db_path: Path) -> dict[str, float]:
    from cutline.core.store import Store

    with _Timer() as timer, Store(db_path) as store:
        report = store.import_file(file)
    return timer.result(report.total)


def child_read(file: Path, db_path: Path) -> dict[str, float]:
    from cutline.core.agents import read_session

    with _Timer() as timer:
        session = read_session(file)
    return timer.result(len(session.entries))


def child_store(file: Path, db_path: Path) -> dict[str, float]:
    """The store's own share: writing an already-read session."""
    from cutline.core.agents import read_session
    from cutline.core.store import Store

    session = read_session(file)
    with _Timer() as timer, Store(db_path) as store:
        report = store.import_session(session)
    return timer.result(report.total)


def child_load(file: Path, db_path: Path) -> dict[str, float]:
    from cutline.core.store import Store

    with Store(db_path) as store:
        session_id = store.list_sessions()[0].id
        with _Timer() as timer:
            session = store.load_session(session_id)
    return timer.result(len(session.entries))


def child_reimport(file: Path, db_path: Path) -> dict[str, float]:
    from cutline.core.store import Store

    with Store(db_path) as store, _Timer() as timer:
        report = store.import_file(file)
    assert report.unchanged, "the re-import of an unchanged file should change nothing"
    return timer.result(report.total)


CHILDREN = {
    "baseline": child_baseline,
    "import": child_import,
    "read": child_read,
    "store": child_store,
    "load": child_load,
    "reimport": child_reimport,
}


def run_child(kind: str, file: Path, db_path: Path) -> dict[str, float]:
    """Run one measurement in a fresh interpreter and return what it reported."""
    completed = subprocess.run(
        [sys.executable, __file__, "--child", kind, "--file", str(file), "--db", str(db_path)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    if completed.returncode != 0:
        raise SystemExit(f"{kind} child failed:\n{completed.stderr}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=Path("/tmp/cutline-100k.jsonl"))
    parser.add_argument("--repeat", type=int, default=1, help="runs of each measurement; the best is reported")
    parser.add_argument("--child", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    parser.add_argument("--db", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        print(json.dumps(CHILDREN[args.child](args.file, args.db)))
        return

    if not args.file.exists():
        from bench.gen_large_session import generate

        print(f"generating {args.file} ...", flush=True)
        generate(args.file)
    size_mb = args.file.stat().st_size / 1e6
    print(f"file: {args.file} ({size_mb:.1f} MB)")

    kinds = ("baseline", "read", "store", "import", "reimport", "load")
    fresh = {"baseline", "store", "import"}
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="cutline-bench-") as tmp:
        # the kinds are interleaved, so a noisy neighbour hurts all of them alike; the best run counts
        for attempt in range(args.repeat):
            for kind in kinds:
                db_path = Path(tmp) / (f"{kind}-{attempt}.db" if kind in fresh else "import-0.db")
                result = run_child(kind, args.file, db_path)
                if kind not in results or result["seconds"] < results[kind]["seconds"]:
                    results[kind] = result
                if kind in fresh and attempt > 0:
                    for suffix in ("", "-wal", "-shm"):
                        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        db_size = sum(p.stat().st_size for p in Path(tmp).glob("import-0.db*")) / 1e6
    for kind in kinds:
        best = results[kind]
        print(
            f"{kind:>9}: {best['seconds']:7.2f} s wall {best['cpu']:7.2f} s cpu"
            f"  peak RSS {best['peak_rss_mb']:6.0f} MB  ({int(best['rows'])} rows)"
        )
    base = results["baseline"]
    for label, kind in (("import", "import"), ("  of which reading", "read"), ("  of which storing", "store")):
        wall = results[kind]["seconds"] / base["seconds"]
        cpu = results[kind]["cpu"] / base["cpu"]
        print(f"{label} / baseline: {wall:.2f}x wall, {cpu:.2f}x cpu")
    print(
        f"target: import <= 2x the baseline, peak RSS < 500 MB (import peak {results['import']['peak_rss_mb']:.0f} MB)"
    )
    print(
        f"load_session: {results['load']['seconds']:.2f} s for {int(results['load']['rows'])} entries"
        f" ({results['load']['seconds'] / base['seconds']:.2f}x the baseline)"
    )
    print(f"unchanged re-import: {results['reimport']['seconds']:.2f} s; store size {db_size:.0f} MB")


if __name__ == "__main__":
    os.environ.setdefault("CUTLINE_HOME", tempfile.mkdtemp(prefix="cutline-bench-home-"))
    main()
