"""The review desk: a Textual app over the session store.

`create_app` is the one factory the CLI and the tests share; tests pass a fixed
clock and turn cursor blinking off so screenshots are stable.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, on
from textual.app import App
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.theme import Theme
from textual.worker import Worker, WorkerState

from cutline.app.config import TuiConfig, load_tui_config

if TYPE_CHECKING:
    from cutline.app.screens.session_review import ReviewScreen
    from cutline.core.store import Store

Clock = Callable[[], datetime]
AUTOSAVE_SECONDS = 0.6  # edits are saved this long after the last keystroke

DARK = Theme(
    name="cutline-dark",
    primary="#5fafd7",
    secondary="#af87d7",
    accent="#ffaf5f",
    warning="#d7af5f",
    error="#e0616b",
    success="#87c97a",
    foreground="#d9dde3",
    background="#15181d",
    surface="#1d2128",
    panel="#262b33",
    dark=True,
)

LIGHT = Theme(
    name="cutline-light",
    primary="#1f6fae",
    secondary="#7b4fb3",
    accent="#b35900",
    warning="#9a6a00",
    error="#b4232f",
    success="#2f7d32",
    foreground="#1d232b",
    background="#f7f7f4",
    surface="#ecece6",
    panel="#dedfd7",
    dark=False,
)


def utc_now() -> datetime:
    return datetime.now(UTC)


class CutlineCommands(Provider):
    """Command palette entries for every action of the current screen and the app."""

    def _actions(self) -> Iterable[tuple[str, str, Callable[[], object]]]:
        screen = self.screen
        seen: set[str] = set()
        for active in screen.active_bindings.values():
            binding = active.binding
            if not binding.id or binding.id in seen or not binding.description:
                continue
            if not active.enabled:
                continue
            seen.add(binding.id)
            title = binding.tooltip or binding.description
            help_text = f"{self.app.get_key_display(binding)}  ·  {binding.id}"
            yield title, help_text, partial(self.app.call_later, self.app.run_action, binding.action, active.node)

    async def discover(self) -> Hits:
        for title, help_text, callback in self._actions():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._actions():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)


DOWNLOAD_NAME = "cutline-download"


def _binding_scopes() -> list[tuple[str, list[Binding]]]:
    """Every screen's and widget's bindings, by scope (keys collide only within one scope, or with the app's)."""
    from cutline.app.screens import audit, found_items, modals, session_review, sessions, versions
    from cutline.app.widgets.message_list import MessageList

    holders: list[type] = [MessageList, session_review.ReviewScreen, sessions.SessionsScreen, audit.AuditScreen]
    for module in (modals, versions, found_items):
        holders += [v for v in vars(module).values() if isinstance(v, type) and "BINDINGS" in vars(v)]
    scopes = []
    for holder in holders:
        # the holder's own keys and its mixins' (the review screen's panes keys live in a part of it)
        bindings = [
            b for cls in holder.__mro__ if cls.__module__.startswith("cutline.") for b in vars(cls).get("BINDINGS", [])
        ]
        scopes.append((holder.__name__, [b for b in bindings if isinstance(b, Binding)]))
    return scopes


def keymap_problems(keys: dict[str, str]) -> list[str]:
    """What is wrong with a `[keys]` table: ids no binding has, and keys that two bindings of one screen would share."""
    app_bindings = [b for b in CutlineApp.BINDINGS if isinstance(b, Binding)]
    scopes = _binding_scopes()
    known = {b.id for _, bindings in [("app", app_bindings), *scopes] for b in bindings if b.id}
    problems = [
        f"keys.{binding_id}: no binding has this id (F1 lists them)" for binding_id in keys if binding_id not in known
    ]

    def keys_of(binding: Binding) -> list[str]:
        chosen = keys.get(binding.id or "", binding.key)
        return [k.strip() for k in chosen.split(",") if k.strip()]

    for scope, bindings in scopes:
        owner: dict[str, str] = {}
        for binding in [*app_bindings, *bindings]:
            for key in keys_of(binding):
                name = binding.id or binding.action
                other = owner.get(key)
                if other is not None and other != name and (binding.id in keys or other in keys):
                    problems.append(f"{key}: both {other} and {name} on {scope}")
                owner.setdefault(key, name)
    return list(dict.fromkeys(problems))


class CutlineApp(App[None]):
    """The review desk: sessions screen, review screen, and their modals."""

    CSS_PATH = "cutline.tcss"
    TITLE = "cutline"
    COMMANDS = App.COMMANDS | {CutlineCommands}
    # screens lay themselves out for the terminal: side by side when wide, stacked when narrow or short
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # noqa: RUF012 (App declares it without ClassVar)
    VERTICAL_BREAKPOINTS = [(0, "-short"), (36, "-tall")]  # noqa: RUF012
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True),
        # `q` too, where no text field takes it as a character
        Binding("q", "quit", "Quit", show=False, id="app.quit_q"),
        Binding("f1,question_mark", "help", "Help", id="app.help"),
        Binding("ctrl+t", "toggle_theme", "Theme", id="app.theme", tooltip="Switch dark / light theme"),
    ]

    def __init__(
        self,
        store_path: Path | None = None,
        session_ref: str | None = None,
        *,
        clock: Clock = utc_now,
        cursor_blink: bool = True,
        config: TuiConfig | None = None,
        autosave_seconds: float = AUTOSAVE_SECONDS,
    ) -> None:
        super().__init__()
        self.autosave_seconds = autosave_seconds
        self.store_path = store_path
        self.session_ref = session_ref
        self.clock = clock
        self.cursor_blink = cursor_blink
        self.config = config or TuiConfig()
        self._store: Store | None = None
        self._review: ReviewScreen | None = None
        self._store_lock = threading.Lock()
        self.register_theme(DARK)
        self.register_theme(LIGHT)
        self.theme = self.config.theme
        from cutline.app.inbox_watch import InboxWatch

        self.inbox = InboxWatch(self)  # listens for agents holding compactions, counts what waits

    @property
    def store(self) -> Store:
        """The session store, opened on first use (from a worker thread: opening runs migrations)."""
        with self._store_lock:
            if self._store is None:
                from cutline.core.store import Store

                self._store = Store(self.store_path)
            return self._store

    def on_mount(self) -> None:
        from cutline.app.screens.sessions import SessionsScreen

        problems = keymap_problems(self.config.keys)
        if self.config.keys:
            self.set_keymap(self.config.keys)
        self.inbox.start()
        if self.session_ref:
            # the review alone: the sessions list under it was composed, styled and read for nothing before the
            # first rows (Esc on the review replaces it with the list, `show_sessions`)
            self.open_review(self.session_ref)
        else:
            self.push_screen(SessionsScreen())
        if problems:
            self.show_error("Some [keys] in config.toml were not applied", "\n".join(problems))

    # -- navigation (screens go through the app, so no screen imports another's caller) --

    def open_review(self, session_ref: str) -> None:
        """Open the review screen of a session over the current screen.

        The last review screen stays installed when left, so going back to the same
        session finds it as it was tuned, without reloading a big file.
        """
        from cutline.app.screens.session_review import ReviewScreen

        kept = self._review
        if kept is not None and kept.shows(session_ref) and kept not in self.screen_stack:
            self.push_screen(kept)
            return
        if kept is not None and kept not in self.screen_stack:
            self.uninstall_screen(kept)
        screen = ReviewScreen(session_ref)
        self._review = screen
        self.install_screen(screen, name=f"review-{id(screen)}")
        self.push_screen(screen)

    def show_found_sessions(self) -> None:
        """Open the list of every agent's sessions on this machine over the current screen."""
        from cutline.app.screens.found import FoundSessionsScreen

        self.push_screen(FoundSessionsScreen())

    def show_found_items(self) -> None:
        """Open the list of compactions found after the fact in the agents' session folders."""
        from cutline.app.screens.found_items import FoundItemsScreen

        self.push_screen(FoundItemsScreen())

    def open_found_item(self, item_id: str) -> None:
        """Open one compaction found after the fact for the person's audit."""
        from cutline.app.screens.found_items import FoundItemScreen

        self.push_screen(FoundItemScreen(item_id))

    def show_sessions(self) -> None:
        """Replace the current screen with the sessions list."""
        from cutline.app.screens.sessions import SessionsScreen

        self.switch_screen(SessionsScreen())

    # -- errors -------------------------------------------------------------

    def show_error(self, title: str, error: BaseException | str) -> None:
        """Open the error modal; the app keeps running."""
        from cutline.app.screens.modals import ErrorScreen
        from cutline.core.errors import CutlineError

        if isinstance(error, CutlineError):
            message = str(error)
        elif isinstance(error, BaseException):
            message = f"{type(error).__name__}: {error}"
        else:
            message = error
        self.push_screen(ErrorScreen(title, message))

    def report_worker(self, event: Worker.StateChanged, title: str | None = None) -> None:
        """Turn a failed worker into the error modal."""
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.show_error(title or f"{event.worker.description or event.worker.name} failed", event.worker.error)

    # -- downloads ----------------------------------------------------------

    def deliver_download(self, text: str, filename: str, mime_type: str) -> None:
        """Offer `text` as a download: the browser's in web mode, a file in $CUTLINE_HOME/exports in a terminal."""
        import io

        from cutline.core.paths import exports_dir

        self.deliver_text(
            io.StringIO(text),
            save_directory=None if self.is_web else exports_dir(),
            save_filename=filename,
            mime_type=mime_type,
            encoding="utf-8",
            name=DOWNLOAD_NAME,
        )

    @on(events.DeliveryComplete)
    def _download_delivered(self, event: events.DeliveryComplete) -> None:
        if event.name == DOWNLOAD_NAME:
            where = "your browser's downloads" if event.path is None else str(event.path)
            self.notify(f"Saved to {where}", title="Download", markup=False)

    @on(events.DeliveryFailed)
    def _download_failed(self, event: events.DeliveryFailed) -> None:
        if event.name == DOWNLOAD_NAME:
            self.show_error("Download failed", event.exception)

    # -- actions ------------------------------------------------------------

    def action_toggle_theme(self) -> None:
        self.theme = "cutline-light" if self.theme == "cutline-dark" else "cutline-dark"

    def action_help(self) -> None:
        from cutline.app.screens.modals import HelpScreen

        rows: list[tuple[str, str, str]] = []
        seen: set[tuple[str, str]] = set()
        # every binding of the focus chain, including those not available right now
        for _node, bindings in self.screen._binding_chain:
            for key, key_bindings in bindings.key_to_bindings.items():
                for binding in key_bindings:
                    mark = (key, binding.action)
                    if mark in seen or not (binding.description or binding.id):
                        continue
                    seen.add(mark)
                    shown = self.get_key_display(binding.with_key(key))
                    rows.append((shown, binding.description or binding.action, binding.id or ""))
        rows.sort(key=lambda row: (row[2] == "", row[2], row[0]))
        self.push_screen(HelpScreen(rows))

    async def action_quit(self) -> None:
        for screen in self.screen_stack:
            flush = getattr(screen, "flush_pending", None)
            if flush is not None:
                flush()
        self.exit()

    def on_unmount(self) -> None:
        self.inbox.stop()
        if self._store is not None:
            self._store.close()


def create_app(
    store_path: Path | str | None = None,
    session_ref: str | None = None,
    *,
    clock: Clock | None = None,
    cursor_blink: bool = True,
    config: TuiConfig | None = None,
    autosave_seconds: float | None = None,
) -> CutlineApp:
    """Build the desk; the CLI passes only paths, tests also a fixed clock, no cursor blink and their own autosave delay."""
    return CutlineApp(
        Path(store_path) if store_path is not None else None,
        session_ref,
        clock=clock or utc_now,
        cursor_blink=cursor_blink,
        config=config if config is not None else load_tui_config(),
        autosave_seconds=AUTOSAVE_SECONDS if autosave_seconds is None else autosave_seconds,
    )
