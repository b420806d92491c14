"""The proposals `cutline compact` makes offline, as digests: every field but the proposal's id, time and timings.

Why: the summarized span is read a slice at a time (core.engine.span), and the proposal
must stay byte for byte what the whole-list reading made. tests/fixtures/proposal_digests.json
holds the digests main made before that change (written by `--write` on main, never by
the code under test); tests/unit/test_span_proposals.py compares against them.

    python -m tests.support.proposal_digests --write   # on main only: records its proposals
    python -m tests.support.proposal_digests           # prints the cases that differ
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.support.paths import ROOT, TESTS
from tests.support.session_files import SESSION_FILES

DIGESTS = TESTS / "fixtures" / "proposal_digests.json"
# every mode and rule set that works offline, with a keepRecentTokens small enough to summarize something
VARIANTS: dict[str, list[str]] = {
    "default": [],
    "pi-1500": ["--keep-recent-tokens", "1500"],
    "pi-0.73": ["--keep-recent-tokens", "400", "--rules", "pi-0.73"],
    "openclaw": ["--keep-recent-tokens", "1500", "--rules", "openclaw-2026.9"],
    "safeguard": ["--mode", "safeguard", "--keep-recent-tokens", "1500"],
    "staged": ["--keep-recent-tokens", "400", "--rules", "pi-0.73", "--parts", "3", "--max-chunk-tokens", "3000"],
    "preview-last-turn": ["--keep-recent-tokens", "1500", "--preview-style", "--last-turn"],
    "first-and-tail": ["--mode", "first-and-tail"],
    "system-and-summary": ["--mode", "system-and-summary"],
}
# the generated uncompacted session (bench/gen_large_session.py --no-compactions) and the variants run on it
LARGE_ENTRIES = 10_000
LARGE_VARIANTS = ["default", "pi-0.73", "openclaw", "safeguard", "first-and-tail", "system-and-summary"]
# the session's store id too: a file whose session id another stored file has is stored under that id and a
# suffix made from its path, which is where the checkout is
_VOLATILE = ("id", "created_at", "entryId", "timings", "session_id")

# the date the injected turns carry (OpenClaw's memory flush names memory/YYYY-MM-DD.md): the day the digests
# were recorded, so that they do not depend on the day they are compared
DIGEST_DATE = dt.date(2026, 12, 2)

Run = Callable[..., tuple[int, str, str]]


def large_session(directory: Path) -> Path:
    """The generated 10k-entry pi session with no compaction (seed 7, as the bench writes it)."""
    from tests.support.sessions import _generator

    path = directory / f"pi-{LARGE_ENTRIES}-nocomp.jsonl"
    if not path.exists():
        _generator().generate(path, LARGE_ENTRIES, 7, compactions=False)
    return path


def digest(code: int, out: str, err: str) -> str:
    """A proposal's digest: every field but the volatile ones (or the exit code and message of a refusal)."""
    if code != 0:
        text = f"exit {code}: {err.strip()}"
    else:
        data: dict[str, Any] = json.loads(out)
        text = json.dumps({k: v for k, v in data.items() if k not in _VOLATILE}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def cases(directory: Path, *, large: bool = True) -> Iterator[tuple[str, Path, list[str]]]:
    """(key, session file, extra arguments) of every case: each session file under every variant."""
    for file in SESSION_FILES:
        for name, extra in VARIANTS.items():
            yield f"{file.relative_to(ROOT)}::{name}", file, extra
    if large:
        big = large_session(directory)
        for name in LARGE_VARIANTS:
            yield f"generated-{LARGE_ENTRIES}-nocomp::{name}", big, VARIANTS[name]


def compact_digests(run: Run, directory: Path, *, large: bool = True) -> dict[str, str]:
    """The digest of every case, each `compact` run in process by `run(*args)` (one store for all)."""
    found: dict[str, str] = {}
    for key, file, extra in cases(directory, large=large):
        found[key] = digest(*run("compact", "--summarizer", "extractive", "--json", *extra, str(file)))
    return found


def _run_main(*args: str) -> tuple[int, str, str]:
    import contextlib
    import io

    from cutline.app.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return code, out.getvalue(), err.getvalue()


def main() -> None:
    import cutline.core.engine.compact as compact

    compact.utc_today = lambda: DIGEST_DATE  # type: ignore[assignment]
    with tempfile.TemporaryDirectory() as home:
        os.environ["CUTLINE_HOME"] = str(Path(home) / "cutline")
        os.environ["HOME"] = home
        for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
            os.environ.pop(name, None)
        found = compact_digests(_run_main, Path(home))
    if "--write" in sys.argv:
        DIGESTS.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
        print(f"{len(found)} digests written to {DIGESTS}")
        return
    known = json.loads(DIGESTS.read_text())
    differ = [key for key in found if known.get(key) != found[key]]
    print("\n".join(differ) or f"all {len(found)} the same")


if __name__ == "__main__":
    main()
