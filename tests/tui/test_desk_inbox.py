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
