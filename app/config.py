"""The desk's own settings: key remapping (`[keys]`) and theme (`[tui]`) from the one config (core.config.file).

`[keys]` maps a binding id (as listed on the help screen, e.g. `review.run`) to
one or more comma-separated keys, e.g. `"review.run" = "R,f5"`.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from cutline.core.config.file import load_config
from cutline.core.errors import SettingsError

THEMES = ("cutline-dark", "cutline-light")


class TuiConfig(BaseModel):
    """Key remapping and theme for the review desk."""

    keys: dict[str, str] = Field(default_factory=dict)
    theme: str = "cutline-dark"
    inbox_scan_seconds: float = 60.0  # the desk's scan of the agents' session folders (0: never)


def load_tui_config(path: Path | None = None) -> TuiConfig:
    """`[keys]` and `[tui]` of the config (default `$CUTLINE_HOME/config.toml`, with `CUTLINE_…` overrides)."""
    config = load_config(path)
    if config.tui.theme not in THEMES:
        raise SettingsError(f"tui.theme: must be one of {', '.join(THEMES)}, not {config.tui.theme!r}")
    return TuiConfig(
        keys={k: v.replace(" ", "") for k, v in config.keys.items()},
        theme=config.tui.theme,
        inbox_scan_seconds=config.tui.inbox_scan_seconds,
    )
