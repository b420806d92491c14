"""Every yes/no and choice dialog keeps its buttons on screen at 80x24, however long its text."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import Button

from cutline.app.screens.modals import ChoiceScreen, ConfirmScreen

LONG_INTRO = "\n".join(f"intro line {n}: what will happen, said at length so that it wraps" for n in range(8))
LONG_BODY = "\n".join(f"/home/user/project/src/module_{n}.py would be restored byte for byte" for n in range(60))


class _Host(App[None]):
    CSS_PATH = "../../app/cutline.tcss"


def _fits(app: App[None], button: Button) -> bool:
    region = button.region
    return region.height > 0 and region.y >= 0 and region.bottom <= app.size.height


@pytest.mark.parametrize(
    ("intro", "body"),
    [(LONG_INTRO, LONG_BODY), ("short", LONG_BODY), (LONG_INTRO, "short")],
    ids=["both", "body", "intro"],
)
async def test_a_long_confirm_keeps_its_buttons_on_screen_at_80x24(intro: str, body: str) -> None:
    app = _Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(ConfirmScreen("Undo this write-back?", intro, body, "Undo"))
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        for button in dialog.query(Button):
            assert _fits(app, button), f"{button.label} is off screen at {button.region}"
        await pilot.press("y")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)


async def test_a_long_choice_keeps_its_buttons_on_screen_at_80x24() -> None:
    app = _Host()
    async with app.run_test(size=(80, 24)) as pilot:
        choices = [("branch", "b", "Continue from before the compaction"), ("from_backup", "f", "From the backup")]
        await app.push_screen(
            ChoiceScreen("The agent wrote since: how to undo?", LONG_INTRO + "\n" + LONG_BODY, choices)
        )
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ChoiceScreen)
        for button in dialog.query(Button):
            assert _fits(app, button), f"{button.label} is off screen at {button.region}"
