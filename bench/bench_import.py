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


def child_baseline(file: Path, db_path: Path) -> dict[str, float]:
    import sqlite3

    start = time.perf_counter()
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
    return {"seconds": time.perf_counter() - start, "peak_rss_mb": _peak_rss_mb(), "rows": len(rows)}


def child_import(file: Path, db_path: Path) -> dict[str, float]:
    from core.store import Store

    start = time.perf_counter()
    with Store(db_path) as store:
        report = store.import_file(file)
    return {"seconds": time.perf_counter() - start, "peak_rss_mb": _peak_rss_mb(), "rows": report.total}


def child_read(file: Path, db_path: Path) -> dict[str, float]:
    from core.formats import read_session

    start = time.perf_counter()
    session = read_session(file)
    return {"seconds": time.perf_counter() - start, "peak_rss_mb": _peak_rss_mb(), "rows": len(session.entries)}


def child_load(file: Path, db_path: Path) -> dict[str, float]:
    from core.store import Store

    with Store(db_path) as store:
        session_id = store.list_sessions()[0].id
        start = time.perf_counter()
        session = store.load_session(session_id)
        seconds = time.perf_counter() - start
    return {"seconds": seconds, "peak_rss_mb": _peak_rss_mb(), "rows": len(session.entries)}


def child_reimport(file: Path, db_path: Path) -> dict[str, float]:
    from core.store import Store

    with Store(db_path) as store:
        start = time.perf_counter()
        report = store.import_file(file)
        seconds = time.perf_counter() - start
    assert report.unchanged, "the re-import of an unchanged file should change nothing"
    return {"seconds": seconds, "peak_rss_mb": _peak_rss_mb(), "rows": report.total}


CHILDREN = {
    "baseline": child_baseline,
    "import": child_import,
    "read": child_read,
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

    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="cutline-bench-") as tmp:
        for kind in ("baseline", "read", "import", "reimport", "load"):
            best: dict[str, float] | None = None
            for attempt in range(args.repeat):
                if kind in ("baseline", "import"):
                    db_path = Path(tmp) / f"{kind}-{attempt}.db"
                else:
                    db_path = Path(tmp) / "import-0.db"
                result = run_child(kind, args.file, db_path)
                if best is None or result["seconds"] < best["seconds"]:
                    best = result
                if kind in ("baseline", "import") and attempt > 0:
                    for suffix in ("", "-wal", "-shm"):
                        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
            assert best is not None
            results[kind] = best
            print(
                f"{kind:>9}: {best['seconds']:7.2f} s  peak RSS {best['peak_rss_mb']:6.0f} MB  ({int(best['rows'])} rows)",
                flush=True,
            )
        db_size = sum(p.stat().st_size for p in Path(tmp).glob("import-0.db*")) / 1e6
    ratio = results["import"]["seconds"] / results["baseline"]["seconds"]
    read_share = results["read"]["seconds"] / results["import"]["seconds"]
    print(f"import / baseline: {ratio:.2f}x (target <= 2x)   peak RSS {results['import']['peak_rss_mb']:.0f} MB (target < 500 MB)")
    print(f"reading the file (core.formats.read_session) is {read_share:.0%} of the import time; store size {db_size:.0f} MB")
    print(f"load_session: {results['load']['seconds']:.2f} s for {int(results['load']['rows'])} entries")
    print(f"unchanged re-import: {results['reimport']['seconds']:.2f} s")


if __name__ == "__main__":
    os.environ.setdefault("CUTLINE_HOME", tempfile.mkdtemp(prefix="cutline-bench-home-"))
    main()
