"""The `--db` option every command that reads the store takes, and the store it names.

Only click is imported at module level: every command module is imported when the CLI starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from cutline.core.store import Store

DB = click.option(
    "--db",
    "db_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Store to use (default: $CUTLINE_HOME/cutline.db).",
)


def open_store(db_path: str | None, *, recover: bool = False) -> Store:
    """The store `--db` names; with `recover`, after finishing any write-back a crash interrupted (one line each on stderr)."""
    from cutline.core.store import Store

    store = Store(db_path)
    if recover:
        from cutline.app.output import say
        from cutline.core.session_writes import recover_write_backs

        for line in recover_write_backs(store):
            say(f"cutline: {line}", err=True)
    return store
