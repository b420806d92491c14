"""`cutline open [FILE_OR_SESSION]` (also plain `cutline` and `cutline FILE`): the review desk."""

from __future__ import annotations

import click

from cutline.app.commands._store import DB


@click.command("open")
@click.argument("file_or_session", required=False)
@DB
def open_cmd(file_or_session: str | None, db_path: str | None) -> None:
    """Open the review desk: the sessions screen, or the review screen of FILE_OR_SESSION (imported if needed)."""
    if file_or_session is not None:
        _check_ref(file_or_session, db_path)
    from cutline.app.tui import create_app

    app = create_app(db_path, file_or_session)
    app.run()
    if app.return_code:
        raise SystemExit(app.return_code)


def _check_ref(ref: str, db_path: str | None) -> None:
    """Refuse, as one line and before the desk takes the screen, a ref that is neither a file nor a stored session.

    `cutline NAME` opens the desk, so a mistyped command name lands here too.
    """
    from pathlib import Path

    from cutline.core.errors import CutlineError, NotFoundError
    from cutline.core.store import Store

    path = Path(ref).expanduser()
    if path.is_dir():
        raise CutlineError(f"{ref}: is a directory, not a session file")
    if path.exists():
        return
    with Store(Path(db_path) if db_path else None) as store:
        try:
            store.resolve_session(ref)
        except NotFoundError as exc:
            raise NotFoundError(f"{exc}; not a file either, nor a command (see `cutline --help`)") from exc


COMMANDS = [open_cmd]
