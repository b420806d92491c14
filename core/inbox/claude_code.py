"""Claude Code's PreCompact hook: block an automatic compaction and put the session in cutline's inbox.

Claude Code cannot take a summary from a hook, only be stopped (`decision: "block"`). The
session goes into the inbox with cutline's proposal of it; the person reviews it, accepts it
with write-back (`cutline accept ID` writes the compaction into the transcript) and resumes
with `claude --resume SESSION`. Whatever goes wrong here, the hook prints nothing and
Claude Code compacts as usual: a broken review never stops the agent.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from cutline.core.inbox.answers import make_proposal
from cutline.core.inbox.items import Inbox, NewItem
from cutline.core.inbox.wire import Hold
from cutline.core.store import Store

MAX_EVENT_BYTES = 1024 * 1024


def block_reason(item_id: str, session: str | None) -> str:
    resume = f"claude --resume {session}" if session else "claude --resume"
    return (
        f"cutline holds this compaction for review as {item_id}: review it in `cutline` "
        f"(or `cutline accept {item_id}` writes cutline's summary back), then `{resume}`"
    )


def pre_compact(text: str, db_path: str | None = None) -> str:
    """The hook's stdout for Claude Code's PreCompact event `text` (empty: let the compaction go ahead)."""
    try:
        if len(text) > MAX_EVENT_BYTES:
            raise ValueError(f"event of {len(text):,} bytes is larger than {MAX_EVENT_BYTES:,}")
        event: Any = json.loads(text)
        if not isinstance(event, dict):
            raise ValueError("the event is not a JSON object")
        transcript = event.get("transcript_path")
        session = event.get("session_id")
        trigger = event.get("trigger")
        hold = Hold(
            type="hold",
            agent="claude-code",
            sessionFile=transcript if isinstance(transcript, str) else None,
            sessionId=session if isinstance(session, str) else None,
            cwd=event.get("cwd") if isinstance(event.get("cwd"), str) else None,
            reason=trigger if isinstance(trigger, str) else None,
            customInstructions=event.get("custom_instructions") or None,
        )
        with Store(db_path) as store:
            inbox = Inbox(store)
            item = inbox.add(
                NewItem(
                    agent="claude-code",
                    live=False,
                    session_file=hold.sessionFile,
                    agent_session_id=hold.sessionId,
                    cwd=hold.cwd,
                    reason=hold.reason,
                    request=hold.model_dump(exclude={"type"}),
                )
            )
            try:
                make_proposal(store, item, hold)
            except Exception as exc:
                inbox.note(item.id, f"no proposal could be made: {exc}")
    except Exception as exc:
        sys.stderr.write(f"cutline: the compaction goes ahead without review ({type(exc).__name__}: {exc})\n")
        return ""
    return json.dumps({"decision": "block", "reason": block_reason(item.id, hold.sessionId)}) + "\n"
