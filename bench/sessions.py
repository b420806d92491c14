"""The benches' inputs: generated pi sessions at 1k / 10k / 100k entries in both JSON spellings.

pi writes compact JSON (`{"a":1,"b":2}`); a file re-serialized by another tool (or by
Python's `json.dumps` defaults) has spaces after `:` and `,`. Both must be fast, so
every bench runs on both: the spaced file is the compact one re-dumped line by line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_large_session import generate

SIZES = (1_000, 10_000, 100_000)
SPELLINGS = ("compact", "spaced")
DIR = Path("/tmp/cutline-bench-sessions")


def session_file(entries: int, spelling: str = "compact", directory: Path = DIR, *, compacted: bool = True) -> Path:
    """The generated session of `entries` entries in `spelling`, written on first use (deterministic).

    `compacted` False: the same generator with no compaction ever inserted (`-nocomp` in the name).
    """
    tag = "" if compacted else "-nocomp"
    compact = directory / f"pi-{entries}{tag}-compact.jsonl"
    if not compact.exists():
        generate(compact, entries, 7, compactions=compacted)
    if spelling == "compact":
        return compact
    spaced = directory / f"pi-{entries}{tag}-spaced.jsonl"
    if not spaced.exists():
        tmp = spaced.with_suffix(".tmp")
        with open(compact, encoding="utf-8") as src, open(tmp, "w", encoding="utf-8", newline="\n") as out:
            for line in src:
                out.write(json.dumps(json.loads(line), ensure_ascii=False) + "\n")
        tmp.replace(spaced)
    return spaced


def parse_sizes(text: str) -> list[int]:
    """`1k,10k,100k` (or plain numbers) as entry counts."""
    out = []
    for part in text.split(","):
        part = part.strip().lower()
        out.append(int(float(part[:-1]) * 1000) if part.endswith("k") else int(part))
    return out


if __name__ == "__main__":
    for size in SIZES:
        for spelling in SPELLINGS:
            path = session_file(size, spelling)
            print(f"{path}: {path.stat().st_size / 1e6:.1f} MB")
