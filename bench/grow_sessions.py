"""Claude Code and Codex sessions of 10k / 50k records for the benches, grown from sessions the real programs wrote.

See tests/support/grown_sessions.py: the file's opening records, then its real turns
repeated (new ids each time) as one long stretch with no compaction.

    python bench/grow_sessions.py [--records 10000,50000] [--dir /tmp/cutline-bench-sessions]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.grown_sessions import SOURCES, grow

DIR = Path("/tmp/cutline-bench-sessions")


def grown_file(agent: str, records: int, directory: Path = DIR) -> Path:
    """The grown session of `agent` with `records` records, written on first use."""
    path = directory / f"{agent}-{records}.jsonl"
    if not path.exists():
        grow(agent, records, path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", default="10000,50000")
    parser.add_argument("--dir", type=Path, default=DIR)
    args = parser.parse_args()
    for agent in SOURCES:
        for records in (int(r) for r in args.records.split(",")):
            path = grown_file(agent, records, args.dir)
            print(f"{path}: {records} records, {path.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
