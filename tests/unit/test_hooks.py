"""Compaction hooks: config references, concurrency, and failures that never block."""

from __future__ import annotations

import asyncio
import sys
import textwrap
import types

import pytest

from cutline.core.hooks import AfterCompactionEvent, BeforeCompactionEvent, HooksConfig, resolve_hook, run_hooks

CALLS: list[tuple[str, dict]] = []


def record(event: dict) -> None:
    CALLS.append(("sync", event))


async def record_async(event: dict) -> None:
    CALLS.append(("async", event))


def explode(event: dict) -> None:
    raise RuntimeError("disk full")


@pytest.fixture(autouse=True)
def _hook_module(monkeypatch):
    """Expose this file's hook functions under one module name, whatever name pytest imported it as."""
    CALLS.clear()
    module = types.ModuleType("cutline_hooks_fixture")
    module.record, module.record_async, module.explode = record, record_async, explode
    monkeypatch.setitem(sys.modules, "cutline_hooks_fixture", module)


async def test_sync_and_async_hooks_receive_the_event():
    config = HooksConfig(before_compaction=["cutline_hooks_fixture:record", "cutline_hooks_fixture:record_async"])
    outcomes = await run_hooks("before_compaction", BeforeCompactionEvent(messageCount=12, tokenCount=5000), config)
    assert [o.ok for o in outcomes] == [True, True]
    assert sorted(CALLS, key=lambda c: c[0]) == [
        ("async", {"messageCount": 12, "tokenCount": 5000}),
        ("sync", {"messageCount": 12, "tokenCount": 5000}),
    ]


async def test_failures_are_reported_not_raised():
    config = HooksConfig(
        after_compaction=[
            "cutline_hooks_fixture:explode",
            "no_such_module_xyz:fn",
            "cutline_hooks_fixture:record",
            "bad",
        ],
    )
    event = AfterCompactionEvent(messageCount=10, tokenCount=900, compactedCount=7)
    outcomes = await run_hooks("after_compaction", event, config)
    assert [(o.hook, o.ok) for o in outcomes] == [
        ("cutline_hooks_fixture:explode", False),
        ("no_such_module_xyz:fn", False),
        ("cutline_hooks_fixture:record", True),
        ("bad", False),
    ]
    assert outcomes[0].note() == "after_compaction hook cutline_hooks_fixture:explode failed: RuntimeError: disk full"
    assert outcomes[3].error == "hook 'bad' is not of the form module:function"
    assert CALLS == [("sync", {"messageCount": 10, "tokenCount": 900, "compactedCount": 7})]


async def test_hooks_run_concurrently_and_slow_hook_times_out(monkeypatch):
    gate = asyncio.Event()
    module = types.ModuleType("cutline_test_hooks_mod")

    async def waiter(event):
        await asyncio.wait_for(gate.wait(), 5)

    async def opener(event):
        gate.set()

    async def hang(event):
        await asyncio.sleep(30)

    module.waiter, module.opener, module.hang = waiter, opener, hang
    monkeypatch.setitem(sys.modules, "cutline_test_hooks_mod", module)
    # waiter only finishes if opener runs while it is waiting: they must run at the same time
    config = HooksConfig(
        before_compaction=[
            "cutline_test_hooks_mod:waiter",
            "cutline_test_hooks_mod:opener",
            "cutline_test_hooks_mod:hang",
        ],
        timeout_seconds=0.5,
    )
    outcomes = await run_hooks("before_compaction", BeforeCompactionEvent(messageCount=1), config)
    assert [o.ok for o in outcomes] == [True, True, False]
    assert outcomes[2].error == "timed out after 0.5 s"


def test_resolve_dotted_attribute_and_errors():
    assert resolve_hook("textwrap:dedent") is textwrap.dedent
    with pytest.raises(ValueError, match="has no attribute nope"):
        resolve_hook("textwrap:nope")


async def test_no_config_runs_nothing():
    assert await run_hooks("before_compaction", BeforeCompactionEvent(messageCount=1), None) == []


async def test_entry_point_hooks_registered_under_the_event_name(monkeypatch):
    from importlib.metadata import EntryPoint

    import cutline.core.hooks as hooks_module

    points = [
        EntryPoint(name="before_compaction", value="cutline_hooks_fixture:record", group="cutline.hooks"),
        EntryPoint(name="after_compaction", value="cutline_hooks_fixture:explode", group="cutline.hooks"),
        EntryPoint(name="before_compaction", value="missing_plugin_mod:hook", group="cutline.hooks"),
    ]
    monkeypatch.setattr(hooks_module, "entry_points", lambda group: [p for p in points if p.group == group])
    event = BeforeCompactionEvent(messageCount=3, tokenCount=30)
    outcomes = await run_hooks("before_compaction", event, HooksConfig(entry_points=True))
    assert [(o.hook, o.ok) for o in outcomes] == [
        ("cutline_hooks_fixture:record", True),
        ("missing_plugin_mod:hook", False),
    ]
    assert outcomes[1].error == "ModuleNotFoundError: No module named 'missing_plugin_mod'"
    assert CALLS == [("sync", {"messageCount": 3, "tokenCount": 30})]


def test_hooks_config_from_toml(tmp_path):
    from cutline.core.config.file import load_config

    config = tmp_path / "config.toml"
    config.write_text('[hooks]\nbefore_compaction = ["pkg.mod:fn"]\ntimeout_seconds = 2.5\n')
    loaded = load_config(config).hooks
    assert loaded.before_compaction == ["pkg.mod:fn"] and loaded.timeout_seconds == 2.5
    assert load_config(tmp_path / "absent.toml").hooks == HooksConfig()


async def test_entry_point_hooks_are_opt_in(monkeypatch):
    from importlib.metadata import EntryPoint

    import cutline.core.hooks as hooks_module

    class Dist:
        def __init__(self, name: str) -> None:
            self.name = name

    def point(value: str, dist: str) -> EntryPoint:
        entry = EntryPoint(name="before_compaction", value=value, group="cutline.hooks")
        return entry._for(Dist(dist))  # type: ignore[attr-defined]

    points = [point("cutline_hooks_fixture:record", "Trusted_Plugin"), point("cutline_hooks_fixture:explode", "other")]
    monkeypatch.setattr(hooks_module, "entry_points", lambda group: points)
    event = BeforeCompactionEvent(messageCount=1)
    assert await run_hooks("before_compaction", event, HooksConfig()) == []  # installed is not enough
    outcomes = await run_hooks("before_compaction", event, HooksConfig(entry_points=["trusted-plugin"]))
    assert [(o.hook, o.ok) for o in outcomes] == [("cutline_hooks_fixture:record", True)]
    outcomes = await run_hooks("before_compaction", event, HooksConfig(entry_points=True))
    assert [o.ok for o in outcomes] == [True, False]
