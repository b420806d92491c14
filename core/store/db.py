"""The store's SQLite database: opened in WAL mode and migrated, one lock for its shared connection, write transactions.

Every repository of the store reaches the tables through this object, so the
UI's worker threads and the CLI share one connection under one lock.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cutline.core.errors import CutlineError, StoreBusy, StoreDamaged
from cutline.core.paths import default_db_path
from cutline.core.store.schema import up_to_date

if TYPE_CHECKING:
    from sqlite_utils import Database

BUSY_TIMEOUT_MS = 5000
# only takes effect on a new database: 16 KiB pages pack 1-3 KB entry rows with
# far less overflow waste than 4 KiB ones (about 1.5x faster imports)
PAGE_SIZE = 16384

Row = dict[str, Any]


def utc_now() -> str:
    """The current time as an ISO 8601 UTC timestamp (sortable as text)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _make_private(path: Path) -> None:
    """The database file readable by its owner only: created 0600, an existing one narrowed (its WAL files follow it).

    Sessions hold whatever the user and the agent typed; the store copies them. An existing file is
    narrowed by its name, never opened: closing any descriptor of a database drops every POSIX lock
    this process holds on it, the locks another connection (a worker thread's) relies on.
    """
    try:
        info = path.stat()
    except FileNotFoundError:
        try:
            os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            _make_private(path)  # made this very moment by another cutline
        except OSError:
            pass  # sqlite reports the problem with its own words
        return
    except OSError:
        return
    if stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) & 0o077:
        with suppress(OSError):
            os.chmod(path, 0o600)


@contextmanager
def _setting_up(path: Path) -> Iterator[None]:
    """Held while a database is made or migrated: two cutlines opening a new store at once take turns.

    Why: SQLite's busy wait does not cover two connections that both switch a new file to WAL
    and create the same tables (one of them failed with "database is locked" or a duplicate
    migration row; the desk's inbox listener and its first load open the store together). The
    lock is an flock on a file beside the database, never the database itself (see _make_private).
    """
    lock_path = path.with_name(path.name + ".setup-lock")
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        yield  # a read-only directory: no one else can make the store there either
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the flock


def _ready(conn: sqlite3.Connection) -> bool:
    """Whether the database is already in WAL mode and migrated: the usual open, which takes no lock."""
    try:
        mode = conn.execute("PRAGMA journal_mode").fetchone()
        return mode is not None and str(mode[0]).lower() == "wal" and up_to_date(conn)
    except sqlite3.OperationalError:  # being made by another cutline right now
        return False


# an empty database file older than this was not just created by another cutline process
EMPTY_GRACE_SECONDS = 5.0


def damaged_message(path: Path, why: object) -> str:
    """What to do about a store SQLite cannot read: move it aside, and cutline starts a new one."""
    return (
        f"{path}: cutline's store is damaged ({why}); move it aside (mv {path} {path}.damaged) and cutline makes "
        "a new one on the next run — import your session files again (they are untouched; the proposals and "
        "decisions stay in the damaged copy)"
    )


def is_damage(exc: BaseException) -> bool:
    """Whether a SQLite error means the file is not a readable database (not a busy lock, a constraint or a bug)."""
    if not isinstance(exc, sqlite3.DatabaseError) or isinstance(
        exc, sqlite3.OperationalError | sqlite3.IntegrityError | sqlite3.ProgrammingError
    ):
        return False
    text = str(exc)
    return "malformed" in text or "not a database" in text or "corrupt" in text


def _refuse_an_emptied_store(path: Path) -> None:
    """A 0-byte database file that was not just created: say so rather than silently start an empty store.

    Why: a truncated or wrongly copied cutline.db used to open as an empty store, and the
    user's proposals and decisions seemed gone without a word. A file another cutline process
    is creating this very moment is younger than EMPTY_GRACE_SECONDS.
    """
    try:
        info = path.stat()
    except OSError:
        return
    if stat.S_ISREG(info.st_mode) and info.st_size == 0 and time.time() - info.st_mtime > EMPTY_GRACE_SECONDS:
        raise StoreDamaged(
            f"{path}: cutline's store is an empty file (0 bytes), not a store; if it held your sessions it was "
            f"truncated — restore it, or delete it (rm {path}) and cutline makes a new one"
        )


# how long closing waits for a worker thread to let the shared connection go
CLOSE_WAIT_SECONDS = 2.0


class StoreDatabase:
    """The open database file: its connection, the lock that serializes its users, and transactions."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        _refuse_an_emptied_store(self.path)
        _make_private(self.path)
        self.lock = threading.RLock()
        conn: sqlite3.Connection | None = None
        try:
            # one connection shared by the UI's worker threads; the lock serializes them
            conn = sqlite3.connect(str(self.path), check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            self.conn = conn
            self._db: Database | None = None
            if not _ready(conn):
                with _setting_up(self.path):
                    conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
                    conn.execute("PRAGMA journal_mode=WAL")
                    self._migrate()
        except sqlite3.DatabaseError as exc:
            if conn is not None:
                conn.close()
            if is_damage(exc):
                raise StoreDamaged(damaged_message(self.path, exc)) from exc
            raise CutlineError(f"{self.path}: cannot open the cutline database ({exc})") from exc

    @property
    def db(self) -> Database:
        """The connection as sqlite-utils sees it (migrations, schema inspection), made when first asked for."""
        if self._db is None:
            from sqlite_utils import Database

            self._db = Database(self.conn)
        return self._db

    def _migrate(self) -> None:
        if up_to_date(self.conn):
            return  # the usual case, told without importing sqlite-utils
        from cutline.core.store.migrations import migrations

        try:
            migrations.apply(self.db)
        except sqlite3.OperationalError:
            # another process migrated between our check and our write: look again
            migrations.apply(self.db)

    def close(self) -> None:
        """Close the connection; the database cannot be used afterwards.

        Why the lock: closing the shared connection while a worker thread runs a statement
        on it crashes the interpreter (seen as a segfault when a desk quit mid-load). A
        running statement is interrupted first; a thread that keeps the connection past
        CLOSE_WAIT_SECONDS (one waiting on the UI it is blocking) leaves it open to the
        end of the process instead.
        """
        if not self.lock.acquire(blocking=False):
            with suppress(sqlite3.ProgrammingError):
                self.conn.interrupt()
            if not self.lock.acquire(timeout=CLOSE_WAIT_SECONDS):
                return
        try:
            self.conn.close()
        finally:
            self.lock.release()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction that takes the write lock up front (BEGIN IMMEDIATE) and commits or rolls back as a whole.

        Nested use joins the transaction already open on this connection.
        """
        with self.lock:
            if self.conn.in_transaction:
                yield self.conn
                return
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                raise StoreBusy(
                    f"{self.path}: the store is busy: another process has been writing to it for "
                    f"{BUSY_TIMEOUT_MS // 1000} s; nothing was changed, try again when it is done"
                ) from None
            try:
                yield self.conn
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.rollback()
                raise
            else:
                self.conn.commit()

    def write_if_free(self, sql: str, params: Sequence[Any] = ()) -> bool:
        """One statement committed now if no other process holds the write lock, else nothing (False), without waiting.

        For what a read records on its way (a cache it can do without), never for what must be kept.
        """
        with self.lock:
            self.conn.execute("PRAGMA busy_timeout=0")
            try:
                with self.transaction() as conn:
                    conn.execute(sql, params)
                return True
            except (StoreBusy, sqlite3.OperationalError):
                return False
            finally:
                self.conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")

    @contextmanager
    def durable(self) -> Iterator[None]:
        """Commits inside are fsynced before they return (synchronous=FULL), for records a crash must not lose."""
        with self.lock:
            self.conn.execute("PRAGMA synchronous=FULL")
            try:
                yield
            finally:
                self.conn.execute("PRAGMA synchronous=NORMAL")

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """The connection, held under the lock for a read that spans several statements."""
        with self.lock:
            yield self.conn

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Every row of a query, as column name to value."""
        with self.lock:
            cursor = self.conn.execute(sql, params)
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]

    def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """The first row of a query, or None."""
        rows = self.rows(sql, params)
        return rows[0] if rows else None
