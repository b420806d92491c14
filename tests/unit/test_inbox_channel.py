"""The inbox channel: private to the user, refuses bad input without falling over, survives its listener.

A Python client speaks the protocol the pi extension speaks (core/inbox/wire.py) over the real
Unix socket to a real listener on a real store.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cutline.core.errors import CutlineError
from cutline.core.inbox import wire
from cutline.core.inbox.answers import accept_item, edit_item, reject_item
from cutline.core.inbox.channel import AlreadyListening, InboxListener, socket_path
from cutline.core.inbox.items import Inbox, InboxClosed
from cutline.core.store import Store


class Client:
    """The agent's end: one connection, line by line."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(str(path))
        self.buffer = b""

    def send(self, message: dict[str, Any] | bytes) -> None:
        self.sock.sendall(message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n")

    def reply(self) -> dict[str, Any] | None:
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        value: dict[str, Any] = json.loads(line)
        return value

    def close(self) -> None:
        self.sock.close()


def hold(**extra: Any) -> dict[str, Any]:
    return {
        "type": "hold",
        "agent": "pi",
        "preparation": {"firstKeptEntryId": "e5", "tokensBefore": 1234, "fileOps": {"read": ["a.py"], "edited": []}},
        **extra,
    }


@pytest.fixture
def listener(cutline_home: Path) -> Iterator[InboxListener]:
    with InboxListener(poll_seconds=0.05) as running:
        yield running


def _status(item_id: str) -> str:
    with Store() as store:
        return Inbox(store).get(item_id).status


def _delivered_at(item_id: str) -> str | None:
    with Store() as store:
        return Inbox(store).get(item_id).delivered_at


def _wait_status(item_id: str, status: str) -> None:
    deadline = time.monotonic() + 5
    while _status(item_id) != status:
        assert time.monotonic() < deadline, f"{item_id} stays {_status(item_id)}"
        time.sleep(0.02)


def test_the_socket_is_in_a_private_directory_and_only_its_owner_may_use_it(
    listener: InboxListener, cutline_home: Path
) -> None:
    assert listener.path == socket_path() == cutline_home / "run" / "inbox.sock"
    assert stat.S_IMODE(listener.path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(listener.path.stat().st_mode) == 0o600
    assert stat.S_ISSOCK(listener.path.stat().st_mode)


def test_a_directory_open_to_others_is_closed_before_listening(cutline_home: Path) -> None:
    run = cutline_home / "run"
    run.mkdir(mode=0o755)
    run.chmod(0o755)
    with InboxListener():
        assert stat.S_IMODE(run.stat().st_mode) == 0o700


def _as_nobody(path: Path) -> list[Any]:
    """What a process of user `nobody` gets: first as things are, then with the directory and socket opened up."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: become `nobody`, then try to hold a compaction twice
        os.close(read)
        seen: list[Any] = []
        try:
            os.setgid(65534)
            os.setuid(65534)
            try:
                Client(path)
                seen.append("connected")
            except PermissionError:
                seen.append("permission denied")
            while not (path.parent.stat().st_mode & 0o005):
                time.sleep(0.01)
            client = Client(path)
            seen.append(client.reply())  # refused before it may send anything
        except BaseException as exc:
            seen.append(repr(exc))
        finally:
            os.write(write, json.dumps(seen).encode())
            os._exit(0)
    os.close(write)
    return [pid, read]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run a client as another user")
def test_another_users_process_cannot_post(cutline_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    place = Path(tempfile.mkdtemp(prefix="cl-", dir="/tmp"))
    place.chmod(0o755)  # the test's own directory only: the listener makes its run/ directory 0700 inside
    try:
        with InboxListener(path=place / "run" / "inbox.sock") as listener:
            pid, read = _as_nobody(listener.path)
            time.sleep(0.5)
            # even with the directory and the socket opened up, the peer's user id is checked
            listener.path.chmod(0o666)
            listener.path.parent.chmod(0o755)
            os.waitpid(pid, 0)
            with os.fdopen(read) as pipe:
                seen = json.loads(pipe.read())
    finally:
        shutil.rmtree(place, ignore_errors=True)
    assert seen == ["permission denied", {"type": "refused", "reason": "this inbox belongs to another user"}]
    with Store() as store:
        assert Inbox(store).listing(everything=True) == []


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"not json\n", "not JSON"),
        (b"[1, 2]\n", "not a JSON object"),
        (b'{"type": "launch"}\n', "unknown message type 'launch'"),
        (b'{"type": "hold"}\n', "bad hold message: agent: Field required"),
        (b'{"type": "resume", "id": "nope"}\n', "no inbox item nope"),
    ],
)
def test_a_malformed_message_gets_one_clear_refusal(listener: InboxListener, line: bytes, reason: str) -> None:
    client = Client(listener.path)
    client.send(line)
    answer = client.reply()
    assert answer is not None and answer["type"] == "refused"
    assert answer["reason"].startswith(reason)
    assert client.reply() is None  # and the connection is closed
    ping = Client(listener.path)
    ping.send({"type": "ping"})
    assert ping.reply() == {"type": "pong", "protocol": wire.PROTOCOL}  # the listener is still there


def test_an_oversized_message_is_refused_without_reading_it_all(
    listener: InboxListener, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wire, "MAX_MESSAGE_BYTES", 100_000)
    client = Client(listener.path)
    with pytest.raises(OSError):  # the listener hangs up before the whole line is taken
        for _ in range(100):
            client.send(b"x" * 65536)
    answer = client.reply()
    assert answer is not None and answer["type"] == "refused" and "larger than the limit" in answer["reason"]
    ping = Client(listener.path)
    ping.send({"type": "ping"})
    assert ping.reply() is not None


def test_accept_from_another_store_connection_releases_the_agent_with_the_edited_summary(
    listener: InboxListener,
) -> None:
    client = Client(listener.path)
    client.send(hold(sessionFile=None))
    held = client.reply()
    assert held is not None and held["type"] == "held"
    with Store() as store:  # as `cutline inbox edit` and `cutline accept` do, in their own processes
        edit_item(store, held["id"], "## Goal\nthe person's summary\n")
        accepted = accept_item(store, held["id"])
    assert accepted is not None and accepted.status == "accepted"
    assert client.reply() == {
        "type": "answer",
        "id": held["id"],
        "decision": "accept",
        "compaction": {
            "summary": "## Goal\nthe person's summary",
            "firstKeptEntryId": "e5",
            "tokensBefore": 1234,
            "details": {"readFiles": ["a.py"], "modifiedFiles": []},
        },
    }
    _wait_status(held["id"], "accepted")
    # the listener notes the delivery just after it has sent the answer: wait for that note, not for the status
    deadline = time.monotonic() + 5
    while _delivered_at(held["id"]) is None:
        assert time.monotonic() < deadline, "the answer was sent but its delivery never noted"
        time.sleep(0.02)
    with Store() as store, pytest.raises(InboxClosed, match="already accepted"):
        reject_item(store, held["id"])


def test_a_listener_that_quits_leaves_the_wait_answerable_by_the_next(cutline_home: Path) -> None:
    first = InboxListener(poll_seconds=0.05).start()
    client = Client(first.path)
    client.send(hold())
    held = client.reply()
    assert held is not None
    first.stop()
    assert client.reply() is None  # the desk quit: the agent sees its connection close
    assert _status(held["id"]) == "waiting"
    with Store() as store:  # answered from the CLI while nothing listens
        edit_item(store, held["id"], "answered while no desk ran")
        assert accept_item(store, held["id"]) is not None
    with InboxListener(poll_seconds=0.05) as second:
        again = Client(second.path)
        again.send({"type": "resume", "id": held["id"]})
        assert again.reply() == {"type": "held", "id": held["id"]}
        answer = again.reply()
    assert answer is not None and answer["decision"] == "accept"
    assert answer["compaction"]["summary"] == "answered while no desk ran"


def test_a_rejection_tells_the_agent_to_cancel(listener: InboxListener) -> None:
    client = Client(listener.path)
    client.send(hold())
    held = client.reply()
    assert held is not None
    with Store() as store:
        assert reject_item(store, held["id"]) is not None
    assert client.reply() == {"type": "answer", "id": held["id"], "decision": "reject"}


def test_the_agents_timeout_and_departure_are_recorded(listener: InboxListener) -> None:
    timing = Client(listener.path)
    timing.send(hold(timeoutSeconds=30))
    first = timing.reply()
    assert first is not None
    timing.send({"type": "timeout", "id": first["id"]})
    _wait_status(first["id"], "timed-out")
    leaving = Client(listener.path)
    leaving.send(hold())
    second = leaving.reply()
    assert second is not None
    leaving.close()
    _wait_status(second["id"], "withdrawn")
    with Store() as store:
        with pytest.raises(InboxClosed, match="already timed-out"):
            edit_item(store, first["id"], "too late")
        assert "timed out" in " ".join(Inbox(store).get(first["id"]).notes)


def test_an_item_past_its_deadline_reads_timed_out_and_cannot_be_accepted(listener: InboxListener) -> None:
    client = Client(listener.path)
    client.send(hold(timeoutSeconds=0.2))
    held = client.reply()
    assert held is not None
    with Store() as store:
        edit_item(store, held["id"], "late")
        time.sleep(0.3)
        inbox = Inbox(store)
        assert inbox.get(held["id"]).shown_status() == "timed-out"
        assert inbox.waiting_count() == 0
        with pytest.raises(InboxClosed, match="timed out"):
            accept_item(store, held["id"])


def test_one_listener_at_a_time_and_a_stale_socket_is_replaced(listener: InboxListener) -> None:
    with pytest.raises(AlreadyListening):
        InboxListener().start()
    listener.stop()
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(listener.path))  # left behind by a desk that crashed: nobody accepts on it
    stale.close()
    with InboxListener() as again:
        client = Client(again.path)
        client.send({"type": "ping"})
        assert client.reply() is not None


def test_a_socket_path_too_long_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(CutlineError, match="too long for a Unix socket"):
        InboxListener(path=tmp_path / ("x" * 120) / "inbox.sock").start()


def test_accepting_a_held_proposal_anywhere_answers_the_agent_and_leaves_its_file_alone(
    cutline_home: Path, tmp_path: Path
) -> None:
    from cutline.core import review
    from cutline.core.inbox.answers import make_proposal
    from tests.support.tui_app import write_session

    session = write_session(tmp_path / "ledger.jsonl")
    before = session.read_bytes()
    records = [json.loads(line) for line in before.splitlines()]
    users = [r["id"] for r in records if r.get("type") == "message" and r["message"]["role"] == "user"]
    cut = users[len(users) * 2 // 3]  # where pi would cut: a user message two thirds in
    with InboxListener(make_proposal=make_proposal, poll_seconds=0.05) as running:
        client = Client(running.path)
        client.send(hold(sessionFile=str(session), preparation={"firstKeptEntryId": cut, "tokensBefore": 9}))
        held = client.reply()
        assert held is not None
        deadline = time.monotonic() + 10
        while (item := _item(held["id"])).proposal_id is None:
            assert time.monotonic() < deadline and not item.notes, item.notes
            time.sleep(0.05)
        assert item.proposal_id is not None
        with Store() as store:  # as the desk's accept does: the proposal, with write-back
            assert review.load_proposal(store, item.proposal_id).firstKeptEntryId == cut  # the agent's own cut
            review.add_version(store, item.proposal_id, "the desk's edit")
            decision = review.accept(store, item.proposal_id, write_back=True)
            assert store.proposals.status(item.proposal_id) == "accepted"
        answer = client.reply()
    assert decision.written_to is None and "holds this compaction live" in decision.notes[0]
    assert answer is not None and answer["compaction"]["summary"] == "the desk's edit"
    assert answer["compaction"]["firstKeptEntryId"] == cut
    assert session.read_bytes() == before  # pi writes the entry itself


def _item(item_id: str) -> Any:
    with Store() as store:
        return Inbox(store).get(item_id)
