"""`cutline serve`: the review desk in a browser, one app process per tab (textual-serve)."""

from __future__ import annotations

import ipaddress
import shlex
import sys

import click

LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1"}

EXPOSURE_WARNING = (
    "warning: cutline is serving on {host}:{port}. Anyone who can reach this port can read "
    "every stored session and spend the configured API key. Bind to 127.0.0.1 unless you "
    "trust the whole network."
)


def is_loopback(host: str) -> bool:
    """True when `host` only accepts connections from this machine."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def app_command(session: str | None) -> str:
    """The shell command textual-serve runs for every browser tab."""
    parts = [sys.executable, "-m", "cutline.app.cli", "open"]
    if session:
        parts.append(session)
    return shlex.join(parts)


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to bind.")
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Required to bind an address other than loopback: exposes the sessions and the API key.",
)
@click.option("--public-url", default=None, help="URL the browser uses to reach the server (behind a proxy).")
@click.argument("session_or_file", required=False)
def serve_cmd(host: str, port: int, allow_remote: bool, public_url: str | None, session_or_file: str | None) -> None:
    """Serve the review desk in a browser (each tab gets its own app process)."""
    from cutline.core.errors import CutlineError

    if not is_loopback(host):
        if not allow_remote:
            raise CutlineError(
                f"refusing to bind {host}: it is reachable from other machines. "
                "Pass --allow-remote if anyone who can reach it may read your sessions."
            )
        click.echo(EXPOSURE_WARNING.format(host=host, port=port), err=True)
    from textual_serve.server import Server

    server = Server(app_command(session_or_file), host=host, port=port, title="cutline", public_url=public_url)
    server.serve()


COMMANDS = [serve_cmd]
