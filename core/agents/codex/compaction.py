"""The `compacted` record Codex (0.169) resumes from, made for an accepted cutline summary.

Codex rebuilds its history from the last `compacted` record's `replacement_history`,
verbatim, then the items after it (tests/fixtures/corpus/codex, README "Compaction").
cutline writes the rebuilt context there: the summary as a user message with Codex's
own prefix (docs/rules/agent-prompts.md), then the kept items exactly as the rollout
holds them. The record carries `ordinal` = last + 1: Codex refuses a rollout whose last
line has none.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from itertools import chain
from typing import Any

from cutline.core.agents.context import context_weight
from cutline.core.agents.entries import StableIds
from cutline.core.models import CompactionRecord, Entry, Session

# Codex's summary prefix (compact.rs SUMMARY_PREFIX); the summary follows on the next line
SUMMARY_PREFIX = (
    "Another language model started to solve this problem and produced a summary of its thinking process. "
    "You also have access to the state of the tools that were used by that language model. Use this to build "
    "on the work that has already been done and avoid duplicating work. Here is the summary produced by the "
    "other language model, use the information in this summary to assist with your own analysis:"
)


class NotWritable(ValueError):
    """This rollout or this compaction cannot be written as a Codex record (the message says why)."""


def summary_text(summary: str) -> str:
    """The summary as Codex puts it into the history it rebuilds."""
    return f"{SUMMARY_PREFIX}\n{summary}"


def _raw(entry: Entry) -> dict[str, Any]:
    return _raw_line(entry.raw_line)


def _raw_line(line: str | None) -> dict[str, Any]:
    try:
        value = json.loads(line) if line else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def kept_items(session: Session, first_kept: str | None) -> list[dict[str, Any]]:
    """The history items kept verbatim: the sent `response_item` payloads from `first_kept` to the leaf."""
    if first_kept is None:
        return []
    path = session.active_path()
    ids = [e.id for e in path]
    if first_kept not in ids:
        raise NotWritable(f"the first kept item {first_kept} is not on the rollout's path")
    start = ids.index(first_kept)
    if any(e.type == "compaction" for e in path[start:]):
        raise NotWritable("the kept part holds an earlier compaction; make a proposal that keeps only what follows it")
    weights = context_weight(path)
    items: list[dict[str, Any]] = []
    for entry, weight in zip(path[start:], weights[start:], strict=True):
        raw = _raw(entry)
        payload = raw.get("payload")
        if weight and raw.get("type") == "response_item" and isinstance(payload, dict):
            items.append(payload)
    return items


NO_ORDINAL = "the rollout's lines carry no `ordinal` (written by a Codex before 0.16x); Codex 0.169 would not resume it"


def last_ordinal(session: Session) -> int:
    """The highest `ordinal` in the rollout (the header's included); refused when the last line has none."""
    raws = [_raw(e) for e in session.entries]
    header = json.loads(session.header_line) if session.header_line else {}
    last = raws[-1] if raws else header
    highest = _highest([header, *raws])
    if highest is None or not isinstance(last.get("ordinal"), int):
        raise NotWritable(NO_ORDINAL)
    return highest


def _highest(lines: Iterable[dict[str, Any]]) -> int | None:
    """The highest integer `ordinal` of `lines` (a boolean is none), each looked at once and let go."""
    numbers = (n for r in lines if isinstance(n := r.get("ordinal"), int) and not isinstance(n, bool))
    return max(numbers, default=None)


def highest_ordinal(header_line: str | None, lines: Iterable[str]) -> int | None:
    """`last_ordinal`'s number from the header line and the rollout's other raw lines (as the store holds them).

    None when no line carries a number, or the header is no JSON object. The caller knows
    already that the last line carries one (`has_last_ordinal`). Why: the accept preview of
    a 50,000-line rollout rebuilt every line as a model only for this number.
    """
    try:
        header = json.loads(header_line) if header_line else {}
    except ValueError:
        return None
    if not isinstance(header, dict):
        return None
    return _highest(chain([header], (_raw_line(line) for line in lines)))  # one line parsed at a time


def has_last_ordinal(header_line: str | None, last: Entry | None) -> bool | None:
    """Whether `last_ordinal` answers (True) or refuses (False), from the header and the last entry alone.

    `last`: the rollout's last entry in file order (None: it has none). None when the other
    lines are needed: the last line's `ordinal` is a JSON boolean, which passes the last
    line's test but is no number, and the header carries none.
    """
    header = json.loads(header_line) if header_line else {}
    if not isinstance(header, dict):
        return None
    line = _raw(last) if last is not None else header
    ordinal = line.get("ordinal")
    if not isinstance(ordinal, int):
        return False
    if not isinstance(ordinal, bool):
        return True
    first = header.get("ordinal")
    return True if isinstance(first, int) and not isinstance(first, bool) else None


def compacted_record(
    session: Session, record: CompactionRecord, *, timestamp: str, last: int | None = None
) -> dict[str, Any]:
    """The `compacted` line for `record`: ordinal last + 1, the prefixed summary, the rebuilt history.

    `last`: the rollout's highest ordinal when known already (`session` then need hold only
    the path from the first kept item to its end); else `last_ordinal` of `session`.
    """
    message = summary_text(record.summary)
    summary_item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": message}]}
    history = [summary_item, *kept_items(session, record.firstKeptEntryId)]
    return {
        "timestamp": timestamp,
        "ordinal": (last if last is not None else last_ordinal(session)) + 1,
        "type": "compacted",
        "payload": {"message": message, "replacement_history": history},
    }


def dumps(value: Any) -> str:
    """JSON as Codex writes its rollout (serde_json: no spaces, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def compaction_payload(session: Session, record: CompactionRecord, *, timestamp: str, last: int | None = None) -> bytes:
    """The exact bytes appended: one line ending in the rollout's newline (`last`: as for `compacted_record`)."""
    record_line = compacted_record(session, record, timestamp=timestamp, last=last)
    return (dumps(record_line) + session.newline).encode("utf-8")


def new_entry_id(session: Session, line: int) -> str:
    """The id cutline's reader gives the line appended at `line` (1-based), so the returned entry matches a re-read."""
    header_id = session.header.get("id")
    seed = header_id if isinstance(header_id, str) else session.id  # the store may have renamed a duplicate id
    return StableIds(seed, {e.id for e in session.entries}).make(line)
