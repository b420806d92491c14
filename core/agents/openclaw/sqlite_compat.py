"""SQL functions OpenClaw's schema calls that an older SQLite lacks, supplied from Python on one connection.

Why: OpenClaw 2026.9's tables carry CHECKs that call `octet_length()` (SQLite >= 3.43).
SQLite compiles a table's CHECKs into every INSERT on it, so with an older library
(the one many Pythons bundle) any insert fails with "unknown function" even when the
checked column is NULL. Registering the function on the connection makes it work.
"""

from __future__ import annotations

import sqlite3


def octet_length(value: object) -> int | None:
    """SQLite's octet_length: the UTF-8 byte length of text, the byte length of a blob, NULL for NULL.

    Numbers count as their text form, as SQLite does.
    """
    if value is None:
        return None
    if isinstance(value, bytes):
        return len(value)
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass"))
    return len(str(value).encode("utf-8"))


def has_function(conn: sqlite3.Connection, name: str) -> bool:
    """Whether the SQLite library behind `conn` knows the SQL function `name` (asked without calling it)."""
    try:
        rows = conn.execute("SELECT 1 FROM pragma_function_list WHERE name = ?", (name,)).fetchall()
    except sqlite3.Error:
        return False
    return bool(rows)


def ensure_octet_length(conn: sqlite3.Connection, *, force: bool = False) -> bool:
    """Register `octet_length` on `conn` when its SQLite lacks it (or when `force`); True when registered here."""
    if not force and has_function(conn, "octet_length"):
        return False
    conn.create_function("octet_length", 1, octet_length, deterministic=True)
    return True
