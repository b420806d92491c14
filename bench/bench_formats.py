"""Times read_session on the large realistic pi session against bare `json.loads` per line.

Run by hand: `python bench/bench_formats.py [entries]` (default 100000, about 95 MB, made
by gen_large_session.py). Prints CPU times (process time, so other load on the machine
matters less) and ratios; the target is about 2x bare json.loads.
"""

from __future__ import annotations

import gc
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_large_session import generate

from cutline.core.agents import read_session


def main() -> None:
    entries = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.jsonl"
        generate(path, entries)
        size = path.stat().st_size
        best_base = best_nogc = best_read = float("inf")
        for _ in range(3):
            start = time.process_time()
            values = [json.loads(line) for line in path.read_bytes().decode().split("\n") if line]
            best_base = min(best_base, time.process_time() - start)
            del values
            gc.disable()
            start = time.process_time()
            values = [json.loads(line) for line in path.read_bytes().decode().split("\n") if line]
            best_nogc = min(best_nogc, time.process_time() - start)
            gc.enable()
            del values
            start = time.process_time()
            session = read_session(path)
            best_read = min(best_read, time.process_time() - start)
            errors = [p for p in session.problems if p.severity == "error"]
            assert not errors, errors[:3]
            count = len(session.entries)
            del session
        print(f"{count} entries, {size / 1e6:.1f} MB")
        print(f"json.loads per line: {best_base:.2f} s")
        print(f"json.loads, no GC:   {best_nogc:.2f} s")
        print(f"read_session:        {best_read:.2f} s")
        print(
            f"ratio: {best_read / best_base:.2f}x vs json.loads, {best_read / best_nogc:.2f}x vs json.loads without GC"
        )


if __name__ == "__main__":
    main()
