"""Codex's PostCompact hook: a compaction Codex just made goes into cutline's inbox, after the fact.

Codex's hooks can neither block a compaction nor give it a summary; PostCompact tells which
rollout was compacted (`transcript_path`, `session_id`, `trigger`). The hook reads what is
new in that rollout, as the folder scan does (core.inbox.scan), so the compaction is listed
once whichever finds it first; an encrypted remote compaction is listed as unreadable.
Whatever goes wrong, the hook prints nothing and exits 0: Codex goes on as usual.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from cutline.core.inbox.items import Inbox
from cutline.core.inbox.scan import Scanner
from cutline.core.store import Store

MAX_EVENT_BYTES = 1024 * 1024


def post_compact(text: str, db_path: str | None = None) -> str:
    """The hook's stdout for Codex's PostCompact event `text`: always empty (Codex takes nothing from it)."""
    try:
        if len(text) > MAX_EVENT_BYTES:
            raise ValueError(f"event of {len(text):,} bytes is larger than {MAX_EVENT_BYTES:,}")
        event: Any = json.loads(text)
        if not isinstance(event, dict):
            raise ValueError("the event is not a JSON object")
        transcript = event.get("transcript_path")
        if not isinstance(transcript, str) or not transcript:
            raise ValueError("the event names no transcript_path")
        if not Path(transcript).is_file():
            raise ValueError(f"{transcript} is not a file")
        trigger = event.get("trigger")
        with Store(db_path) as store:
            report = Scanner(store).scan_one("codex", Path(transcript))
            inbox = Inbox(store)
            for item in report.items:
                how = trigger if isinstance(trigger, str) else "?"
                inbox.note(item.id, f"reported by Codex's PostCompact hook ({how} compaction)")
        if report.items:
            ids = ", ".join(item.id for item in report.items)
            sys.stderr.write(f"cutline: this compaction is in the inbox for review after the fact ({ids})\n")
    except Exception as exc:
        sys.stderr.write(f"cutline: the compaction was not put in the inbox ({type(exc).__name__}: {exc})\n")
    return ""
