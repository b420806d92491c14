"""Typing into the desk as a terminal does, and the two terminal sizes the desk tests use."""

from __future__ import annotations

from textual._xterm_parser import XTermParser
from textual.events import Key
from textual.pilot import Pilot

SIZE = (160, 45)
SMALL = (80, 24)


async def type_keys(pilot: Pilot[None], text: str) -> None:
    """Send `text` as a terminal would: raw characters through the xterm parser, events through the driver."""
    driver = pilot.app._driver
    assert driver is not None
    parser = XTermParser()
    for char in text:
        for event in parser.feed(char):
            assert isinstance(event, Key)
            driver.send_message(event)
            await pilot.pause()
    await pilot.pause()
