"""`cutline open [FILE_OR_SESSION]` (also plain `cutline` and `cutline FILE`): the review desk."""

from __future__ import annotations

import click


@click.command("open")
@click.argument("file_or_session", required=False)
@click.option("--db", "db_path", type=click.Path(dir_okay=False), default=None, help="Store to use (default: $CUTLINE_HOME/cutline.db).")
def open_cmd(file_or_session: str | None, db_path: str | None) -> None:
    """Open the review desk: the sessions screen, or the review screen of FILE_OR_SESSION (imported if needed)."""
    from app.tui import create_app

    app = create_app(db_path, file_or_session)
    app.run()
    if app.return_code:
        raise SystemExit(app.return_code)


COMMANDS = [open_cmd]
