"""The desk's footer: help and quit first, so a narrow terminal (80 columns) cuts the screen's keys, never those two.

Textual's footer lists the focused widget's keys, then the screen's, then the app's, and
cuts what does not fit at the right: at 80x24 that was F1 and q. Every key, shown here or
not, is in the help (F1) and the command palette (ctrl+p).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Input, TextArea
from textual.widgets._footer import FooterKey

FIRST = ("app.help", "app.quit")


class DeskFooter(Footer):
    """Textual's footer with F1 Help and Quit before the screen's keys."""

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        active = self.screen.active_bindings
        shown = [(binding, enabled, tooltip) for (_, binding, enabled, tooltip) in active.values() if binding.show]
        first = sorted((s for s in shown if s[0].id in FIRST), key=lambda s: FIRST.index(s[0].id or ""))
        seen: set[str] = set()
        keys = []
        for binding, enabled, tooltip in [*first, *(s for s in shown if s[0].id not in FIRST)]:
            if binding.action in seen:
                continue
            seen.add(binding.action)
            keys.append((self._quit_key(binding), enabled, tooltip))
        self.styles.grid_size_columns = len(keys)
        for binding, enabled, tooltip in keys:
            yield FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                disabled=not enabled,
                tooltip=tooltip,
            ).data_bind(compact=Footer.compact)
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            palette = active.get(self.app.COMMAND_PALETTE_BINDING)
            if palette is not None:
                _, binding, enabled, _ = palette
                yield FooterKey(
                    binding.key,
                    self.app.get_key_display(binding),
                    binding.description,
                    binding.action,
                    classes="-command-palette",
                    disabled=not enabled,
                    tooltip=binding.tooltip or binding.description,
                )

    def _quit_key(self, binding: Binding) -> Binding:
        """Quit shown as `q` where q quits (no text field has the focus), as ctrl+q where q would be typed."""
        if binding.id != "app.quit" or isinstance(self.screen.focused, Input | TextArea):
            return binding
        return binding.with_key("q")
