"""The write-back the golden was made from: a fixed session, a fixed summarizer, a fixed entry id and timestamp."""

from __future__ import annotations

import asyncio
import datetime as dt
import shutil
from pathlib import Path

from cutline.core import review
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compact import compact
from cutline.core.engine.plan import plan
from cutline.core.store import Store
from cutline.core.summarizers.base import Summarizer, SummaryRequest
from tests.golden_writeback.make_session import write_session

ENTRY_ID = "c0ffee01"
TIMESTAMP = "2026-01-01T01:00:00.000Z"
KEEP_RECENT_TOKENS = 300


class FixedSummarizer(Summarizer):
    """The same text for every request of a kind, so the written line never depends on a summarizer's wording."""

    name = "fixed"

    async def summarize(self, request: SummaryRequest) -> str:
        return {"turn_prefix": "## Original Request\nrun the parser tests"}.get(
            request.kind, "## Goal\nfix the parser tests"
        )


def write_back(workdir: Path) -> tuple[Path, review.Decision, Store]:
    """Make the session file in `workdir`, compact it, accept with write-back; returns (file, decision, store)."""
    path = write_session(workdir / "session.jsonl")
    store = Store(workdir / "cutline.db")
    session_id = store.import_file(path).session_id
    session = store.load_session(session_id)
    settings = CompactionSettings(keepRecentTokens=KEEP_RECENT_TOKENS)
    the_plan = plan(session.active_path(), settings)
    proposal = asyncio.run(compact(the_plan, session, FixedSummarizer(), settings, today=dt.date(2026, 1, 1)))
    proposal.entryId = ENTRY_ID
    review.save_proposal(store, proposal)
    decision = review.accept(store, proposal.id, write_back=True, timestamp=TIMESTAMP)
    return path, decision, store


LATER_LINE = (
    '{"type":"message","id":"f0000001","parentId":"c0ffee01","timestamp":"2026-01-01T01:01:00.000Z",'
    '"message":{"role":"user","content":[{"type":"text","text":"Continue with the quoting fix."}],"timestamp":1767229260000}}'
)


def append_later_message(path: Path) -> None:
    """The agent resumes: one user message after the compaction (a 'later' message in pi's context)."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(LATER_LINE + "\n")


if __name__ == "__main__":
    # by hand, with node: python -m tests.golden_writeback.writeback OUT_DIR, then run the pi oracle on OUT_DIR/session.jsonl
    import sys

    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    written, _, st = write_back(out)
    st.close()
    append_later_message(written)
    shutil.copy(written, out / "written.jsonl")
    print(written)
