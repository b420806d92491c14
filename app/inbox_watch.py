"""The desk's part in the inbox: it listens for agents (as `cutline inbox --watch` does) and counts what waits.

The listener runs on its own threads (core.inbox.channel); when another cutline already
listens, the desk only counts. A scan of the agents' session folders (core.inbox.scan) runs in
a thread worker at start and every `tui.inbox_scan_seconds`; what it finds after the fact is
counted apart in the header ("inbox: 1 waiting · 2 found after the fact"). A thread worker looks at the store every POLL_SECONDS, so
compactions held by any listener (or blocked by Claude Code's hook) show up: the count goes
to the sessions screen's header and each new one to a notification. Nothing here runs on
the event loop but the posting of the result.
"""

from __future__ import annotations

import contextlib
import sqlite3
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

import cutline.core.inbox.answers  # noqa: F401  (the desk's accept and reject of a held proposal answer the agent)
from cutline.core.errors import CutlineError

if TYPE_CHECKING:
    from cutline.app.tui import CutlineApp
    from cutline.core.inbox.channel import InboxListener

POLL_SECONDS = 2.0


def waiting_line(count: int, found: int = 0) -> str:
    """The header's words for the inbox: what agents hold, and apart, what was found after the fact; nothing if none."""
    parts = [f"{count} waiting"] if count else []
    if found:
        parts.append(f"{found} found after the fact")
    return f"inbox: {' · '.join(parts)}" if parts else ""


class InboxWatch:
    """Listen (when nobody else does) and count, for one desk."""

    def __init__(self, desk: CutlineApp) -> None:
        self.desk = desk
        self.listener: InboxListener | None = None
        self.count = 0
        self.found = 0  # compactions found after the fact, still open (counted apart: no agent waits on them)
        self._seen: set[str] | None = None  # ids already reported (None: not yet looked)
        self._stopped = False

    def start(self) -> None:
        self.desk.run_worker(self._listen, thread=True, group="inbox-listen", exit_on_error=False)
        self.desk.set_interval(POLL_SECONDS, self.poll)
        self.poll()
        every = self.desk.config.inbox_scan_seconds
        if every > 0:
            self.scan()
            self.desk.set_interval(every, self.scan)

    def scan(self) -> None:
        """Look for compactions the agents made on their own (core.inbox.scan), in a thread worker."""
        self.desk.run_worker(self._scan, thread=True, group="inbox-scan", exclusive=True, exit_on_error=False)

    def _scan(self) -> None:
        from cutline.core.inbox.scan import scan
        from cutline.core.store import Store

        try:
            with Store(self.desk.store_path) as store:
                report = scan(store)
        except (CutlineError, OSError, sqlite3.Error):
            return  # a scan that cannot run now runs again at the next interval
        if report.items and not get_current_worker().is_cancelled:
            with contextlib.suppress(RuntimeError):  # the desk is closing
                self.desk.call_from_thread(self._scanned, len(report.items))

    def _scanned(self, new: int) -> None:
        what = "compaction" if new == 1 else "compactions"
        self.desk.notify(
            f"{new} {what} found after the fact: f on the sessions screen lists them (or `cutline inbox`)",
            title="Inbox",
            timeout=8,
            markup=False,
        )
        self.poll()

    def stop(self) -> None:
        self._stopped = True
        listener, self.listener = self.listener, None
        if listener is not None:
            listener.stop()

    def _listen(self) -> None:
        from cutline.core.inbox.answers import make_proposal
        from cutline.core.inbox.channel import InboxListener

        try:
            listener = InboxListener(self.desk.store_path, make_proposal=make_proposal).start()
        except (CutlineError, OSError):
            return  # another cutline listens, or the socket cannot be made: count only
        if self._stopped:  # the desk closed while the socket was being made: nobody would stop it later
            listener.stop()
            return
        self.listener = listener

    def poll(self) -> None:
        self.desk.run_worker(self._count, thread=True, group="inbox-count", exclusive=True, exit_on_error=False)

    def _count(self) -> None:
        from cutline.core.store.db import utc_now

        database = self.desk.store.database
        now = utc_now()
        try:
            rows = database.rows(
                "SELECT id, agent FROM inbox WHERE status = 'waiting' AND found = 0"
                " AND (deadline IS NULL OR deadline > ?) ORDER BY created_at",
                (now,),
            )
            found = database.one("SELECT count(*) AS n FROM inbox WHERE status = 'waiting' AND found = 1")
        except sqlite3.OperationalError:  # no inbox table yet (or one from before the scan): nothing to count yet
            rows, found = [], None
        if get_current_worker().is_cancelled:
            return
        with contextlib.suppress(RuntimeError):  # the desk is closing
            self.desk.call_from_thread(
                self._counted, [(str(r["id"]), str(r["agent"])) for r in rows], int(found["n"]) if found else 0
            )

    def _counted(self, waiting: list[tuple[str, str]], found: int = 0) -> None:
        self.count = len(waiting)
        self.found = found
        if self._seen is not None:
            for item_id, agent in waiting:
                if item_id not in self._seen:
                    self.desk.notify(
                        f"{agent} holds a compaction for review: cutline accept {item_id} (or reject)",
                        title="Inbox",
                        timeout=8,
                        markup=False,
                    )
        self._seen = {item_id for item_id, _ in waiting}
        show = getattr(self.desk.screen, "show_inbox", None)
        if show is not None:
            show(self.count, self.found)
