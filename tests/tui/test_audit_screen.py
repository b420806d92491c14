"""The audit screen on its own in a test app: pilot checks of what it shows, and a snapshot."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import OptionList, Static
from textual.worker import WorkerFailed

from cutline.app.screens.audit import AuditScreen, TimelinePlot, plot_lines
from cutline.core.audit.timeline import build_timeline
from cutline.core.config.settings import CompactionSettings
from cutline.core.store import Store
from tests.support.audit_builders import audit_demo_builder


def _session():
    b = audit_demo_builder()
    b.user("Ship version 2.", id="u5")
    b.assistant("Shipped.", usage=1000, id="a5")
    b.compaction("## Progress\n- Changelog added", "u5", tokens_before=1000, id="c2")
    return b.session()


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    path = tmp_path / "audit.db"
    with Store(path) as store:
        store.import_session(_session())
    return path


class AuditTestApp(App[None]):
    """A bare app that only shows the audit screen (no cutline desk around it)."""

    def __init__(self, screen: AuditScreen) -> None:
        super().__init__()
        self.audit_screen = screen

    def on_mount(self) -> None:
        self.push_screen(self.audit_screen)


async def test_screen_shows_retention_lost_facts_and_source(store_path: Path) -> None:
    app = AuditTestApp(AuditScreen(store_path, "audit-demo", "c1"))
    async with app.run_test(size=(140, 48)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AuditScreen)
        title = str(screen.query_one("#audit-title", Static).render())
        assert "Audit of compaction c1" in title and "compaction 1 of 2" in title
        retention = str(screen.query_one("#audit-retention", Static).render())
        assert "Decisions" in retention and "0/2" in retention
        lost = screen.query_one("#audit-lost", OptionList)
        labels = [str(lost.get_option_at_index(i).prompt) for i in range(lost.option_count)]
        assert labels[0].startswith("Errors (1)")
        assert any("bash: poetry: command not found" in label for label in labels)
        assert "Decisions (2)" in labels
        warnings = str(screen.query_one("#audit-warnings", Static).render())
        assert "tool-failures-vanished" in warnings
        # selecting the error shows its source entry with the fact in it
        lost.focus()
        await pilot.press("down")
        await pilot.pause()
        source = str(screen.query_one("#audit-source", Static).render())
        assert "entry t1 · toolResult" in source and "poetry: command not found" in source
        # ] moves to the next compaction
        await pilot.press("right_square_bracket")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Audit of compaction c2" in str(screen.query_one("#audit-title", Static).render())
        assert screen.query_one(TimelinePlot).timeline is not None


async def test_screen_reports_a_bad_target_without_crashing(store_path: Path) -> None:
    app = AuditTestApp(AuditScreen(store_path, "audit-demo", "u1"))
    async with app.run_test(size=(100, 30)) as pilot:
        # wait_for_complete re-raises a failed worker's error to the waiter (the app itself keeps running:
        # the worker has exit_on_error=False); a worker already finished and removed raises nothing
        try:
            await app.workers.wait_for_complete()
        except WorkerFailed as failed:
            assert "entry u1 is a message entry, not a compaction" in str(failed)
        await pilot.pause()
        assert app.is_running and app.return_code is None
        assert "audit failed: entry u1 is a message entry, not a compaction" in str(
            app.screen.query_one("#audit-title", Static).render()
        )


def test_plot_marks_window_threshold_compactions_and_series() -> None:
    timeline = build_timeline(_session(), CompactionSettings(contextWindow=3000, reserveTokens=500), ["chars4"])
    lines = [str(line) for line in plot_lines(timeline, 60, 12)]
    assert len(lines) == 12
    assert "━ usage" in lines[0] and "━ chars4" in lines[0]
    body = "\n".join(lines[1:])
    assert "─" in body and "┄" in body and "│" in body
    assert any(0x2800 < ord(ch) <= 0x28FF for ch in body)
    # the window's row carries its label
    assert any(line.lstrip().startswith("3k┤") for line in lines)


def test_snapshot(store_path: Path, snap_compare, cutline_home: Path) -> None:
    (cutline_home / "config.toml").write_text('[compaction]\nrules = "pi-0.73"\n', encoding="utf-8")  # pi 0.73's replay

    async def ready(pilot) -> None:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    app = AuditTestApp(AuditScreen(store_path, "audit-demo", "c1"))
    assert snap_compare(app, terminal_size=(140, 48), run_before=ready)


async def test_replay_key_draws_the_replayed_context(store_path: Path, cutline_home: Path) -> None:
    (cutline_home / "config.toml").write_text(
        "[compaction]\ncontextWindow = 2000\nreserveTokens = 100\nkeepRecentTokens = 10\n"
    )
    app = AuditTestApp(AuditScreen(store_path, "audit-demo", "c1"))
    async with app.run_test(size=(140, 48)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        plot = app.screen.query_one(TimelinePlot)
        assert "replay" in plot.timeline.counters
        assert str(plot.border_subtitle).startswith("with keepRecentTokens 10 (window 2,000, reserve 100, chars4)")
        await pilot.press("r")
        await pilot.pause()
        assert "replay" not in plot.timeline.counters and not plot.border_subtitle


async def test_inside_the_desk_the_screen_uses_the_apps_store(store_path: Path) -> None:
    from datetime import datetime

    from cutline.app.tui import create_app

    app = create_app(store_path, clock=lambda: datetime(2026, 1, 1, tzinfo=UTC), cursor_blink=False)
    async with app.run_test(size=(140, 48)) as pilot:
        await app.workers.wait_for_complete()
        await app.push_screen(AuditScreen("audit-demo", compaction_entry_id="c2"))
        await app.workers.wait_for_complete()
        await pilot.pause()
        title = str(app.screen.query_one("#audit-title", Static).render())
        assert "Audit of compaction c2" in title and "compaction 2 of 2" in title
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, AuditScreen)


def test_plot_of_a_small_session_uses_its_own_scale() -> None:
    timeline = build_timeline(_session(), CompactionSettings(), ["chars4"])  # peak 2,400 against a 200k window
    lines = [str(line) for line in plot_lines(timeline, 60, 12)]
    assert "window 200k / threshold 184k off scale" in lines[0]
    body = "\n".join(lines[1:])
    assert "─" not in body.replace("└" + "─" * 53, "")  # no window line, only the x axis
    assert any(line.lstrip().startswith("2k┤") for line in lines)  # the top label is near the peak (2,400 * 1.05)
