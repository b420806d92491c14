"""What a person missed most on the desk (issue 13): a lost fact's evidence, a proposal to read, the sessions' state.

Keys are typed as characters through the terminal's parser (tests.support.keys), arrows
and escape by their names.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import OptionList, Static
from textual.worker import WorkerFailed

from cutline.app.screens.audit import AuditScreen
from cutline.app.screens.review import ReviewScreen
from cutline.app.widgets.message_list import MessageList
from cutline.core.store import Store
from tests.support.audit_builders import evidence_session
from tests.support.keys import SIZE, SMALL, type_keys
from tests.support.tui_app import test_app, write_session


async def settle(pilot: Pilot[None]) -> None:
    """Wait until no worker runs and every posted message is handled."""
    for _ in range(3):
        with contextlib.suppress(WorkerFailed):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause()


@pytest.fixture
def evidence_store(tmp_path: Path) -> Path:
    path = tmp_path / "store.db"
    with Store(path) as store:
        store.import_session(evidence_session())
    return path


# -- from a lost fact to its evidence -----------------------------------------------------


def _options(screen: AuditScreen) -> list[str]:
    lost = screen.query_one("#audit-lost", OptionList)
    return [str(lost.get_option_at_index(i).prompt) for i in range(lost.option_count)]


async def _open_audit(pilot: Pilot[None]) -> AuditScreen:
    await settle(pilot)
    await type_keys(pilot, "A")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, AuditScreen)
    return screen


@pytest.mark.parametrize("size", [SIZE, SMALL])
async def test_enter_on_a_lost_fact_shows_it_highlighted_in_its_source_scrolled_into_view(
    evidence_store: Path, size: tuple[int, int]
) -> None:
    app = test_app(evidence_store, "evidence-demo")
    async with app.run_test(size=size) as pilot:
        screen = await _open_audit(pilot)
        await type_keys(pilot, "l")
        lost = screen.query_one("#audit-lost", OptionList)
        while lost.highlighted is None or "dry-run" not in str(lost.get_option_at_index(lost.highlighted).prompt):
            await pilot.press("down")
        await type_keys(pilot, "\r")
        await settle(pilot)
        box = screen.query_one("#audit-source-box")
        assert screen.focused is box
        source = screen.query_one("#audit-source", Static)
        text = screen.source_text
        assert "entry u1" in str(text)
        highlighted = [str(text)[span.start : span.end] for span in text.spans if "reverse" in str(span.style)]
        assert highlighted == ["Always run the migration dry-run first."]
        # the fact sits at the end of a 45-line message: the pane scrolled down to it
        assert box.scroll_y > 0
        top, height = round(box.scroll_y), box.scrollable_content_region.height
        lines = [line.text for line in source.render_lines(Region(0, 0, source.size.width, source.size.height))]
        assert any("dry-run" in line for line in lines[top : top + height])


async def test_a_fact_kept_only_in_other_words_is_labelled_with_the_closest_passage(evidence_store: Path) -> None:
    app = test_app(evidence_store, "evidence-demo")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_audit(pilot)
        labels = _options(screen)
        assert "Kept, not found verbatim (1)" in labels
        (kept,) = [label for label in labels if "Never deploy the billing service" in label]
        assert "not found verbatim" in kept
        assert "≈ - The billing service: never deploy it on Fridays." in kept
        await type_keys(pilot, "l")
        lost = screen.query_one("#audit-lost", OptionList)
        while lost.highlighted is None or "billing" not in str(lost.get_option_at_index(lost.highlighted).prompt):
            await pilot.press("down")
        await settle(pilot)
        shown = str(screen.source_text)
        assert shown.startswith("not found verbatim · closest in the summary (100% of its words):")
        assert "- The billing service: never deploy it on Fridays." in shown


async def test_g_on_a_fact_shows_its_source_entry_in_the_review_list(evidence_store: Path) -> None:
    app = test_app(evidence_store, "evidence-demo")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_audit(pilot)
        await type_keys(pilot, "l")
        lost = screen.query_one("#audit-lost", OptionList)
        while lost.highlighted is None:
            await pilot.press("down")
        await type_keys(pilot, "g")
        await settle(pilot)
        review = app.screen
        assert isinstance(review, ReviewScreen)
        message_list = review.query_one(MessageList)
        assert review.path[message_list.cursor].id == "u1"
        assert review.focused is message_list
