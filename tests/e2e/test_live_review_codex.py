"""The real Codex (0.169.0 and 0.171.0) runs cutline's PostCompact hook: its compaction reaches the inbox after the fact.

Live and offline: a rollout recorded from Codex 0.171.0 just before its automatic compaction
(tests/fixtures/corpus/codex/main-0.171.0/before-auto-compact.jsonl; its last turn reported
150,000 tokens) is resumed in a loopback-only network namespace against the kit's fake
Responses API, with `model_auto_compact_token_limit=100000`, so Codex compacts first.
`cutline hook install codex` put the hook in Codex's hooks.json; Codex runs only hooks the
user has trusted, so the run passes `--dangerously-bypass-hook-trust`, standing in for the
person's one-time trust under /hooks. The inbox then lists the compaction as found after
the fact, with Codex's own summary, and the folder scan does not list it a second time.
In CI (CI=true) a missing program fails the test; elsewhere it skips.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from cutline.core.inbox.items import Inbox
from cutline.core.inbox.scan import scan
from cutline.core.store import Store
from tests.support import live_clients
from tests.support.paths import TESTS

BEFORE = TESTS / "fixtures" / "corpus" / "codex" / "main-0.171.0" / "before-auto-compact.jsonl"
PROMPT = "Turn after big usage: compaction first. MARK-CODEX-AFTER"


def _session_id(data: bytes) -> str:
    first = json.loads(data.splitlines()[0])
    return str(first["payload"]["id"])


@pytest.mark.parametrize("program", ["codex", "codex@0.171.0"])
def test_codex_post_compact_hook_puts_its_compaction_in_the_inbox(
    program: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    why = live_clients.missing(program)
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the live Codex review test needs the real Codex in CI: {why}")
        pytest.skip(why)
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    data = BEFORE.read_bytes()
    sid = _session_id(data)
    folder = home / ".codex" / "sessions" / "2026" / "12" / "02"
    folder.mkdir(parents=True)
    rollout = folder / f"rollout-2026-12-02T01-25-00-{sid}.jsonl"
    rollout.write_bytes(data)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    from cutline.core.inbox.install import install_codex

    lines = install_codex(home / ".codex")
    assert lines[0].startswith(f"codex: added a PostCompact hook in {home / '.codex' / 'hooks.json'}")
    assert "/hooks" in lines[1]
    with Store() as store:  # the desk's scan has run before: the rollout as it was is known
        scan(store)
    run = live_clients.LiveRun(
        "codex",
        home,
        work,
        sid,
        PROMPT,
        tmp_path / "requests",
        "" if program == "codex" else program,
        json.dumps(["-c", "model_auto_compact_token_limit=100000", "--dangerously-bypass-hook-trust"]),
    )
    live_clients.resume(run)
    assert b'"type":"compacted"' in rollout.read_bytes(), "Codex did not compact"
    with Store() as store:
        items = Inbox(store).listing()
        assert [(i.agent, i.found, i.live, i.session_file) for i in items] == [("codex", True, False, str(rollout))]
        notes = items[0].notes
        assert any(n.startswith("reported by Codex's PostCompact hook (auto") for n in notes), notes
        found = Inbox(store).request(items[0].id)["found"]
        assert found["summary"] and found["unreadable"] is None  # the fake API's compaction summary, readable
        again = scan(store)  # the folder scan finds the same compaction: not listed twice
        assert again.items == [] and len(Inbox(store).listing()) == 1
    shutil.rmtree(tmp_path / "requests", ignore_errors=True)
