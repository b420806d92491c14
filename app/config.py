"""The desk's own settings from `$CUTLINE_HOME/config.toml`: key remapping (`[keys]`) and theme (`[tui]`).

`[keys]` maps a binding id (as listed on the help screen, e.g. `review.run`) to
one or more comma-separated keys, e.g. `"review.run" = "R,f5"`.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from pydantic import BaseModel, Field

from cutline.core.errors import SettingsError
from cutline.core.paths import config_path

THEMES = ("cutline-dark", "cutline-light")


class TuiConfig(BaseModel):
    """Key remapping and theme for the review desk."""

    keys: dict[str, str] = Field(default_factory=dict)
    theme: str = "cutline-dark"


def load_tui_config(path: Path | None = None) -> TuiConfig:
    """Read `[keys]` and `[tui]` from the config file; a missing file means defaults."""
    path = path or config_path()
    if not path.exists():
        return TuiConfig()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read config: {exc}") from None
    keys = data.get("keys", {})
    if not isinstance(keys, dict):
        raise SettingsError(f'{path}: [keys] must be a table of binding id = "key"')
    for binding_id, value in keys.items():
        if not isinstance(value, str) or not value.strip():
            raise SettingsError(f'{path}: keys.{binding_id} must be a non-empty string of keys, e.g. "ctrl+r"')
    tui = data.get("tui", {})
    theme = tui.get("theme", "cutline-dark") if isinstance(tui, dict) else "cutline-dark"
    if theme not in THEMES:
        raise SettingsError(f"{path}: tui.theme must be one of {', '.join(THEMES)}, not {theme!r}")
    return TuiConfig(keys={k: v.replace(" ", "") for k, v in keys.items()}, theme=theme)
