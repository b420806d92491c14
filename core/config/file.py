"""cutline's one config: `$CUTLINE_HOME/config.toml` overlaid by `CUTLINE_…` environment variables.

Every reader (the CLI, the desk, the web mode) goes through `load_config`, so a
setting means the same thing wherever it is used. Environment variables name a
key by its path with `__` between the parts, case ignored:
`CUTLINE_COMPACTION__KEEPRECENTTOKENS=5000`, `CUTLINE_TUI__THEME=cutline-light`,
`CUTLINE_HOOKS__BEFORE_COMPACTION='["pkg.mod:fn"]'`.
"""

from __future__ import annotations

import os
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator

from cutline.core.config.errors import describe
from cutline.core.config.openclaw import openclaw_compaction_dict
from cutline.core.config.settings import CompactionSettings, settings_from_dict
from cutline.core.errors import SettingsError
from cutline.core.lazy import import_deferring
from cutline.core.paths import config_path

# pydantic-settings imports asyncio at its top for `CliApp.run` alone, which cutline never calls:
# imported without it, asyncio's ~40 ms are paid only by what really runs asynchronously
import_deferring("pydantic_settings", "asyncio")

from pydantic_settings import (  # noqa: E402
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

ENV_PREFIX = "CUTLINE_"
ENV_DELIMITER = "__"
DEFAULT_HOOK_TIMEOUT_SECONDS = 10.0

# the file `load_config` reads; a context variable so concurrent loads of different files never mix
_config_file: ContextVar[Path | None] = ContextVar("cutline_config_file", default=None)


class HooksConfig(BaseModel):
    """`[hooks]`: Python callables run before / after every compaction.

    `entry_points` opts into hooks that installed packages register in the
    `cutline.hooks` entry-point group: `true` for all of them, or a list of the
    distributions (package names) to trust. Off by default, because installing a
    package should not be enough to run its code on every session.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    before_compaction: list[str] = Field(default_factory=list)
    after_compaction: list[str] = Field(default_factory=list)
    entry_points: bool | list[str] = False
    timeout_seconds: float = Field(default=DEFAULT_HOOK_TIMEOUT_SECONDS, gt=0)

    @field_validator("entry_points", mode="before")
    @classmethod
    def _flag_or_names(cls, value: Any) -> Any:
        # checked by hand: a union's own error would name its members instead of the key
        if isinstance(value, bool) or (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            return value
        raise ValueError("must be true, false or a list of package names")


class TuiSection(BaseModel):
    """`[tui]`: the desk's look; the theme name is checked by the desk, which knows its themes."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    theme: str = "cutline-dark"
    # how often the desk looks for compactions the agents made on their own (seconds; 0: never)
    inbox_scan_seconds: float = Field(default=60.0, ge=0)


KeySpec = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class CutlineConfig(BaseSettings):
    """Every section of config.toml; environment variables win over the file."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter=ENV_DELIMITER,
        case_sensitive=False,
        extra="forbid",
    )

    compaction: CompactionSettings = Field(default_factory=CompactionSettings)
    hooks: HooksConfig = Field(default_factory=HooksConfig)
    tui: TuiSection = Field(default_factory=TuiSection)
    # a binding id (as the desk's help lists it, e.g. `review.run`) -> comma-separated keys
    keys: dict[str, KeySpec] = Field(default_factory=dict)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        file = _config_file.get() or config_path()
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls, toml_file=file))


def _env_name(loc: tuple[str | int, ...]) -> str | None:
    """The environment variable that set the value at `loc`, if one did."""
    wanted = (ENV_PREFIX + ENV_DELIMITER.join(str(part) for part in loc)).upper()
    return next((name for name in os.environ if name.upper() == wanted), None)


def key_error(exc: ValidationError, prefix: tuple[str, ...] = ()) -> SettingsError:
    """The first problem of a validation as one line that names its key (and the variable, when one set it)."""
    first = exc.errors()[0]
    loc: tuple[str | int, ...] = (*prefix, *first.get("loc", ()))
    message = f"{'.'.join(str(p) for p in loc)}: {describe(first)}"
    variable = _env_name(loc)
    return SettingsError(f"{message} (from {variable})" if variable else message)


def load_config(path: str | Path | None = None) -> CutlineConfig:
    """The config from `path` (default `$CUTLINE_HOME/config.toml`; absent means defaults) and the environment."""
    file = Path(path) if path is not None else config_path()
    token = _config_file.set(file)
    try:
        return CutlineConfig()
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{file}: not valid TOML ({exc})") from None
    except UnicodeDecodeError:
        raise SettingsError(f"{file}: not valid TOML (not UTF-8)") from None
    except OSError as exc:
        raise SettingsError(f"{file}: cannot read config ({exc.strerror})") from None
    except ValidationError as exc:
        raise key_error(exc) from None
    finally:
        _config_file.reset(token)


def merged(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """`base` with `extra` laid over it, tables merged key by key."""
    result = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merged(result[key], value)
        else:
            result[key] = value
    return result


def load_settings(
    config: str | Path | None = None,
    *,
    openclaw: str | Path | None = None,
    overrides: dict[str, Any] | None = None,
) -> CompactionSettings:
    """The `[compaction]` settings of cutline's config, then an OpenClaw config, then explicit overrides (later wins).

    `config` defaults to `$CUTLINE_HOME/config.toml` (with its `CUTLINE_…` environment
    overrides); None values in `overrides` are ignored.
    """
    settings = load_config(config).compaction
    if openclaw is None and not overrides:
        return settings
    data = settings.model_dump(exclude_unset=True)
    if openclaw is not None:
        data = merged(data, openclaw_compaction_dict(openclaw))
    if overrides:
        data = merged(data, {k: v for k, v in overrides.items() if v is not None})
    return settings_from_dict(data)
