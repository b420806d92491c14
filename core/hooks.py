"""Before / after compaction hooks: Python callables named in config or registered as entry points.

Like OpenClaw's `before_compaction` / `after_compaction` plugin hooks they are void
hooks: all hooks of an event run concurrently, their return values are ignored, and
a hook that fails, hangs past its timeout or cannot be loaded is logged and recorded
(the engine puts it in the proposal's notes) but never blocks the compaction.

A hook is `module:function` (a dotted attribute path after the colon is allowed),
called with one argument, the event as a dict; it may be sync or async. Installed
packages may register hooks in the entry-point group `cutline.hooks` under the
event's name (`before_compaction` or `after_compaction`); those run only when
`[hooks] entry_points` in config.toml opts in (all, or the named distributions).
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import logging
import time
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from cutline.core.config.file import DEFAULT_HOOK_TIMEOUT_SECONDS, HooksConfig

log = logging.getLogger("cutline.hooks")

ENTRY_POINT_GROUP = "cutline.hooks"
DEFAULT_TIMEOUT_SECONDS = DEFAULT_HOOK_TIMEOUT_SECONDS
HookEventName = Literal["before_compaction", "after_compaction"]
EVENTS: tuple[HookEventName, ...] = ("before_compaction", "after_compaction")


class BeforeCompactionEvent(BaseModel):
    """Fired before summarization starts."""

    model_config = ConfigDict(defer_build=True)

    messageCount: int
    tokenCount: int | None = None


class AfterCompactionEvent(BaseModel):
    """Fired after the summary is made; `compactedCount` messages were summarized away."""

    model_config = ConfigDict(defer_build=True)

    messageCount: int
    tokenCount: int | None = None
    compactedCount: int


class HookOutcome(BaseModel):
    """What happened when one hook ran (or failed to load)."""

    model_config = ConfigDict(defer_build=True)

    event: HookEventName
    hook: str
    ok: bool
    error: str | None = None
    seconds: float = 0.0

    def note(self) -> str:
        return f"{self.event} hook {self.hook} failed: {self.error}"


class _Loaded(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True, defer_build=True)

    name: str
    func: Callable[..., Any] | None = None
    error: str | None = None


def resolve_hook(reference: str) -> Callable[..., Any]:
    """Import `module:attr.path` and return the callable; ValueError with a readable reason otherwise."""
    module_name, sep, attr_path = reference.partition(":")
    if not sep or not module_name or not attr_path:
        raise ValueError(f"hook {reference!r} is not of the form module:function")
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as exc:
        raise ValueError(f"cannot import {module_name}: {type(exc).__name__}: {exc}") from exc
    for part in attr_path.split("."):
        if not hasattr(target, part):
            raise ValueError(f"{module_name} has no attribute {attr_path}")
        target = getattr(target, part)
    if not callable(target):
        raise ValueError(f"{reference} is not callable")
    func: Callable[..., Any] = target
    return func


def _trusted(point: EntryPoint, allowed: bool | list[str]) -> bool:
    """Whether config opted into this entry point: all of them, or its distribution by name."""
    if isinstance(allowed, bool):
        return allowed
    dist = point.dist.name if point.dist is not None else None
    return dist is not None and _normal(dist) in {_normal(name) for name in allowed}


def _normal(name: str) -> str:
    """A distribution name as packaging compares them (case, `-`, `_` and `.` alike)."""
    return name.lower().replace("_", "-").replace(".", "-")


def _load(event: HookEventName, config: HooksConfig) -> list[_Loaded]:
    loaded: list[_Loaded] = []
    for reference in getattr(config, event):
        try:
            loaded.append(_Loaded(name=reference, func=resolve_hook(reference)))
        except ValueError as exc:
            loaded.append(_Loaded(name=reference, error=str(exc)))
    points = entry_points(group=ENTRY_POINT_GROUP) if config.entry_points else ()
    for point in points:
        if point.name != event or not _trusted(point, config.entry_points):
            continue
        try:
            func = point.load()
            if not callable(func):
                raise ValueError(f"{point.value} is not callable")
            loaded.append(_Loaded(name=point.value, func=func))
        except Exception as exc:
            loaded.append(_Loaded(name=point.value, error=f"{type(exc).__name__}: {exc}"))
    return loaded


async def _call(func: Callable[..., Any], payload: dict[str, Any]) -> None:
    if inspect.iscoroutinefunction(func):
        await func(payload)
        return
    result = await asyncio.to_thread(func, payload)
    if inspect.isawaitable(result):
        await result


async def _run_one(event: HookEventName, hook: _Loaded, payload: dict[str, Any], timeout: float) -> HookOutcome:
    if hook.func is None:
        outcome = HookOutcome(event=event, hook=hook.name, ok=False, error=hook.error)
        log.warning(outcome.note())
        return outcome
    started = time.perf_counter()
    try:
        await asyncio.wait_for(_call(hook.func, dict(payload)), timeout=timeout)
    except TimeoutError:
        error = f"timed out after {timeout:g} s"
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
    else:
        return HookOutcome(event=event, hook=hook.name, ok=True, seconds=time.perf_counter() - started)
    outcome = HookOutcome(event=event, hook=hook.name, ok=False, error=error, seconds=time.perf_counter() - started)
    log.warning(outcome.note())
    return outcome


async def run_hooks(
    event: HookEventName,
    payload: BeforeCompactionEvent | AfterCompactionEvent,
    config: HooksConfig | None,
) -> list[HookOutcome]:
    """Run every hook of `event` concurrently and report each outcome; never raises for a hook's failure."""
    if config is None:
        return []
    hooks = _load(event, config)
    if not hooks:
        return []
    data = payload.model_dump(exclude_none=True)
    return list(await asyncio.gather(*(_run_one(event, h, data, config.timeout_seconds) for h in hooks)))


__all__ = [
    "EVENTS",
    "AfterCompactionEvent",
    "BeforeCompactionEvent",
    "HookOutcome",
    "HooksConfig",
    "resolve_hook",
    "run_hooks",
]
