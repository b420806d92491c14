"""The real OpenClaw (2026.9.6) asks cutline's compaction provider, which holds the compaction for review.

Live and offline (tests/support/live_cc_turns.py runs `openclaw agent --local` turn by turn against
the fake API): `cutline hook install openclaw` puts the provider plugin in OpenClaw's extensions
directory; the config selects it (`agents.defaults.compaction.provider = "cutline"`). A turn
reporting 195,000 input tokens makes the next one compact first; the plugin holds it in the inbox
while `cutline inbox --watch` listens; the test edits the summary and accepts it through the CLI;
OpenClaw's compaction then carries exactly that summary (with its own recent-turn sections after it)
and its next request starts from it. Slow (OpenClaw takes 15-50 s a turn): one scenario. In CI
(CI=true) a missing program fails the test; elsewhere it skips.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support import live_cc_turns
from tests.support.live_clients import missing, openclaw_store
from tests.support.live_review import review_place

EDITED = "## Goal\nThe person's summary of the OpenClaw session. MARK-OPENCLAW-EDITED"
AFTER = "Turn after big usage: compaction first. MARK-OC-AFTER"


def _compaction_summaries(store: Path) -> list[str]:
    import sqlite3

    conn = sqlite3.connect(store)
    try:
        rows = conn.execute("SELECT * FROM transcript_events").fetchall()
        names = [d[0] for d in conn.execute("SELECT * FROM transcript_events LIMIT 0").description]
    finally:
        conn.close()
    found = []
    for row in rows:
        record = dict(zip(names, row, strict=True))
        text = next((v for v in record.values() if isinstance(v, str) and '"compaction"' in v), None)
        if text is None:
            continue
        try:
            event: Any = json.loads(text)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "compaction":
            found.append(str(event.get("summary", "")))
    return found


@pytest.mark.timeout(1500)  # three OpenClaw turns: minutes on a busy machine
def test_openclaw_asks_cutline_and_compacts_with_the_accepted_summary(tmp_path: Path) -> None:
    why = missing("openclaw")
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the live review test needs the real OpenClaw in CI: {why}")
        pytest.skip(why)
    with review_place(tmp_path) as place:
        home, work, logdir, env = place.home, place.work, place.logdir, place.env
        out = place.cutline("hook", "install", "openclaw", "--state-dir", str(home / ".openclaw"), "--timeout", "240")
        assert f"wrote the plugin {home / '.openclaw' / 'extensions' / 'cutline-review'}" in out
        place.watch()
        spec = {
            "agent": "openclaw",
            "home": str(home),
            "cwd": str(work),
            "logdir": str(logdir),
            "session": "cutline-review-1",
            "openclaw_compaction": {"provider": "cutline"},
            "openclaw_plugins": {"entries": {"cutline-review": {"enabled": True}}},
            "prompts": [
                "First turn: hello. " + " ".join(f"word{i}" for i in range(60)),
                "Big usage turn @@usage 195000@@",
                AFTER,
            ],
        }
        answered: dict[str, Any] = {}

        def answer() -> None:  # as a person at the command line, while OpenClaw waits
            deadline = time.monotonic() + 1400
            while time.monotonic() < deadline:
                items = json.loads(place.cutline("inbox", "--json"))
                if items:
                    answered["item"] = items[0]
                    answered["start"] = json.loads(place.cutline("inbox", "show", items[0]["id"], "--json"))["summary"]
                    place.cutline("inbox", "edit", items[0]["id"], "-", stdin=EDITED)
                    answered["accept"] = place.cutline("accept", items[0]["id"])
                    return
                time.sleep(0.5)

        person = threading.Thread(target=answer, daemon=True)
        person.start()
        done = live_cc_turns.run(spec, env, timeout=1400)
        person.join(timeout=5)
        assert done.returncode == 0, done.stdout + done.stderr
        item = answered.get("item")
        assert item is not None, "no compaction reached the inbox"
        assert item["agent"] == "openclaw" and item["live"] is True
        assert f"accepted {item['id']}" in answered["accept"]
        # the person starts from cutline's summary of the messages OpenClaw handed its provider, in OpenClaw's sections
        start = answered["start"]
        assert start and "## Pending user asks" in start and "Big usage turn" in start, start
        assert "First turn: hello" in start, start
        summaries = _compaction_summaries(openclaw_store(home))
        assert len(summaries) == 1, summaries
        assert summaries[0].startswith(EDITED), summaries[0][:300]
        bodies = [json.loads(p.read_text())["body"] for p in sorted(logdir.glob("req-*.json"))]
        after = [b for b in bodies if AFTER in json.dumps(b.get("messages", []))]
        assert after, "no request after the compaction"
        first = json.dumps(after[-1]["messages"][0])
        assert json.dumps(EDITED)[1:-1] in first, f"the next request starts from the summary: {first[:400]}"
        shown = json.loads(place.cutline("inbox", "--json", "--all"))
        assert [(i["id"], i["status"], bool(i["delivered_at"])) for i in shown] == [(item["id"], "accepted", True)]
