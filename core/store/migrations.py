"""The store's schema as an ordered list of named migrations, applied on every open.

Append new migrations at the end; never edit one that has shipped, because
databases in the wild have already recorded it as applied.
"""

from __future__ import annotations

from sqlite_utils import Database, Migrations

from cutline.core.store.schema import MIGRATION_SET, PATH_TOKENS_SUM

migrations = Migrations(MIGRATION_SET)


@migrations(name="m001_initial")
def m001_initial(db: Database) -> None:
    """Sessions, their entries, cached token counts, and the review tables."""
    db.execute(
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            name TEXT,
            format TEXT NOT NULL,
            version INTEGER,
            source_path TEXT,
            source_size INTEGER,
            source_sha256 TEXT,
            header_line TEXT NOT NULL DEFAULT '',
            newline TEXT NOT NULL DEFAULT '\n',
            trailing_newline INTEGER NOT NULL DEFAULT 1,
            leaf_id TEXT,
            cwd TEXT,
            imported_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            entry_count INTEGER NOT NULL DEFAULT 0,
            problems_json TEXT NOT NULL DEFAULT '[]'
        )
        """
    )
    db.execute(
        """
        CREATE TABLE entries (
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            line INTEGER,
            parent_id TEXT,
            type TEXT NOT NULL,
            role TEXT,
            path_index INTEGER,
            timestamp TEXT,
            raw TEXT NOT NULL,
            model_json TEXT NOT NULL,
            PRIMARY KEY (session_id, id)
        )
        """
    )
    db.execute("CREATE INDEX idx_entries_session_seq ON entries (session_id, seq)")
    db.execute("CREATE INDEX idx_entries_session_path ON entries (session_id, path_index)")
    db.execute(
        """
        CREATE TABLE token_counts (
            session_id TEXT NOT NULL,
            entry_id TEXT NOT NULL,
            counter TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            PRIMARY KEY (session_id, counter, entry_id)
        )
        """
    )
    db.execute(
        """
        CREATE TABLE proposals (
            id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL,
            created_at TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'accepted', 'rejected')),
            summarizer TEXT,
            model TEXT,
            prompt_name TEXT,
            settings_json TEXT,
            plan_json TEXT,
            proposal_json TEXT,
            tokens_before INTEGER,
            tokens_after INTEGER,
            first_kept_entry_id TEXT,
            valid INTEGER
        )
        """
    )
    db.execute(
        """
        CREATE TABLE summary_versions (
            id INTEGER PRIMARY KEY,
            proposal_id TEXT NOT NULL,
            n INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            origin TEXT NOT NULL CHECK (origin IN ('generated', 'edited', 'reverted')),
            text TEXT NOT NULL,
            tokens INTEGER
        )
        """
    )
    db.execute(
        """
        CREATE TABLE decisions (
            id INTEGER PRIMARY KEY,
            proposal_id TEXT,
            session_id TEXT NOT NULL,
            decision TEXT NOT NULL CHECK (decision IN ('accepted', 'rejected')),
            decided_at TEXT NOT NULL,
            written_to TEXT,
            entry_id TEXT,
            note TEXT
        )
        """
    )


@migrations(name="m002_header_json_and_lookup_indexes")
def m002_header_json_and_lookup_indexes(db: Database) -> None:
    """Keep the parsed header (formats without a header line have one too) and index the lookups the UI makes."""
    db.execute("ALTER TABLE sessions ADD COLUMN header_json TEXT NOT NULL DEFAULT '{}'")
    db.execute("CREATE INDEX idx_sessions_source_path ON sessions (source_path)")
    db.execute("CREATE INDEX idx_entries_session_type ON entries (session_id, type)")
    db.execute("CREATE INDEX idx_proposals_session ON proposals (session_id, created_at)")
    db.execute("CREATE UNIQUE INDEX idx_summary_versions_proposal_n ON summary_versions (proposal_id, n)")
    db.execute("CREATE INDEX idx_decisions_session ON decisions (session_id, decided_at)")


@migrations(name="m003_write_backs")
def m003_write_backs(db: Database) -> None:
    """Every write-back into a session: recorded as pending before its first byte, then done or undone.

    With the fingerprints before and after and the exact bytes added, an interrupted
    write-back is recovered from the file alone, and undo knows the former file.
    """
    db.execute(
        """
        CREATE TABLE write_backs (
            proposal_id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('pending', 'done', 'undone')),
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            record_json TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX idx_write_backs_state ON write_backs (state)")
    db.execute("ALTER TABLE proposals ADD COLUMN source_sha256 TEXT")


@migrations(name="m004_session_path_tokens")
def m004_session_path_tokens(db: Database) -> None:
    """Keep each session's path total of chars4 tokens in its row, so listing the sessions reads no entries.

    Why: summing the cached counts of every stored entry took `ls` 0.2-0.4 s with 20 sessions.
    """
    db.execute("ALTER TABLE sessions ADD COLUMN path_tokens INTEGER")
    for (session_id,) in db.execute("SELECT id FROM sessions").fetchall():
        total = db.execute(PATH_TOKENS_SUM, [session_id]).fetchone()[0]
        db.execute("UPDATE sessions SET path_tokens = ? WHERE id = ?", [total, session_id])


@migrations(name="m005_entry_index_facts")
def m005_entry_index_facts(db: Database) -> None:
    """Keep each entry's index facts (core.agents.index_facts) in its row, back-filled from the stored entries.

    Why: the review desk plans a long session from these few bytes per entry instead of
    rebuilding every entry as a model.
    """
    from cutline.core.agents.index_facts import entry_facts
    from cutline.core.store.rows import entry_from_row

    db.execute("ALTER TABLE entries ADD COLUMN facts TEXT")
    last = -1
    while batch := db.execute(
        "SELECT rowid, model_json, raw, line FROM entries WHERE rowid > ? ORDER BY rowid LIMIT 2000", [last]
    ).fetchall():
        db.conn.executemany(
            "UPDATE entries SET facts = ? WHERE rowid = ?",
            [(entry_facts(entry_from_row(model, raw, line)), rowid) for rowid, model, raw, line in batch],
        )
        last = batch[-1][0]


@migrations(name="m006_token_counts_without_rowid")
def m006_token_counts_without_rowid(db: Database) -> None:
    """Keep the cached counts clustered by (session, counter, entry): reading one counter's counts reads only them.

    Why: as a rowid table every cached count was looked up through the key's index and then
    the table; reading a 100k-entry session's counts took ~0.22 s, clustered ~0.06 s, and
    inserting them got cheaper too (0.19 → 0.14 s).
    """
    db.execute(
        """
        CREATE TABLE token_counts_clustered (
            session_id TEXT NOT NULL,
            entry_id TEXT NOT NULL,
            counter TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            PRIMARY KEY (session_id, counter, entry_id)
        ) WITHOUT ROWID
        """
    )
    db.execute(
        "INSERT INTO token_counts_clustered (session_id, entry_id, counter, tokens)"
        " SELECT session_id, entry_id, counter, tokens FROM token_counts"
    )
    db.execute("DROP TABLE token_counts")
    db.execute("ALTER TABLE token_counts_clustered RENAME TO token_counts")


@migrations(name="m007_compaction_entries_index")
def m007_compaction_entries_index(db: Database) -> None:
    """Index only the compaction entries, by session and path place, instead of every entry by (session, type).

    Why: every query by type asks for compactions (the sessions list's count, the latest
    compaction on a path, compaction ids by prefix), and the index of every entry's type
    cost each imported row one more index insert: ~0.25 s of a 100,000-entry import.
    """
    db.execute("DROP INDEX IF EXISTS idx_entries_session_type")
    db.execute("CREATE INDEX idx_entries_compactions ON entries (session_id, path_index) WHERE type = 'compaction'")


@migrations(name="m008_probe_runs")
def m008_probe_runs(db: Database) -> None:
    """The model check's results (`audit --probe`), kept with their proposal: each run's questions, answers and grades."""
    db.execute(
        """
        CREATE TABLE probe_runs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            proposal_id TEXT NOT NULL REFERENCES proposals(id) ON DELETE CASCADE,
            created_at TEXT NOT NULL,
            run_json TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX idx_probe_runs_proposal ON probe_runs (proposal_id, id)")


@migrations(name="m009_session_source_stat")
def m009_session_source_stat(db: Database) -> None:
    """Keep the file status (device, inode, size, modified and changed times) under which a session's file was last
    read as its stored bytes: a later command finding the same status takes the file as unchanged without hashing it.

    Why: every warm command checked a file by its SHA-256, ~0.25 s of a 112 MB Claude Code file (a fifth of its
    `compact`). Empty until a command has hashed the file once after its last change settled (`Importer`).
    """
    db.execute("ALTER TABLE sessions ADD COLUMN source_stat TEXT")
