"""CLI subcommands: every module here exposes `COMMANDS`, a list of click commands, picked up by cutline.app.cli."""
