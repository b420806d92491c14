"""A stored proposal of a truth-set session, for the accept-findings tests (CLI and desk)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from tests.support.paths import TESTS

TRUTH = TESTS / "fixtures" / "truth" / "sessions"


def proposal_of_a_truth_session(tmp_path: Path) -> tuple[Path, str, str]:
    """A truth session with two turns appended, compacted into a store: (file, database, proposal id)."""
    from cutline.app.cli import cli

    path = tmp_path / "session.jsonl"
    shutil.copyfile(TRUTH / "tune-08-pi-chatbot.jsonl", path)
    last = json.loads(path.read_text().splitlines()[-1])["id"]
    turns = [
        {"role": "user", "content": [{"type": "text", "text": "Keep going with the retries."}], "timestamp": 1},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Working on the retries."}],
            "timestamp": 2,
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "m",
            "stopReason": "stop",
            "usage": {"input": 9000, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 9005},
        },
    ]
    with path.open("a") as out:
        for n, message in enumerate(turns):
            entry = {
                "type": "message",
                "id": f"added{n:02d}",
                "parentId": last,
                "timestamp": "2026-11-21T10:00:00.000Z",
                "message": message,
            }
            out.write(json.dumps(entry) + "\n")
            last = entry["id"]
    db = str(tmp_path / "c.db")
    made = CliRunner().invoke(cli, ["compact", str(path), "--keep-recent-tokens", "10", "--json", "--db", db])
    assert made.exit_code == 0, made.output
    return path, db, json.loads(made.output)["id"]
