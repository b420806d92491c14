"""The typed way from a screen or widget to the running desk.

Textual types `self.app` as a plain `App`; the desk's own attributes (store, clock,
error modal, downloads) are reached through `self.desk`, which is that same app as
the `CutlineApp` it is, so the type checker sees every use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.dom import DOMNode

if TYPE_CHECKING:
    from cutline.app.tui import CutlineApp


class OnDesk:
    """Mixin for the desk's screens and widgets: `self.desk` is the running `CutlineApp`."""

    @property
    def desk(self) -> CutlineApp:
        return cast("CutlineApp", cast(DOMNode, self).app)
