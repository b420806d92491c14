"""Every screen of the desk at the two sizes a person uses: 80x24 (every pane reachable) and 160x45.

Regenerate deliberately with `pytest tests/tui/test_desk_snapshots.py --snapshot-update`
and look at the SVGs (chromium --headless --screenshot turns one into a PNG).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

import cutline.core.engine.compact
import cutline.core.review
from cutline.core.store import Store
from tests.support.audit_builders import audit_demo_session, evidence_session
from tests.support.tui_app import settle_pilot as settle
from tests.support.tui_app import test_app, write_session

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 45), id="160x45")]


@pytest.fixture
def ledger(tmp_path: Path, cutline_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixed session, a config that keeps 5000 recent tokens (so the cut is on screen), and fixed ids."""
    (cutline_home / "config.toml").write_text("[compaction]\nkeepRecentTokens = 5000\n", encoding="utf-8")
    monkeypatch.setattr(cutline.core.engine.compact, "new_proposal_id", lambda now=None: "019b8e2a5f00c0ffee42")
    monkeypatch.setattr(cutline.core.review.secrets, "token_hex", lambda n=4: "5eed" * n)
    monkeypatch.chdir(tmp_path)  # paths are shown relative to the working directory
    return write_session(tmp_path / "ledger.jsonl")


async def proposed(pilot: Pilot[None]) -> None:
    await settle(pilot)
    await pilot.press("r")
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES)
def test_sessions(snap_compare, tmp_path: Path, ledger: Path, size: tuple[int, int]) -> None:
    store = tmp_path / "store.db"
    with Store(store) as s:
        s.import_file(ledger)
        s.import_file(write_session(tmp_path / "payments-refactor.jsonl", turns=3))
    assert snap_compare(test_app(store), run_before=settle, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_review(snap_compare, tmp_path: Path, ledger: Path, size: tuple[int, int]) -> None:
    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=settle, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_settings(snap_compare, tmp_path: Path, ledger: Path, size: tuple[int, int]) -> None:
    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("s")
        await pilot.pause()

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_why(snap_compare, tmp_path: Path, ledger: Path, size: tuple[int, int]) -> None:
    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("w")
        await pilot.pause()

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_proposal(snap_compare, tmp_path: Path, ledger: Path, size: tuple[int, int]) -> None:
    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=proposed, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_editor(snap_compare, tmp_path: Path, ledger: Path, size: tuple[int, int]) -> None:
    async def before(pilot: Pilot[None]) -> None:
        await proposed(pilot)
        await pilot.press("e")
        await pilot.pause()

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_accept_dialog(snap_compare, tmp_path: Path, ledger: Path, size: tuple[int, int]) -> None:
    async def before(pilot: Pilot[None]) -> None:
        await proposed(pilot)
        await pilot.press("a")
        await settle(pilot)

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_diff(snap_compare, tmp_path: Path, ledger: Path, size: tuple[int, int]) -> None:
    async def before(pilot: Pilot[None]) -> None:
        await proposed(pilot)
        await pilot.press("v")
        await settle(pilot)

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_help(snap_compare, tmp_path: Path, ledger: Path, size: tuple[int, int]) -> None:
    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_help_legend(snap_compare, tmp_path: Path, ledger: Path, size: tuple[int, int]) -> None:
    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        for _ in range(6):  # down to the legend, after the keys
            await pilot.press("pagedown")
        await pilot.pause()

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_history(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    store = tmp_path / "store.db"
    with Store(store) as s:
        s.import_session(audit_demo_session())

    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)

    assert snap_compare(test_app(store, "audit-demo"), run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_audit(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    store = tmp_path / "store.db"
    with Store(store) as s:
        s.import_session(audit_demo_session())

    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("A")
        await settle(pilot)

    assert snap_compare(test_app(store, "audit-demo"), run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_audit_evidence(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    """Enter on a lost fact: its source entry, the fact highlighted and scrolled into view; a fact kept in other words."""
    store = tmp_path / "store.db"
    with Store(store) as s:
        s.import_session(evidence_session())

    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("A")
        await settle(pilot)
        await pilot.press("l")
        lost = pilot.app.screen.query_one("#audit-lost", OptionList)
        while lost.highlighted is None or "dry-run" not in str(lost.get_option_at_index(lost.highlighted).prompt):
            await pilot.press("down")
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(test_app(store, "evidence-demo"), run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_proposal_section(snap_compare, tmp_path: Path, ledger: Path, size: tuple[int, int]) -> None:
    """`}` six times (summary, injected, recovery, memory flush, appended): the rebuilt context at the top."""

    async def before(pilot: Pilot[None]) -> None:
        await proposed(pilot)
        await pilot.press(*["right_curly_bracket"] * 6)
        await settle(pilot)

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_sessions_importing(snap_compare, tmp_path: Path, ledger: Path, size: tuple[int, int]) -> None:
    """The progress line an import shows, at a fixed point of its reading."""
    from cutline.app.screens.sessions import ImportProgressed

    store = tmp_path / "store.db"
    with Store(store) as s:
        s.import_file(ledger)

    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        pilot.app.screen.post_message(ImportProgressed("big-ledger.jsonl", "reading", 4_200_000, 10_000_000))
        await pilot.pause()

    assert snap_compare(test_app(store), run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_list_maximised(snap_compare, tmp_path: Path, ledger: Path, size: tuple[int, int]) -> None:
    """`z` on the list: the list alone between the title and the status line (issue 27 item 8)."""

    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("z")
        await settle(pilot)

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_side_pane_focused(snap_compare, tmp_path: Path, ledger: Path, size: tuple[int, int]) -> None:
    """`2`: the focus on the side pane, its border marked, the list's not (issue 27 item 6)."""

    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_proposal_guard_failed(
    snap_compare, tmp_path: Path, ledger: Path, cutline_home: Path, size: tuple[int, int]
) -> None:
    """An edit that drops OpenClaw's sections: the failed guard said next to '✓ valid' (issue 27 item 5)."""
    (cutline_home / "config.toml").write_text(
        '[compaction]\nkeepRecentTokens = 5000\nrules = "openclaw-2026.9"\n', encoding="utf-8"
    )

    async def before(pilot: Pilot[None]) -> None:
        await proposed(pilot)
        await pilot.press("e", "f7", *"## Goal", "enter", *"- Tidy the ledger.", "escape", "o")
        await settle(pilot)

    assert snap_compare(test_app(tmp_path / "store.db", str(ledger)), run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_found_sessions(
    snap_compare, tmp_path: Path, cutline_home: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    """`m`: the agents' sessions on this machine, the table's focus marked, F1 and q first in the footer."""
    import os
    import shutil
    import time

    from tests.support.paths import TESTS

    home = tmp_path / "home"
    target = home / ".pi" / "agent" / "sessions" / "--tmp-work--" / "2026-11-24T23-48-46-601Z_b.jsonl"
    target.parent.mkdir(parents=True)
    shutil.copyfile(TESTS / "fixtures" / "corpus" / "pi-0.87" / "main" / "session.jsonl", target)
    two_days_ago = time.time() - 2 * 86400 - 600  # the table says how long ago, by the wall clock: "2d ago"
    os.utime(target, (two_days_ago, two_days_ago))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR", "OPENCLAW_STATE_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))

    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)

    assert snap_compare(test_app(tmp_path / "store.db"), run_before=before, terminal_size=size)
