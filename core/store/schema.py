"""The store's schema version as plain names: whether a database is up to date, told without sqlite-utils.

Why: every command opens the store; importing sqlite-utils (and its date parser) to
find nothing pending cost ~50 ms of each start. The migrations themselves
(`core.store.migrations`) are imported only when one is pending; a test holds this
list to theirs.
"""

from __future__ import annotations

import sqlite3

MIGRATION_SET = "cutline"
# every migration's name, in order, as `core.store.migrations` registers them
MIGRATIONS = (
    "m001_initial",
    "m002_header_json_and_lookup_indexes",
    "m003_write_backs",
    "m004_session_path_tokens",
    "m005_entry_index_facts",
    "m006_token_counts_without_rowid",
    "m007_compaction_entries_index",
    "m008_probe_runs",
    "m009_session_source_stat",
)
# the chars4 tokens of a session's active path, as `ls` shows them (NULL while none is counted)
PATH_TOKENS_SUM = """
    SELECT sum(t.tokens) FROM entries e
    JOIN token_counts t ON t.session_id = e.session_id AND t.entry_id = e.id AND t.counter = 'chars4'
    WHERE e.session_id = ? AND e.path_index IS NOT NULL
"""
# where sqlite-utils records the migrations it applied
APPLIED_TABLE = "_sqlite_migrations"


def up_to_date(conn: sqlite3.Connection) -> bool:
    """Whether every migration has been applied to the database (a newer cutline's extra ones are fine)."""
    try:
        rows = conn.execute(f"SELECT name FROM {APPLIED_TABLE} WHERE migration_set = ?", (MIGRATION_SET,)).fetchall()
    except sqlite3.OperationalError:  # no such table: a new database
        return False
    return set(MIGRATIONS) <= {row[0] for row in rows}
