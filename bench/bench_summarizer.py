"""Times the offline (extractive) summarizer alone against bare `json.loads` of the same file, in the same run.

    python bench/bench_summarizer.py [entries] [--profile]

The session is gen_large_session.py's uncompacted pi session (default 100,000 entries):
every message of its path is one span, as `cutline compact` hands the summarizer the
history of a session that never compacted. Reading the file into messages is not timed;
the summarizer's call is (process time, best of three, so other load matters less), and
so is `json.loads` of every line of the file. Target (issue 23, the speed issue's ratio):
the summarizer within 2x of json.loads.
"""

from __future__ import annotations

import cProfile
import gc
import json
import pstats
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from gen_large_session import generate  # noqa: E402

from cutline.core.agents import read_session  # noqa: E402
from cutline.core.summarizers.base import SummaryRequest  # noqa: E402
from cutline.core.summarizers.extractive import summarize_extractive  # noqa: E402

TARGET = 2.0


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    entries = int(args[0]) if args else 100_000
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "uncompacted.jsonl"
        generate(path, entries, compactions=False)
        session = read_session(path)
        messages = [e.message for e in session.active_path() if e.message is not None]
        request = SummaryRequest(messages=messages)
        base = summary = float("inf")
        text = ""
        for _ in range(3):
            gc.collect()
            start = time.process_time()
            with open(path, encoding="utf-8") as lines:
                for line in lines:
                    json.loads(line)
            base = min(base, time.process_time() - start)
            gc.collect()
            start = time.process_time()
            text = summarize_extractive(request)
            summary = min(summary, time.process_time() - start)
        if "--profile" in sys.argv:
            profile = cProfile.Profile()
            profile.runcall(summarize_extractive, request)
            pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
    ratio = summary / base
    print(f"{entries} entries, {len(messages)} messages, {path.name}")
    print(f"json.loads of every line: {base:.2f} s CPU")
    print(f"extractive summarizer:    {summary:.2f} s CPU ({len(text)} chars of summary)")
    print(f"ratio: {ratio:.2f}x (target <= {TARGET}x)")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
