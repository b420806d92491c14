"""The private channel between an agent's hook and cutline: a Unix socket in a 0700 directory.

Where: `$CUTLINE_SOCKET`, else `inbox.sock` in `run/` under cutline's data directory. The
directory is the user's alone (made 0700, refused if another user owns it), the socket
file is 0600, and on Linux every connection's peer is checked (SO_PEERCRED): a process of
another user is refused before a byte is read. Whoever listens (a desk, `cutline inbox
--watch`) stores each held compaction in the inbox table, answers `held`, then relays the
answer a person records there (from this process or any other: `cutline accept ID`) to
the waiting agent. A listener that stops closes its connections; the agent reconnects
and resumes the wait with the next one.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import select
import socket
import stat
import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cutline.core.errors import CutlineError
from cutline.core.inbox import wire
from cutline.core.inbox.items import Inbox, InboxItem, NewItem
from cutline.core.paths import cutline_home
from cutline.core.store import Store

log = logging.getLogger("cutline.inbox")

SOCKET_NAME = "inbox.sock"
# sun_path holds 108 bytes on Linux (104 on macOS) with its final NUL
MAX_SOCKET_PATH = 103
FIRST_LINE_SECONDS = 30.0
POLL_SECONDS = 0.2


class AlreadyListening(CutlineError):
    """Another cutline (a desk, `inbox --watch`) already listens on the socket."""


def socket_path() -> Path:
    """Where the inbox socket is: $CUTLINE_SOCKET, else run/inbox.sock under cutline's data directory."""
    env = os.environ.get("CUTLINE_SOCKET")
    if env:
        return Path(env).expanduser()
    return cutline_home() / "run" / SOCKET_NAME


def private_dir(directory: Path) -> None:
    """Make `directory` (0700) or check it: refused when another user owns it; group/other access is taken away."""
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = directory.stat()
    except OSError as exc:
        raise CutlineError(f"cannot make the inbox directory {directory}: {exc.strerror or exc}") from None
    if info.st_uid != os.getuid():
        raise CutlineError(f"{directory} belongs to another user: the inbox socket must be in a directory of yours")
    if stat.S_IMODE(info.st_mode) & 0o077:
        directory.chmod(0o700)


def peer_uid(conn: socket.socket) -> int | None:
    """The user id of the process at the other end (Linux), None where the system does not tell."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    raw = conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", raw)
    return int(uid)


def listener_alive(path: Path) -> bool:
    """Whether something accepts connections on the socket now."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(str(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def read_line(conn: socket.socket, buffer: bytearray, timeout: float) -> bytes | None:
    """One line from `conn` (without its newline), None at EOF; Refused past the size limit; TimeoutError."""
    conn.settimeout(timeout)
    while True:
        end = buffer.find(b"\n")
        if end >= 0:
            line = bytes(buffer[:end])
            del buffer[: end + 1]
            return line
        if len(buffer) > wire.MAX_MESSAGE_BYTES:
            raise wire.Refused(f"message larger than the limit of {wire.MAX_MESSAGE_BYTES:,} bytes")
        chunk = conn.recv(1 << 16)
        if not chunk:
            return None
        buffer.extend(chunk)


Arrival = Callable[[InboxItem], None]
MakeProposal = Callable[[Store, InboxItem, wire.Hold], None]


class InboxListener:
    """Listens on the inbox socket, stores what agents hold, and relays each answer back; threads only.

    `on_arrival` is called (from a handler thread) with each newly held item once it is stored
    and its proposal made; `make_proposal` builds that proposal (its failure is noted on the item).
    """

    def __init__(
        self,
        db_path: Path | str | None = None,
        *,
        path: Path | None = None,
        on_arrival: Arrival | None = None,
        make_proposal: MakeProposal | None = None,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.db_path = db_path
        self.path = path if path is not None else socket_path()
        self.on_arrival = on_arrival
        self.make_proposal = make_proposal
        self.poll_seconds = poll_seconds
        self._server: socket.socket | None = None
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._conns: set[socket.socket] = set()
        self._lock = threading.Lock()

    # -- lifecycle -----------------------------------------------------------

    def start(self) -> InboxListener:
        """Bind the socket (a stale one left by a crash is replaced) and serve in a thread; AlreadyListening if taken."""
        if len(os.fsencode(self.path)) > MAX_SOCKET_PATH:
            raise CutlineError(
                f"the inbox socket path {self.path} is too long for a Unix socket "
                f"({len(os.fsencode(self.path))} bytes, at most {MAX_SOCKET_PATH}); set CUTLINE_SOCKET to a shorter one"
            )
        private_dir(self.path.parent)
        if self.path.exists() or self.path.is_symlink():
            if listener_alive(self.path):
                raise AlreadyListening(f"another cutline already listens on {self.path}")
            self.path.unlink()
        Inbox(Store(self.db_path)).store.close()  # the table exists before the first agent arrives
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            server.bind(str(self.path))
        except OSError as exc:
            server.close()
            if exc.errno == errno.EADDRINUSE:
                raise AlreadyListening(f"another cutline already listens on {self.path}") from None
            raise CutlineError(f"cannot listen on {self.path}: {exc.strerror or exc}") from None
        finally:
            os.umask(old)
        server.listen(16)
        self._server = server
        thread = threading.Thread(target=self._accept_loop, name="cutline-inbox-accept", daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def stop(self) -> None:
        """Stop listening, close every connection (the agents reconnect to the next listener) and remove the socket."""
        self._stopping.set()
        server, self._server = self._server, None
        if server is not None:
            with contextlib.suppress(OSError):
                server.shutdown(socket.SHUT_RDWR)
            server.close()
            with contextlib.suppress(OSError):
                self.path.unlink()
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        for thread in self._threads:
            thread.join(timeout=2.0)

    def __enter__(self) -> InboxListener:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- serving -------------------------------------------------------------

    def _accept_loop(self) -> None:
        while not self._stopping.is_set():
            server = self._server
            if server is None:
                return
            try:
                conn, _ = server.accept()
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(conn,), name="cutline-inbox-conn", daemon=True)
            with self._lock:
                self._conns.add(conn)
                self._threads = [t for t in self._threads if t.is_alive()]
                self._threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            uid = peer_uid(conn)
            if uid is not None and uid != os.getuid():
                conn.sendall(wire.refused("this inbox belongs to another user"))
                return
            self._converse(conn)
        except wire.Refused as exc:
            with contextlib.suppress(OSError):
                conn.sendall(wire.refused(str(exc)))
        except (OSError, TimeoutError):
            pass  # the agent went away, or the listener is stopping
        except Exception:  # never let one connection take the listener down
            log.exception("inbox connection failed")
            with contextlib.suppress(OSError):
                conn.sendall(wire.refused("internal error in cutline; the agent should go on without review"))
        finally:
            with self._lock:
                self._conns.discard(conn)
            conn.close()

    def _converse(self, conn: socket.socket) -> None:
        buffer = bytearray()
        line = read_line(conn, buffer, FIRST_LINE_SECONDS)
        if line is None:
            return
        message = wire.parse(line)
        if isinstance(message, wire.Ping):
            conn.sendall(wire.encode({"type": "pong", "protocol": wire.PROTOCOL}))
            return
        if isinstance(message, wire.Stop):
            with Store(self.db_path) as store:
                self._stop_item(Inbox(store), message)
            conn.sendall(wire.encode({"type": "ok"}))
            return
        with Store(self.db_path) as store:
            inbox = Inbox(store)
            if isinstance(message, wire.Hold):
                item = inbox.add(_new_item(message))
                conn.sendall(wire.encode({"type": "held", "id": item.id}))
                self._propose(store, inbox, item, message)
            else:
                found = inbox.find(message.id)
                if found is None or found.id != message.id:
                    raise wire.Refused(f"no inbox item {message.id}")
                item = found
                conn.sendall(wire.encode({"type": "held", "id": item.id}))
            self._wait(conn, buffer, inbox, item.id)

    def _propose(self, store: Store, inbox: Inbox, item: InboxItem, hold: wire.Hold) -> None:
        if self.make_proposal is not None:
            try:
                self.make_proposal(store, item, hold)
            except Exception as exc:
                inbox.note(item.id, f"no proposal could be made: {exc}")
        if self.on_arrival is not None:
            try:
                self.on_arrival(inbox.get(item.id))
            except Exception:
                log.exception("inbox arrival callback failed")

    def _stop_item(self, inbox: Inbox, message: wire.Stop) -> None:
        if message.type == "timeout":
            inbox.settle(message.id, "timed-out", "the agent's wait timed out: its own summary went ahead")
        else:
            inbox.settle(message.id, "withdrawn", "the agent stopped waiting")

    def _wait(self, conn: socket.socket, buffer: bytearray, inbox: Inbox, item_id: str) -> None:
        """Relay the answer once a person gives it; the agent may say it stops waiting meanwhile."""
        conn.setblocking(False)
        while not self._stopping.is_set():
            readable, _, _ = select.select([conn], [], [], self.poll_seconds)
            if readable:
                try:
                    chunk = conn.recv(1 << 16)
                except BlockingIOError:
                    chunk = b"-"
                if not chunk:
                    if not self._stopping.is_set():  # (a listener that stops hangs up itself: the wait goes on)
                        inbox.settle(item_id, "withdrawn", "the agent closed the connection while waiting")
                    return
                buffer.extend(chunk)
                if len(buffer) > wire.MAX_MESSAGE_BYTES:
                    raise wire.Refused("message larger than the limit")
                while b"\n" in buffer:
                    end = buffer.find(b"\n")
                    line = bytes(buffer[:end])
                    del buffer[: end + 1]
                    message = wire.parse(line)
                    if isinstance(message, wire.Stop):
                        self._stop_item(inbox, message)
                        return
            item = inbox.get(item_id)
            if item.status in ("accepted", "rejected"):
                conn.setblocking(True)
                conn.sendall(wire.encode(_answer_message(item)))
                inbox.delivered(item_id)
                return
            if item.status != "waiting":
                return


def _new_item(hold: wire.Hold) -> NewItem:
    prep = hold.preparation
    first_kept = prep.get("firstKeptEntryId")
    tokens = prep.get("tokensBefore")
    return NewItem(
        agent=hold.agent,
        agent_version=hold.agentVersion,
        session_file=hold.sessionFile,
        agent_session_id=hold.sessionId,
        cwd=hold.cwd,
        reason=hold.reason,
        timeout_seconds=hold.timeoutSeconds,
        first_kept_entry_id=first_kept if isinstance(first_kept, str) else None,
        tokens_before=tokens if isinstance(tokens, int) else None,
        request=hold.model_dump(exclude={"type"}),
    )


def _answer_message(item: InboxItem) -> dict[str, Any]:
    if item.status == "accepted":
        return {"type": "answer", "id": item.id, "decision": "accept", "compaction": item.answer or {}}
    return {"type": "answer", "id": item.id, "decision": "reject"}


def post(path: Path, message: dict[str, Any], timeout: float = 5.0) -> list[dict[str, Any]]:
    """Send one message and read replies until the listener closes (tests, `hook` commands); [] if none listens."""
    import json

    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(timeout)
    try:
        conn.connect(str(path))
    except OSError:
        conn.close()
        return []
    replies: list[dict[str, Any]] = []
    try:
        conn.sendall(wire.encode(message))
        buffer = bytearray()
        while (line := read_line(conn, buffer, timeout)) is not None:
            replies.append(json.loads(line))
    except (OSError, TimeoutError):
        pass
    finally:
        conn.close()
    return replies
