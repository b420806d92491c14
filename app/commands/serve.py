"""`cutline serve`: the review desk in a browser, one app process per tab, behind a per-start token.

Only click is imported at module level; the server and its checks load when the command runs.
"""

from __future__ import annotations

import os
import shlex
import sys
from typing import Any

import click

# the guard's own name for it (a test checks): importing the guard (hmac, secrets, ipaddress)
# only to declare the option would cost every `cutline` command ~7 ms of start-up
TOKEN_ENV = "CUTLINE_SERVE_TOKEN"


def is_loopback(host: str) -> bool:
    """Whether `host` is this machine only (see `cutline.app.web.guard.is_loopback`)."""
    from cutline.app.web.guard import is_loopback as guard_is_loopback

    return guard_is_loopback(host)


DEFAULT_MAX_DESKS = 4

EXPOSURE_WARNING = (
    "warning: cutline is serving on {host}:{port}. Anyone who can reach this port and holds the token can "
    "read every stored session and spend the configured API key; the token travels in clear over plain "
    "HTTP. Bind to 127.0.0.1 unless you trust the whole network."
)

__all__ = ["app_command", "is_loopback", "serve_cmd"]


def app_command(session: str | None) -> str:
    """The command textual-serve runs for every browser tab."""
    parts = [sys.executable, "-m", "cutline.app.cli", "open"]
    if session:
        parts.append(session)
    return shlex.join(parts)


def browser_available(environ: dict[str, str] | os._Environ[str], platform: str) -> bool:
    """Whether opening a browser makes sense: not in CI, and on Linux/BSD only with a display.

    Why: without a display Python's webbrowser falls back to a text browser that would
    take over the terminal serve prints to.
    """
    if environ.get("CI"):
        return False
    if platform.startswith(("darwin", "win")):
        return True
    return bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))


def _check_home() -> None:
    """Refuse, before serving, a CUTLINE_HOME the desks could not write."""
    import tempfile

    from cutline.core.errors import CutlineError
    from cutline.core.paths import cutline_home

    where = os.environ.get("CUTLINE_HOME") or "the cutline data directory"
    try:
        home = cutline_home()
        with tempfile.TemporaryFile(dir=home):
            pass
    except OSError as exc:
        raise CutlineError(f"cannot write {where}: {exc.strerror or exc}") from None


def _bind(host: str, port: int) -> Any:
    """A listening socket on host:port, or one line saying why not."""
    import socket

    from cutline.core.errors import CutlineError

    try:
        family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        return socket.create_server(address[:2], family=family)
    except socket.gaierror as exc:
        raise CutlineError(f"cannot bind {host}: {exc.strerror}") from None
    except OSError as exc:
        import errno

        if exc.errno == errno.EADDRINUSE:
            raise CutlineError(f"port {port} on {host} is already in use; choose another with --port") from None
        raise CutlineError(f"cannot bind {host}:{port}: {exc.strerror or exc}") from None


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _open_browser(url: str) -> None:
    """Open the desk through a private redirect file, so the token is not on any command line (`ps`)."""
    import contextlib
    import tempfile
    import webbrowser
    from html import escape
    from pathlib import Path

    folder = Path(tempfile.mkdtemp(prefix="cutline-serve-"))  # 0700
    page = folder / "open.html"
    page.write_text(
        f'<!DOCTYPE html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={escape(url)}">'
        f'<a href="{escape(url)}">open the cutline desk</a>\n',
        encoding="utf-8",
    )
    page.chmod(0o600)
    with contextlib.suppress(Exception):  # a browser that will not start is no reason to stop serving
        webbrowser.open(page.as_uri())


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to bind (0: any).")
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Required to bind an address other than loopback: exposes the sessions and the API key.",
)
@click.option("--public-url", default=None, help="URL the browser uses to reach the server (behind a proxy).")
@click.option(
    "--token",
    envvar=TOKEN_ENV,
    default=None,
    help=f"Token every request must carry (default: a new random one per start; also ${TOKEN_ENV}).",
)
@click.option(
    "--allow-origin",
    "allow_origins",
    multiple=True,
    help="Another origin (http://host:port) whose pages may use the desk, e.g. a proxy's (repeatable).",
)
@click.option(
    "--max-desks",
    default=DEFAULT_MAX_DESKS,
    show_default=True,
    type=click.IntRange(1, 64),
    help="App processes (browser tabs) at most at once.",
)
@click.option("--no-browser", is_flag=True, help="Do not open a browser; only print the address.")
@click.argument("session_or_file", required=False)
def serve_cmd(
    *,
    host: str,
    port: int,
    allow_remote: bool,
    public_url: str | None,
    token: str | None,
    allow_origins: tuple[str, ...],
    max_desks: int,
    no_browser: bool,
    session_or_file: str | None,
) -> None:
    """Serve the review desk in a browser (each tab gets its own app process).

    Every request must carry the token printed in the address (the browser keeps it in
    a cookie); requests through another Host or from another page's Origin are refused.
    """
    from cutline.app.output import say
    from cutline.core.errors import CutlineError

    if not is_loopback(host):
        if not allow_remote:
            raise CutlineError(
                f"refusing to bind {host}: it is reachable from other machines. "
                "Pass --allow-remote if anyone who can reach it may read your sessions."
            )
        say(EXPOSURE_WARNING.format(host=host, port=port), err=True)
    if token is not None and (not token.strip() or any(c.isspace() for c in token)):
        raise CutlineError("--token must be non-empty and hold no spaces")
    _check_home()
    if session_or_file is not None:
        from cutline.app.commands.tui import _check_ref

        _check_ref(session_or_file, None)

    from cutline.app.web.guard import make_policy, new_token

    sock = _bind(host, port)
    bound_port = sock.getsockname()[1]
    try:
        policy = make_policy(token or new_token(), host, bound_port, public_url, allow_origins)
    except ValueError as exc:
        sock.close()
        raise CutlineError(f"--allow-origin / --public-url: {exc}") from None
    address = (public_url or f"http://{_url_host(host)}:{bound_port}").rstrip("/")
    url = f"{address}/?token={policy.token}"

    from cutline.app.web.server import DeskServer

    server = DeskServer(
        app_command(session_or_file),
        host=host,
        port=bound_port,
        policy=policy,
        max_desks=max_desks,
        address=address,
        public_url=public_url,
    )
    say(f"cutline desk: {url}")
    say(f"(at most {max_desks} tabs at once; Ctrl+C stops serving)", err=True)
    sys.stdout.flush()
    if not no_browser and browser_available(os.environ, sys.platform):
        _open_browser(url)
    server.run(sock)


COMMANDS = [serve_cmd]
