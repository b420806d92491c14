"""The real Claude Code (2.1.331): its automatic compaction is blocked into cutline's inbox, then resumed reviewed.

Live and offline (tests/support/live_cc_turns.py): `cutline hook install claude-code` puts the
PreCompact hook in the test home's settings; a turn reporting 972,000 input tokens (between the 1M window's compaction threshold and its blocking limit) makes the
next one compact automatically; the hook blocks it and holds the session in the inbox. The test
edits the summary, accepts it through the CLI (written back into the transcript), and Claude
Code resumed from the file sends exactly that summary. In CI (CI=true) a missing program fails
the test; elsewhere it skips.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.support import live_cc_turns
from tests.support.live_clients import missing
from tests.support.live_review import review_place

EDITED = "## Goal\nThe person's summary of the Claude Code session. MARK-CC-EDITED"
RESUMED = "Resumed after the review. MARK-CC-RESUMED"


def _requests(logdir: Path) -> list[dict[str, Any]]:
    bodies = []
    for path in sorted(logdir.glob("req-*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        body = record.get("body")
        if isinstance(body, dict) and body.get("messages") and body.get("tools"):
            bodies.append(body)
    return bodies


def test_an_automatic_compaction_is_blocked_reviewed_and_resumed_from_the_written_summary(tmp_path: Path) -> None:
    why = missing("claude_code")
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the live review test needs the real Claude Code in CI: {why}")
        pytest.skip(why)
    with review_place(tmp_path) as place:  # nothing listens on its socket: Claude Code's hook does not wait
        home, work, logdir, env = place.home, place.work, place.logdir, place.env
        out = place.cutline("hook", "install", "claude-code", "--settings", str(home / ".claude" / "settings.json"))
        assert "added a PreCompact hook" in out
        spec = {"home": str(home), "cwd": str(work), "logdir": str(logdir), "session": ""}
        prompts = [
            "First turn: hello. " + " ".join(f"word{i}" for i in range(60)),
            "Second turn: more. " + " ".join(f"more{i}" for i in range(60)),
            "Big context turn @@usage 972000@@",
            "Turn after big usage: the compaction is held.",
        ]
        done = live_cc_turns.run({**spec, "prompts": prompts}, env)
        assert done.returncode == 0, done.stdout + done.stderr
        session = (logdir / "session_id").read_text()
        transcript = next((home / ".claude" / "projects").glob(f"*/{session}.jsonl"))
        assert '"compact_boundary"' not in transcript.read_text(), "Claude Code compacted despite the hook"
        items = json.loads(place.cutline("inbox", "--json"))
        assert len(items) == 1, items
        item = items[0]
        assert (item["agent"], item["reason"], item["live"]) == ("claude-code", "auto", False)
        assert item["session_file"] == str(transcript) and item["proposal_id"], item["notes"]
        # the person edits and accepts: written back into the transcript
        place.cutline("inbox", "edit", item["id"], "-", stdin=EDITED)
        assert f"accepted {item['id']}" in place.cutline("accept", item["id"])
        assert '"compact_boundary"' in transcript.read_text()
        before = len(_requests(logdir))
        done = live_cc_turns.run({**spec, "session": session, "prompts": [RESUMED]}, env)
        assert done.returncode == 0, done.stdout + done.stderr
        request = next(r for r in _requests(logdir)[before:] if RESUMED in json.dumps(r["messages"]))
        assert json.dumps(EDITED)[1:-1] in json.dumps(request["messages"][0]), json.dumps(request["messages"][0])[:800]
        users = [json.dumps(m) for m in request["messages"] if m["role"] == "user"]
        assert not any("First turn: hello" in u for u in users), "the summarized prompt is gone from the context"
        assert sum("Big context turn" in u for u in users) == 1, "the kept turns are there once"
        assert json.loads(place.cutline("inbox", "--json")) == []
