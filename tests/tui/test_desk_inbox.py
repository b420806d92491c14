"""The desk listens for agents holding compactions, counts them in the sessions header and tells of each arrival."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
from textual.pilot import Pilot

import cutline.core.review
from cutline.core.inbox.channel import socket_path
from cutline.core.inbox.items import Inbox, NewItem
from cutline.core.store import Store
from tests.support.tui_app import settle_pilot as settle
from tests.support.tui_app import test_app, write_session

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 45), id="160x45")]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(cutline.core.review.secrets, "token_hex", lambda n=4: "5eed" * n)
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "store.db"
    with Store(path) as s:
        s.import_file(write_session(tmp_path / "ledger.jsonl"))
    return path


def _hold(session: Path) -> socket.socket:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(10)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.connect(str(socket_path()))
            break
        except OSError:
            assert time.monotonic() < deadline, "the desk does not listen"
            time.sleep(0.05)
    hold = {"type": "hold", "agent": "pi", "sessionFile": str(session), "preparation": {"firstKeptEntryId": "x"}}
    client.sendall(json.dumps(hold).encode() + b"\n")
    return client


async def test_a_compaction_held_while_the_desk_runs_is_counted_and_told(store: Path, tmp_path: Path) -> None:
    app = test_app(store)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert app.screen.sub_title == "sessions"
        client = _hold(tmp_path / "ledger.jsonl")
        try:
            held = json.loads(client.recv(4096))
            assert held["type"] == "held"
            deadline = time.monotonic() + 10
            while app.screen.sub_title == "sessions":
                assert time.monotonic() < deadline, "the header never counted the arrival"
                app.inbox.poll()
                await pilot.pause(0.1)
            assert app.screen.sub_title == "sessions · inbox: 1 waiting"
            told = [n.message for n in app._notifications]
            assert f"pi holds a compaction for review: cutline accept {held['id']} (or reject)" in told
        finally:
            client.close()
    assert not socket_path().exists(), "the desk removes its socket when it quits"


@pytest.mark.parametrize("size", SIZES)
def test_sessions_with_a_compaction_waiting(snap_compare, store: Path, size: tuple[int, int]) -> None:
    with Store(store) as s:
        Inbox(s).add(NewItem(agent="pi", session_file="ledger.jsonl", first_kept_entry_id="x"))

    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.pause(0.1)
        await settle(pilot)

    assert snap_compare(test_app(store), run_before=before, terminal_size=size)


async def test_w_opens_the_session_of_the_oldest_waiting_compaction(store: Path, tmp_path: Path) -> None:
    app = test_app(store)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        assert [n.message for n in app._notifications][-1] == "Nothing waits for review"
        client = _hold(tmp_path / "ledger.jsonl")
        try:
            json.loads(client.recv(4096))
            deadline = time.monotonic() + 10
            with Store(store) as s:
                while not Inbox(s).listing()[0].session_id:
                    assert time.monotonic() < deadline
                    time.sleep(0.05)
            await pilot.press("w")
            await settle(pilot)
            assert type(app.screen).__name__ == "ReviewScreen"
        finally:
            client.close()


async def test_the_desk_scans_the_agents_folders_and_counts_what_it_found_apart(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from cutline.app.config import TuiConfig
    from cutline.app.tui import create_app
    from cutline.core.inbox.scan import scan
    from tests.support.paths import SAMPLES
    from tests.support.tui_app import fixed_clock

    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for name in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "PI_CODING_AGENT_DIR", "OPENCLAW_STATE_DIR", "QWEN_HOME"):
        monkeypatch.delenv(name, raising=False)
    folder = home / ".pi" / "agent" / "sessions" / "--work--"
    folder.mkdir(parents=True)
    session = folder / "2026-12-01_a.jsonl"
    shutil.copy(SAMPLES / "pi-one-compaction.jsonl", session)
    with Store(store) as s:
        assert scan(s).baseline  # the compaction already there is remembered, not listed
    last = json.loads(session.read_text().splitlines()[-1])["id"]
    compaction = {"type": "compaction", "id": "f0f0f0f0", "parentId": last, "timestamp": "2026-12-01T10:00:00Z"}
    with session.open("a") as handle:
        handle.write(json.dumps({**compaction, "summary": "pi's own", "firstKeptEntryId": last, "tokensBefore": 9}))
        handle.write("\n")
    app = create_app(store, clock=fixed_clock, cursor_blink=False, config=TuiConfig(inbox_scan_seconds=60))
    async with app.run_test(size=(120, 30)) as pilot:
        deadline = time.monotonic() + 15
        while "found" not in app.screen.sub_title:
            assert time.monotonic() < deadline, f"the header never counted the found compaction: {app.screen.sub_title}"
            await pilot.pause(0.1)
        assert app.screen.sub_title == "sessions · inbox: 1 found after the fact"  # apart from what agents hold
        told = [n.message for n in app._notifications]
        assert "1 compaction found after the fact: f on the sessions screen lists them (or `cutline inbox`)" in told


def test_the_header_counts_what_agents_hold_and_what_was_found_apart() -> None:
    from cutline.app.inbox_watch import waiting_line

    assert waiting_line(0, 0) == ""
    assert waiting_line(2, 0) == "inbox: 2 waiting"
    assert waiting_line(0, 3) == "inbox: 3 found after the fact"
    assert waiting_line(1, 3) == "inbox: 1 waiting · 3 found after the fact"
