"""Write every sample session, deterministically (fixed seeds and clocks).

Run: python sample_sessions/generate.py [OUT_DIR]   (default: next to this script)
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _gen import claude_code, codex, coding, compactions, displaced, jobsearch, misc  # noqa: E402

FILES = [
    "pi-coding-session.jsonl",
    "pi-job-search.jsonl",
    "pi-displaced-last-exchange.jsonl",
    "pi-one-compaction.jsonl",
    "pi-two-compactions.jsonl",
    "pi-branched.jsonl",
    "pi-v1-legacy.jsonl",
    "pi-v2-hookmessage.jsonl",
    "claude-code-compacted.jsonl",
    "codex-rollout-compacted.jsonl",
]


def main(out: Path = HERE) -> None:
    out.mkdir(parents=True, exist_ok=True)
    coding.build().write(str(out / "pi-coding-session.jsonl"))
    jobsearch.build().write(str(out / "pi-job-search.jsonl"))
    d = displaced.build()
    last_real, cut = displaced.kept_window_check(d)
    if cut <= last_real:
        raise SystemExit(f"displaced sample lost its property: cut {cut} <= last real user {last_real}")
    d.write(str(out / "pi-displaced-last-exchange.jsonl"))
    compactions.one_compaction().write(str(out / "pi-one-compaction.jsonl"))
    compactions.two_compactions().write(str(out / "pi-two-compactions.jsonl"))
    misc.branched().write(str(out / "pi-branched.jsonl"))
    misc.v1_legacy().write(str(out / "pi-v1-legacy.jsonl"), legacy_v1=True)
    misc.v2_hookmessage().write(str(out / "pi-v2-hookmessage.jsonl"))
    claude_code.build().write(str(out / "claude-code-compacted.jsonl"))
    codex.build().write(str(out / "codex-rollout-compacted.jsonl"))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
