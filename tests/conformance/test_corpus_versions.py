"""Which release of each program the conformance corpus covers: the manifest's versions, checked against the files.

Every entry's `version` must be what the session file itself records (Claude Code and Qwen Code on
each record, Codex in `session_meta.cli_version`, opencode in its store's `session.version`), so a list here cannot drift from the corpus.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict

from tests.conformance.requests import CORPUS, load_manifest

# the releases each agent's corpus covers (README, "Supported agents")
COVERED = {
    "claude-code": {"2.1.331", "2.1.332"},
    "codex": {"0.169.0", "0.171.0"},
    "pi-0.73": {"0.73.1"},
    "pi-0.87": {"0.87.1"},
    "openclaw": {"2026.9.6"},
    "qwen-code": {"0.24.4"},
    "opencode": {"1.18.33"},
}


def _recorded_version(agent: str, session_file: str) -> str | None:
    """The program version the session file records, where its format records one."""
    if agent == "opencode":  # its store's `session.version`
        conn = sqlite3.connect(f"file:{CORPUS / session_file}?immutable=1", uri=True)
        try:
            row = conn.execute("SELECT version FROM session").fetchone()
        finally:
            conn.close()
        return str(row[0]) if row is not None else None
    if not session_file.endswith(".jsonl"):
        return None
    for line in (CORPUS / session_file).read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if agent in ("claude-code", "qwen-code") and isinstance(record.get("version"), str):
            return str(record["version"])
        if agent == "codex" and record.get("type") == "session_meta":
            return str(record["payload"]["cli_version"])
    return None


def test_the_corpus_covers_these_releases() -> None:
    found: dict[str, set[str]] = defaultdict(set)
    for entry in load_manifest():
        found[entry["agent"]].add(entry["version"])
    assert dict(found) == COVERED


def test_each_entry_is_the_release_its_file_records() -> None:
    wrong = []
    for entry in load_manifest():
        recorded = _recorded_version(entry["agent"], entry["session_file"])
        if recorded is not None and recorded != entry["version"]:
            wrong.append(f"{entry['id']}: manifest {entry['version']}, file {recorded}")
    assert wrong == []
