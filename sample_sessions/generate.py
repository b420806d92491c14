"""Write every sample session in this folder, deterministically (fixed seeds and clocks).

Run: python sample_sessions/generate.py   (writes the .jsonl files next to this script)
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _gen import claude_code, codex, coding, compactions, displaced, jobsearch, misc  # noqa: E402


def main() -> None:
    coding.build().write(str(HERE / "pi-coding-session.jsonl"))
    jobsearch.build().write(str(HERE / "pi-job-search.jsonl"))
    d = displaced.build()
    last_real, cut = displaced.kept_window_check(d)
    if cut <= last_real:
        raise SystemExit(f"displaced sample lost its property: cut {cut} <= last real user {last_real}")
    d.write(str(HERE / "pi-displaced-last-exchange.jsonl"))
    compactions.one_compaction().write(str(HERE / "pi-one-compaction.jsonl"))
    compactions.two_compactions().write(str(HERE / "pi-two-compactions.jsonl"))
    misc.branched().write(str(HERE / "pi-branched.jsonl"))
    misc.v1_legacy().write(str(HERE / "pi-v1-legacy.jsonl"), legacy_v1=True)
    misc.v2_hookmessage().write(str(HERE / "pi-v2-hookmessage.jsonl"))
    claude_code.build().write(str(HERE / "claude-code-compacted.jsonl"))
    codex.build().write(str(HERE / "codex-rollout-compacted.jsonl"))


if __name__ == "__main__":
    main()
