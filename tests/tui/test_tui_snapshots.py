"""Snapshots of every screen and state of the desk (fixed clock, no cursor blink, fixed ids).

Regenerate deliberately with `pytest tests/test_tui_snapshots.py --snapshot-update`
and look at the SVGs in tests/__snapshots__/ before committing them.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest
from textual.widgets import Input
from textual.worker import WorkerCancelled, WorkerFailed

import cutline.core.engine.compact
import cutline.core.review
from cutline.core.errors import NotFoundError
from cutline.core.store import Store
from cutline.core.summarizers.base import Summarizer, SummaryRequest
from tests.support.tui_app import test_app, write_session

SIZE = (140, 40)


@pytest.fixture
def ledger(tmp_path: Path, cutline_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixed session, a config that keeps 5000 recent tokens (so the cut is on screen), and fixed ids."""
    # pi 0.73's rules, pinned: the snapshots show its plan (current pi is the default since issue 11)
    (cutline_home / "config.toml").write_text(
        '[compaction]\nkeepRecentTokens = 5000\nrules = "pi-0.73"\n', encoding="utf-8"
    )
    monkeypatch.setattr(cutline.core.engine.compact, "new_proposal_id", lambda now=None: "019b8e2a5f00c0ffee42")
    monkeypatch.setattr(cutline.core.review.secrets, "token_hex", lambda n=4: "5eed" * n)
    monkeypatch.chdir(tmp_path)  # paths are shown relative to the working directory
    return write_session(tmp_path / "ledger.jsonl")


async def _settle(pilot) -> None:
    for _ in range(3):
        # a failed worker: the app shows it in the error modal; a cancelled one was replaced by its group's next
        # (the inbox count is exclusive: on a busy machine a second count cancels the first)
        with contextlib.suppress(WorkerFailed, WorkerCancelled):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def _run(pilot) -> None:
    await _settle(pilot)
    await pilot.press("r")
    await _settle(pilot)


def test_sessions_screen(snap_compare, tmp_path: Path, ledger: Path) -> None:
    store = tmp_path / "store.db"
    with Store(store) as s:
        s.import_file(ledger)
        s.import_file(write_session(tmp_path / "payments-refactor.jsonl", turns=3))
    assert snap_compare(test_app(store), run_before=_settle, terminal_size=SIZE)


def test_review_with_plan(snap_compare, tmp_path: Path, ledger: Path) -> None:
    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=_settle, terminal_size=SIZE)


def test_review_light_theme(snap_compare, tmp_path: Path, ledger: Path) -> None:
    async def before(pilot) -> None:
        await _settle(pilot)
        await pilot.press("ctrl+t", "k", "k")

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=SIZE)


def test_settings_changed(snap_compare, tmp_path: Path, ledger: Path) -> None:
    async def before(pilot) -> None:
        await _settle(pilot)
        await pilot.press("s")
        field = pilot.app.screen.query_one("#setting-keepRecentTokens", Input)
        field.focus()
        await pilot.press("end", *["backspace"] * 6, *"2500")
        await pilot.pause()

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=SIZE)


class _Waiting(Summarizer):
    """A summarizer that never answers, to show the desk while a run is in progress."""

    name = "waiting"

    async def summarize(self, request: SummaryRequest) -> str:
        await asyncio.Event().wait()
        return ""


def test_running(snap_compare, tmp_path: Path, ledger: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import cutline.core.summarizers

    monkeypatch.setattr(cutline.core.summarizers, "get_summarizer", lambda name, **kw: _Waiting())

    async def before(pilot) -> None:
        await _settle(pilot)
        await pilot.press("r")
        for _ in range(5):
            await pilot.pause()

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=SIZE)


def test_proposal(snap_compare, tmp_path: Path, ledger: Path) -> None:
    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=_run, terminal_size=SIZE)


async def _edit(pilot) -> None:
    await _run(pilot)
    await pilot.press("e")
    editor = pilot.app.screen.query_one("#summary-editor")
    editor.move_cursor((0, 0))
    await pilot.press(*"Checked by hand: the CSV order rule is the one that matters.", "enter", "enter")
    await pilot.pause()


def test_editor(snap_compare, tmp_path: Path, ledger: Path) -> None:
    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=_edit, terminal_size=SIZE)


def test_diff(snap_compare, tmp_path: Path, ledger: Path) -> None:
    async def before(pilot) -> None:
        await _edit(pilot)
        await pilot.press("escape", "v")
        await _settle(pilot)

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=SIZE)


def test_accept_confirmation(snap_compare, tmp_path: Path, ledger: Path) -> None:
    async def before(pilot) -> None:
        await _edit(pilot)
        await pilot.press("escape", "a")
        await _settle(pilot)

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=SIZE)


def test_error_modal(snap_compare, tmp_path: Path, ledger: Path) -> None:
    # opened over a settled screen, so the snapshot does not depend on how fast a worker fails
    # (tests/test_tui.py covers a failing worker opening it)
    async def before(pilot) -> None:
        await _settle(pilot)
        pilot.app.show_error(
            "Loading the session failed",
            NotFoundError("no stored session matches 'no-such-session' (try `cutline ls`)"),
        )
        await _settle(pilot)

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=SIZE)


def test_help_screen(snap_compare, tmp_path: Path, ledger: Path) -> None:
    async def before(pilot) -> None:
        await _settle(pilot)
        await pilot.press("f1")
        await pilot.pause()

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=SIZE)
