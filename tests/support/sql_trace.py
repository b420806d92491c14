"""Counting the SQL statements a connection runs, by how they start (an `executemany` runs one per row)."""

from __future__ import annotations

import sqlite3


class StatementCount:
    """How many statements starting with `prefix` (case and leading space ignored) `conn` has run since."""

    def __init__(self, conn: sqlite3.Connection, prefix: str) -> None:
        self.runs = 0
        self._prefix = prefix.upper()
        conn.set_trace_callback(self._seen)

    def _seen(self, statement: str) -> None:
        if statement.lstrip().upper().startswith(self._prefix):
            self.runs += 1
