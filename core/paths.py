"""Where cutline keeps its data: `$CUTLINE_HOME`, else the XDG data directory."""

from __future__ import annotations

import os
from pathlib import Path

from cutline.core.errors import CutlineError


def _home_path() -> Path:
    env = os.environ.get("CUTLINE_HOME")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "cutline"


def cutline_home() -> Path:
    """The data directory, created on first use."""
    env = os.environ.get("CUTLINE_HOME")
    home = _home_path()
    if not home.is_dir():
        if home.exists():
            what = "CUTLINE_HOME" if env else "cutline's data directory"
            raise CutlineError(
                f"cannot write {home}: {what} is a file, not a directory (point it at a directory, or move the file away)"
            )
        try:
            home.mkdir(parents=True, exist_ok=True, mode=0o700)  # the store and backups copy private sessions
        except OSError as exc:
            raise CutlineError(f"cannot write {home}: {exc.strerror or exc}") from None
    return home


def default_db_path() -> Path:
    return cutline_home() / "cutline.db"


def config_path() -> Path:
    """cutline's own TOML config (settings, key bindings)."""
    return cutline_home() / "config.toml"


def backups_dir() -> Path:
    """Copies of session files made before each write-back (a private directory)."""
    path = cutline_home() / "backups"
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.stat().st_mode & 0o077:
        path.chmod(0o700)
    return path


def existing_backups_dir() -> Path | None:
    """The backups directory when it exists (nothing is created)."""
    path = _home_path() / "backups"
    return path if path.is_dir() else None


def exports_dir() -> Path:
    """Where the desk saves downloads (exported sessions, timeline images) when run in a terminal."""
    path = cutline_home() / "exports"
    path.mkdir(parents=True, exist_ok=True)
    return path
