"""The `cutline` command: subcommands are discovered from app/commands, errors become one line.

Every line it prints goes through `cutline.app.output`, which shows control characters
as pictures: session text (names, file names, summaries) must not drive the terminal.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

import cutline.app.commands as _commands_pkg
from cutline.app.output import say, terminal_text
from cutline.app.quick_exit import exit_if_held
from cutline.core.errors import CutlineError


class _CutlineGroup(click.Group):
    """A group where `cutline FILE_OR_SESSION` means `cutline open FILE_OR_SESSION`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and not args[0].startswith("-") and args[0] not in self.commands and "open" in self.commands:
            args = ["open", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_CutlineGroup, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="cutline")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """cutline: review, edit and audit LLM agent context compactions.

    With no command, opens the review desk on the sessions screen; with a file or
    session, imports it if needed and opens its review screen.
    """
    if ctx.invoked_subcommand is None:
        if "open" not in cli.commands:
            click.echo(ctx.get_help())
            return
        ctx.invoke(cli.commands["open"])


def _register_commands() -> None:
    # the modules beside the package's __init__ (pkgutil's walk cost ~4 ms of every start-up)
    names = {
        name.removesuffix(".py")
        for folder in _commands_pkg.__path__
        for name in os.listdir(folder)
        if name.endswith(".py") and name != "__init__.py"
    }
    for name in sorted(names):
        module = importlib.import_module(f"cutline.app.commands.{name}")
        for command in getattr(module, "COMMANDS", []):
            cli.add_command(command)


_register_commands()


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning every error into one line on stderr."""
    try:
        code = cli.main(args=argv, prog_name="cutline", standalone_mode=False)
        if isinstance(code, int) and code != 0:
            sys.exit(code)
        if argv is None:  # a process of its own (not a caller's `main([...])`)
            exit_if_held(0)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except SystemExit as exc:
        # the whole deadline's timer fired as its block ended (app.deadline.TimeUp): the deadline's one line, not a
        # silent exit; the module is only there when a command armed the timer
        deadline = sys.modules.get("cutline.app.deadline")
        if deadline is not None and isinstance(exc, deadline.TimeUp):
            say(f"cutline: {exc.code}", err=True)
            sys.exit(1)
        raise
    except click.exceptions.Abort:
        say("cutline: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.message = terminal_text(exc.message)  # type: ignore[misc]  # it can quote an argument: a session or file name
        exc.show()
        sys.exit(exc.exit_code)
    except CutlineError as exc:
        say(f"cutline: {exc}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        say("cutline: interrupted", err=True)
        sys.exit(130)
    except Exception as exc:
        if os.environ.get("CUTLINE_DEBUG"):
            raise
        say(f"cutline: internal error: {type(exc).__name__}: {exc} (set CUTLINE_DEBUG=1 for details)", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
