"""What a person missed most on the desk (issue 13): a lost fact's evidence, a proposal to read, the sessions' state.

Keys are typed as characters through the terminal's parser (tests.support.keys), arrows
and escape by their names.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from cutline.app.screens.audit import AuditScreen
from cutline.app.screens.session_review import ReviewScreen
from cutline.app.widgets.message_list import MessageList
from cutline.core.store import Store
from tests.support.audit_builders import evidence_session
from tests.support.keys import SIZE, SMALL, type_keys
from tests.support.tui_app import settle_pilot as settle
from tests.support.tui_app import test_app, write_session


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


# -- a proposal you can read --------------------------------------------------------------


async def _proposed(pilot: Pilot[None]) -> ReviewScreen:
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen)
    await type_keys(pilot, "r")
    await settle(pilot)
    assert screen.proposal is not None
    return screen


def _status(screen: ReviewScreen) -> str:
    return str(screen.query_one("#status-text", Static).render())


@pytest.mark.parametrize("size", [SIZE, SMALL])
async def test_braces_jump_between_the_proposals_sections(tmp_path: Path, ledger: Path, size: tuple[int, int]) -> None:
    from cutline.app.widgets.proposal_view import ProposalView

    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=size) as pilot:
        screen = await _proposed(pilot)
        await type_keys(pilot, "d")  # another tab: the key brings the proposal back
        view = screen.query_one(ProposalView)
        visited = []
        for _ in range(12):
            await type_keys(pilot, "}")
            status = _status(screen)
            if "no next section" in status:
                break
            visited.append(status.removeprefix("proposal: "))
            section = view.current_section()
            assert section is not None
            assert round(view.scroll_y) == min(view._sections[section].virtual_region.y, round(view.max_scroll_y))
        assert visited[:3] == ["summary", "injected last-turn block", "recovery turn"]
        assert "appended sections" in visited and "validation" in visited and "quality guard" in visited
        assert visited.index("rebuilt context") < visited.index("validation") < visited.index("quality guard")
        await type_keys(pilot, "{")
        assert _status(screen).startswith("proposal: ")
        assert _status(screen).removeprefix("proposal: ") in visited[:-1]


async def test_the_section_keys_show_as_typed_in_help_footer_and_palette(tmp_path: Path, ledger: Path) -> None:
    from textual.widgets import Footer

    from cutline.app.screens.modals import HelpScreen
    from cutline.app.tui import CutlineCommands

    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _proposed(pilot)
        helps = {help_text for _title, help_text, _callback in CutlineCommands(screen)._actions()}
        assert "}  ·  review.next_section" in helps and "{  ·  review.previous_section" in helps
        footer = screen.query_one(Footer)
        keys = [str(key.render()) for key in footer.query("FooterKey")]
        assert any(k.strip().startswith("}") for k in keys), keys
        await type_keys(pilot, "?")
        assert isinstance(app.screen, HelpScreen)
        shown = {row[2]: row[0] for row in app.screen.rows}
        assert shown["review.next_section"] == "}" and shown["review.previous_section"] == "{"


async def test_the_accept_dialog_shows_the_summary_rendered_and_the_key_fields(tmp_path: Path, ledger: Path) -> None:
    from cutline.app.screens.modals import AcceptScreen

    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _proposed(pilot)
        proposal = screen.proposal
        assert proposal is not None
        await type_keys(pilot, "a")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, AcceptScreen)
        fields = dict(dialog.fields)
        assert fields["tokens"].startswith(f"{proposal.tokensBefore:,} → {proposal.tokensAfter:,}")
        assert f"keeps from entry {proposal.firstKeptEntryId}" in fields["cut"]
        assert proposal.rules in fields["rules"]
        assert fields["write-back"].startswith("1 line: compaction entry ")
        body = dialog.query_one("#confirm-body", Static)
        shown = "\n".join(line.text for line in body.render_lines(Region(0, 0, body.size.width, body.size.height)))
        assert "\\n" not in shown and '"summary"' not in shown, "not the JSON line"
        first_heading = next(line for line in proposal.summary.splitlines() if line.startswith("#"))
        assert first_heading.lstrip("# ") in shown and first_heading not in shown, "markdown rendered"
        await type_keys(pilot, "n")
        await settle(pilot)
        assert screen.proposal_status == "open"


async def test_the_gauges_after_follows_edits_of_the_summary(tmp_path: Path, ledger: Path) -> None:
    from cutline.app.widgets.gauge import BudgetGauge

    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _proposed(pilot)
        proposal = screen.proposal
        assert proposal is not None and proposal.counter == "chars4"
        gauge = screen.query_one(BudgetGauge)
        assert gauge.budget is not None and gauge.budget.tokens_after == proposal.tokensAfter
        await type_keys(pilot, "e")
        await type_keys(pilot, "Keep the ledger totals. " * 10)
        await settle(pilot)
        assert gauge.budget is not None and gauge.budget.tokens_after == proposal.tokensAfter + 60
        assert f"{proposal.tokensAfter + 60:,} (edited summary)" in gauge._content().plain


# -- the sessions screen ------------------------------------------------------------------


async def test_the_sessions_screen_shows_open_proposals(tmp_path: Path, ledger: Path) -> None:
    from cutline.app.screens.sessions import SessionsScreen

    app = test_app(tmp_path / "store.db", str(ledger))
    async with app.run_test(size=SIZE) as pilot:
        await _proposed(pilot)
        await pilot.press("escape", "escape")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        table = app.screen.query_one("#sessions-table")
        headers = [str(column.label) for column in table.columns.values()]
        row = dict(zip(headers, (str(cell) for cell in table.get_row_at(0)), strict=True))
        assert row["Proposals"] == "1 open"


async def test_importing_a_file_shows_a_progress_bar_while_it_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The import is held halfway through its reading: the bar and the line say how far it has come, the desk answers."""
    import threading

    from textual.widgets import ProgressBar

    from cutline.app.screens.sessions import SessionsScreen

    write_session(tmp_path / "big-ledger.jsonl", turns=40)
    halfway, release = threading.Event(), threading.Event()
    real_import = Store.import_file

    def held_import(self: Store, path: Path | str, **kwargs: object) -> object:
        told = kwargs.get("progress")

        def progress(stage: str, done: int, total: int) -> None:
            assert callable(told)
            told(stage, done, total)
            if stage == "reading" and total and done >= total // 2 and not halfway.is_set():
                halfway.set()
                release.wait(30)

        return real_import(self, path, **{**kwargs, "progress": progress})  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "import_file", held_import)
    monkeypatch.chdir(tmp_path)
    app = test_app(tmp_path / "store.db")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        assert not screen.query_one("#sessions-import").display
        await type_keys(pilot, "i")
        await type_keys(pilot, "big-ledger.jsonl\r")
        try:
            for _ in range(200):
                if halfway.is_set():
                    break
                await pilot.pause(0.02)
            assert halfway.is_set(), "the import never told its progress"
            await pilot.pause(0.1)
            assert screen.query_one("#sessions-import").display
            bar = screen.query_one("#sessions-import-bar", ProgressBar)
            assert bar.percentage is not None and 0.5 <= bar.percentage < 1
            line = str(screen.query_one("#sessions-import-text", Static).render())
            assert line == "importing big-ledger.jsonl: reading"
            await type_keys(pilot, "/")  # the desk answers while the file is read
            assert screen.focused is screen.query_one("#sessions-filter")
        finally:
            release.set()
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        assert not screen.query_one("#sessions-import").display
