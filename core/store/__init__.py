"""The SQLite session store: one database, its importer, and a repository per group of tables.

- `db`: opening (WAL, busy timeout, migrations), the lock, write transactions;
- `importer`: sessions streamed in from their files (new / unchanged / grown / replaced);
- `sessions`: the session list, references, whole sessions and their active path;
- `token_counts`: the per-entry, per-counter count cache;
- `proposals`: proposals, their summary versions and the decisions on them.

`Store` opens the database and holds one of each; its methods are the short names
the CLI and the desk use.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from cutline.core.agents.safe_write import clean_leftovers
from cutline.core.errors import StoreDamaged
from cutline.core.lazy import lazy_names
from cutline.core.paths import existing_backups_dir
from cutline.core.store.db import StoreDatabase, damaged_message, is_damage, utc_now

if TYPE_CHECKING:
    from sqlite_utils import Database

    from cutline.core.models import Entry, Session
    from cutline.core.store.importer import ImportedFile, Importer, ImportProgress, ImportReport, file_sha256
    from cutline.core.store.listing import SessionInfo, display_name, unique_prefixes
    from cutline.core.store.overview import CompactionInfo, PathLine, SessionOverview, entry_preview
    from cutline.core.store.probes import ProbeRuns
    from cutline.core.store.proposals import Proposals
    from cutline.core.store.rows import entry_keys
    from cutline.core.store.sessions import AmbiguousSessionError, Sessions
    from cutline.core.store.token_counts import TokenCounts
    from cutline.core.store.writebacks import WriteBacks

__all__ = [
    "AmbiguousSessionError",
    "CompactionInfo",
    "ImportProgress",
    "ImportReport",
    "ImportedFile",
    "PathLine",
    "SessionInfo",
    "SessionOverview",
    "Store",
    "display_name",
    "entry_keys",
    "entry_preview",
    "file_sha256",
    "unique_prefixes",
    "utc_now",
]

# The names this package hands on from its modules, imported when first asked for (PEP 562): a
# command imports the repositories it uses (`ls` no importer, `tokens` no proposals), not all.
_LAZY: dict[str, str] = {
    "AmbiguousSessionError": "cutline.core.store.sessions",
    "SessionInfo": "cutline.core.store.listing",
    "display_name": "cutline.core.store.listing",
    "unique_prefixes": "cutline.core.store.listing",
    "CompactionInfo": "cutline.core.store.overview",
    "PathLine": "cutline.core.store.overview",
    "SessionOverview": "cutline.core.store.overview",
    "entry_preview": "cutline.core.store.overview",
    "ImportProgress": "cutline.core.store.importer",
    "ImportReport": "cutline.core.store.importer",
    "ImportedFile": "cutline.core.store.importer",
    "file_sha256": "cutline.core.store.importer",
    "entry_keys": "cutline.core.store.rows",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())


def clean_backup_leftovers() -> list[Path]:
    """Remove the temporary files a killed backup left in the backups directory (on every start: it is one listing)."""
    backups = existing_backups_dir()
    return clean_leftovers(backups) if backups is not None else []


class Store:
    """cutline's database: open it, import sessions, read them back fast; each table group through its repository."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.database = StoreDatabase(path)
        clean_backup_leftovers()

    # Each repository is made (and its module imported) when first used: a command pays for those it uses.

    @cached_property
    def sessions(self) -> Sessions:
        from cutline.core.store.sessions import Sessions

        return Sessions(self.database)

    @cached_property
    def counts(self) -> TokenCounts:
        from cutline.core.store.token_counts import TokenCounts

        return TokenCounts(self.database)

    @cached_property
    def proposals(self) -> Proposals:
        from cutline.core.store.proposals import Proposals

        return Proposals(self.database)

    @cached_property
    def write_backs(self) -> WriteBacks:
        from cutline.core.store.writebacks import WriteBacks

        return WriteBacks(self.database)

    @cached_property
    def probes(self) -> ProbeRuns:
        from cutline.core.store.probes import ProbeRuns

        return ProbeRuns(self.database)

    @cached_property
    def importer(self) -> Importer:
        from cutline.core.store.importer import Importer

        return Importer(self.database, self.sessions, self.counts)

    @property
    def path(self) -> Path:
        """The database file."""
        return self.database.path

    @property
    def conn(self) -> sqlite3.Connection:
        """The shared connection (for tests and diagnostics; repositories are the way to the tables)."""
        return self.database.conn

    @property
    def db(self) -> Database:
        """The connection as sqlite-utils sees it (schema inspection, migrations)."""
        return self.database.db

    # -- lifecycle ---------------------------------------------------------

    def close(self) -> None:
        """Close the connection; the store cannot be used afterwards."""
        self.database.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
        if exc is not None and is_damage(exc):
            raise StoreDamaged(damaged_message(self.path, exc)) from exc

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """A write transaction that takes the write lock up front (BEGIN IMMEDIATE) and commits or rolls back as a whole."""
        return self.database.transaction()

    # -- import ------------------------------------------------------------

    def import_file(
        self, path: Path | str, *, count_tokens: bool = True, progress: ImportProgress | None = None
    ) -> ImportReport:
        """Read a session file and import it (its chars4 counts cached on the way); an unchanged file is not parsed.

        `progress` is told the stage ("reading", "writing") and how much of the file is read.
        """
        return self.importer.import_file(path, count_tokens=count_tokens, progress=progress)

    def import_and_read(
        self, path: Path | str, count: Callable[[Entry], int] | None = None, counter: str = "chars4"
    ) -> ImportedFile:
        """Read a session file once, import (or refresh) it, and keep the session as read (see `Importer`)."""
        return self.importer.import_and_read(path, count, counter)

    def import_session(self, session: Session) -> ImportReport:
        """Store a session in one transaction: insert it, add what a grown file appended, or replace a changed one."""
        return self.importer.import_session(session)

    # -- sessions ------------------------------------------------------------

    def list_sessions(self) -> list[SessionInfo]:
        """Every stored session, most recently updated first (`ls` imports the list's module alone, not `sessions`)."""
        from cutline.core.store.listing import list_sessions

        return list_sessions(self.database)

    def short_ids(self) -> dict[str, str]:
        """Every stored session id mapped to its shortest unique prefix (at least 8 chars), for listing."""
        from cutline.core.store.listing import short_ids

        return short_ids(self.database)

    def resolve_session(self, ref: str) -> str:
        """The id of the session `ref` names: an exact id, a unique id prefix, a name, or its source file's path."""
        return self.sessions.resolve(ref)

    def session_info(self, ref: str) -> SessionInfo:
        """The list row of one session."""
        return self.sessions.info(ref)

    def load_session(self, ref: str) -> Session:
        """Rebuild a stored session (all branches, in file order) from its serialized entries."""
        return self.sessions.load(ref)

    def overview(self, ref: str) -> SessionOverview:
        """Header facts, counts, compactions and the active path (with chars4 tokens, counted once and cached)."""
        from cutline.core.store.overview import overview

        return overview(self, ref)

    def path_entry_ids(self, session_id: str) -> list[str]:
        """Ids of the active path, root first, as stored."""
        return self.sessions.path_entry_ids(session_id)

    # -- token counts ------------------------------------------------------

    def token_counts(self, session_id: str, counter: str) -> dict[str, int]:
        """Cached token counts of a session's entries under one counter."""
        return self.counts.get(session_id, counter)

    def save_token_counts(self, session_id: str, counter: str, counts: dict[str, int]) -> None:
        """Cache token counts (replacing earlier ones for the same entries and counter)."""
        self.counts.save(session_id, counter, counts)
