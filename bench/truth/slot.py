"""The summarizer slot: the span a summarizer is given for each truth session, and the truth's score of its output.

    python bench/truth/slot.py [--summarizer extractive] [--split tune|heldout|all] [--show SESSION]

`span(file)` returns what the compaction under test summarized (the conversation
messages after the previous compaction's kept part up to the cut, and the previous
summary), read with cutline's own reader, so any summarizer can be run on it;
`request(file)` wraps it as a `SummaryRequest` (kind "update" when a previous summary
exists). The CLI runs a summarizer of the project over every session and scores the
output with the hand-written judges of the answer key (judge.py), per kind and split.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.truth.judge import KEY, judge_fact, load_key  # noqa: E402
from cutline.core.agents import read_session  # noqa: E402
from cutline.core.audit.report import audit_compaction  # noqa: E402
from cutline.core.models import Message  # noqa: E402
from cutline.core.summarizers import get_summarizer  # noqa: E402
from cutline.core.summarizers.base import SummaryRequest  # noqa: E402


@dataclass
class Span:
    session_id: str
    format: str
    messages: list[Message]
    previous_summary: str | None


def span(file: str | Path) -> Span:
    """The part of the session the latest compaction summarized, as messages, and the summary before it."""
    session = read_session(file)
    report = audit_compaction(session)
    summarized = set(report.summarized_entry_ids)
    path = session.path_to(report.target_id)
    previous: list[str] = []
    messages: list[Message] = []
    for entry in path:
        if entry.id not in summarized:
            continue
        if entry.type == "compaction" and entry.compaction is not None:
            previous.append(entry.compaction.summary)
        elif entry.message is not None and entry.isCompactSummary:
            previous.append(entry.message.text())
        elif entry.message is not None and entry.message.role not in ("compactionSummary", "branchSummary"):
            messages.append(entry.message)
    return Span(session.id, session.format, messages, "\n\n".join(previous) or None)


def request(file: str | Path) -> SummaryRequest:
    s = span(file)
    return SummaryRequest(
        kind="update" if s.previous_summary else "history", messages=s.messages, previous_summary=s.previous_summary
    )


def run(summarizer: str, split: str) -> dict[str, Any]:
    key = load_key()
    folder = KEY.parent
    chosen = get_summarizer(summarizer)
    summaries: dict[str, str] = {}
    for session in key["sessions"]:
        if split != "all" and session["split"] != split:
            continue
        summaries[session["id"]] = asyncio.run(chosen.summarize(request(folder / session["file"])))
    table: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for fact in key["facts"]:
        if fact["session"] not in summaries:
            continue
        verdict = judge_fact(fact, summaries[fact["session"]])
        row = table[(fact["split"], fact["kind"])]
        row[0] += verdict == "kept"
        row[1] += verdict == "contradicted"
        row[2] += 1
    return {"summaries": summaries, "table": dict(table)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--summarizer", default="extractive")
    parser.add_argument("--split", default="all", choices=("tune", "heldout", "all"))
    parser.add_argument("--show", help="print the summary of this session id")
    args = parser.parse_args()
    result = run(args.summarizer, args.split)
    print(f"{'split':8} {'kind':11} kept/total (contradicted)")
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for (split, kind), (kept, contra, total) in sorted(result["table"].items()):
        print(f"{split:8} {kind:11} {kept}/{total} ({contra})")
        for i, v in enumerate((kept, contra, total)):
            totals[split][i] += v
    for split, (kept, contra, total) in sorted(totals.items()):
        print(f"{split:8} {'ALL':11} {kept}/{total} = {kept / total:.0%} kept, {contra} contradicted")
    if args.show:
        print(result["summaries"].get(args.show, f"no session {args.show}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
