"""How many of a Claude Code file's entries the end of its reading changes: the rows the streamed import rewrites.

Claude Code's reader builds each entry from its line, then, once the whole file is read,
re-parents the active chain into one line (`linearize`), keeps an API message's usage on
its last block record (`usage_once_per_call`) and marks continuation blocks
(`mark_continuations`). An import that writes each row as its line is read (as pi's
streamed import does, core/store/streamed.py) must rewrite the rows of the entries these
steps change; this counts them (their serialized models before and after), and the
entries a compaction summary read later fills in.

    python bench/cc_fixups.py [FILE ...]   (default: the grown 10k and 50k sessions, bench/grow_sessions.py)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from grow_sessions import grown_file

from cutline.core.agents import read_session
from cutline.core.agents.claude_code import reader
from cutline.core.models import Entry, Problem
from cutline.core.store.rows import model_json


def fixups(path: Path) -> tuple[int, int, int, int]:
    """(entries, changed at the end, re-parented, compactions) of one Claude Code file."""
    built: dict[int, str] = {}
    parents: dict[int, str | None] = {}
    linearize = reader.linearize

    def snapshot_first(entries: list[Entry], leaf_id: str | None, file: str, problems: list[Problem]) -> str | None:
        for entry in entries:
            built[id(entry)] = model_json(entry)
            parents[id(entry)] = entry.parentId
        return linearize(entries, leaf_id, file, problems)

    reader.linearize = snapshot_first  # type: ignore[assignment]
    try:
        session = read_session(path)
    finally:
        reader.linearize = linearize  # type: ignore[assignment]
    entries = session.entries
    changed = sum(1 for e in entries if model_json(e) != built[id(e)])
    moved = sum(1 for e in entries if e.parentId != parents[id(e)])
    compactions = sum(1 for e in entries if e.type == "compaction")
    return len(entries), changed, moved, compactions


def main() -> None:
    files = [Path(a) for a in sys.argv[1:]] or [grown_file("claude-code", n) for n in (10_000, 50_000)]
    for path in files:
        started = time.perf_counter()
        total, changed, moved, compactions = fixups(path)
        print(
            f"{path.name}: {total} entries, {changed} changed at the end ({100 * changed / max(total, 1):.1f}%),"
            f" {moved} re-parented, {compactions} compactions ({time.perf_counter() - started:.1f} s)"
        )


if __name__ == "__main__":
    main()
