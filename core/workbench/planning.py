"""Open a session for a plan and plan it: the one rule for which shape its path is read in, and which rule set decides.

Why one place: `cutline plan`, `cutline compact` and the desk each chose between the
whole session, a window of its stored path and its stored columns, and each picked
the rule set its own way; a fix to one shape had to be made three times.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cutline.core.agents.refs import session_file
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.path_index import PathIndex, index_path
from cutline.core.engine.plan import CompactionPlan, plan
from cutline.core.engine.rules.choice import OPENCLAW, canonical, evidence
from cutline.core.errors import CutlineError, NotFoundError
from cutline.core.models import Entry, Session

if TYPE_CHECKING:
    from cutline.core.agents.path_window import PathWindow
    from cutline.core.agents.writeback import WriteBackPlan
    from cutline.core.store import Store

Hold = Callable[[object], None]
"""What a caller does with what it must keep to the end of the process (the CLI holds it until exit)."""


def _keep(_: object) -> None:
    """The default `Hold`: nothing (the caller's references keep it)."""


@dataclass
class PlanTarget:
    """A session opened for a plan and a run: its path in the shape chosen for it, and the index the plan reads.

    `window` is set when the path is a window of the stored path (`session` is then the
    header, without entries); otherwise `session` holds every entry and `path` is its active path.
    """

    session_id: str
    session: Session
    path: Sequence[Entry]
    index: PathIndex
    counter: str
    rules: str | None  # the rule set given, else what the session shows (None: the settings decide)
    window: PathWindow | None = None

    def plan(
        self, settings: CompactionSettings, *, rules_override: str | None = None, entry_tokens: bool = False
    ) -> CompactionPlan:
        """The plan of this path under `settings` (the rule set forced, else given or shown, else the settings')."""
        return plan(self.index, settings, self.counter, entry_tokens=entry_tokens, rules=rules_override or self.rules)

    def run_path(self) -> Sequence[Entry]:
        """The path as opened: a window of the stored path, or the whole session's active path."""
        return self.path

    def written_by(self, settings: CompactionSettings, rules: str | None = None) -> str:
        """The rules of the agent version that wrote the session (as `audit` names them), for the plan's text."""
        if self.window is not None:
            from cutline.core.audit.report import window_writer

            return window_writer(self.window, self.session, settings, rules).rules
        from cutline.core.engine.rules.choice import written_by

        return written_by(list(self.path), self.session.format, self.session.version, settings.rules, rules).rules

    def write_back(self, store: Store, *, hold: Hold = _keep) -> WriteBackPlan:
        """Whether accepting a proposal of this session can write it back, how, or why not.

        A windowed session (a pi, Claude Code or Codex file) is told from its header and the
        store's facts of its path (`stored_write_back_plan`); any other from the session read whole.
        """
        from cutline.core.session_writes import stored_write_back_plan, write_back_plan

        whole = self.session
        if self.window is not None:
            stored = stored_write_back_plan(store, self.session)
            if stored is not None:
                return stored
            whole = store.load_session(self.session_id)
            hold(whole)
        return write_back_plan(whole)


def compaction_window(
    store: Store,
    session_id: str,
    mode: str,
    counter: str,
    rules: str | None,
    configured: str | None,
    *,
    flags_only: bool = False,
    lazy: bool = False,
) -> PathWindow | None:
    """The session's path as a `PathWindow` when a compaction reads only its end, else None (load the whole session).

    Windowed: pi, Claude Code and Codex sessions the store can window (`Sessions.path_window`), in mode `pi`, planned
    with pi 0.73's or current pi's rules (OpenClaw 2026.9's planner and context walk the
    whole path; the other modes were not checked entry by entry), with every entry's
    `counter` count cached. The rule set is `rules` when given, current pi where the
    session shows its signs, else the `configured` one (pi when none). The proposal is the
    same either way (tests compare them). `flags_only` is for a caller that has planned already,
    `lazy` for a process that plans or compacts once (both: `Sessions.path_window`).
    """
    if mode != "pi":
        return None
    window = store.sessions.path_window(session_id, counter, flags_only=flags_only, lazy=lazy)
    if window is None:
        return None
    if canonical(rules or ("pi" if window.current_pi_sign() else None) or configured or "pi") == OPENCLAW:
        return None
    return window


def resolve_stored(store: Store, ref: str) -> str:
    """A stored session's id; a directory that names no stored session is said to be one."""
    from pathlib import Path

    from cutline.core.store import AmbiguousSessionError

    try:
        return str(store.resolve_session(ref))
    except NotFoundError as exc:
        if not isinstance(exc, AmbiguousSessionError) and Path(ref).expanduser().is_dir():
            raise CutlineError(f"{ref}: is a directory (give a session file or a stored session)") from None
        raise


def session_id_for(store: Store, ref: str) -> str:
    """The stored session id `ref` names; a session file is imported first (again only if it changed)."""
    candidate = session_file(ref)
    if candidate is not None:
        return str(store.import_file(candidate).session_id)
    return resolve_stored(store, ref)


def open_for_plan(
    store: Store,
    ref: str,
    settings: CompactionSettings,
    counter: str,
    rules: str | None = None,
    *,
    hold: Hold = _keep,
    lazy: bool = False,
) -> PlanTarget:
    """Open SESSION (a stored session or a session file) for a plan and a run, in the shape its path is best read in.

    A pi, Claude Code or Codex file (imported first, streamed when new) or stored session is
    read as a window of its stored path when the compaction may read one (`compaction_window`):
    a cold plan of a 100,000-entry file kept the whole session as models (~2 s, ~900 MB). Any other file
    is read once, counted as it is read, and kept. `hold` receives what the caller should
    keep to the end of the process; `lazy` reads a window's entries only as a plan asks for
    them (a process that plans once).
    """
    window = _window(store, ref, settings, counter, rules, lazy)
    if window is not None:
        session_id, found = window
        hold(found)
        index = PathIndex.from_facts(found, found.counts, counter, found.ids, found.kinds, found.facts)
        chosen = rules or ("pi" if found.current_pi_sign() else None)
        return PlanTarget(session_id, store.sessions.header(session_id), found, index, counter, chosen, found)
    session, counts = _open_counted(store, ref, counter, hold)
    path = session.active_path()
    chosen = rules or evidence(path, session.format, session.version)
    index = index_path(path, [counts.get(e.id, 0) for e in path], counter)
    return PlanTarget(session.id, session, path, index, counter, chosen)


def _window(
    store: Store, ref: str, settings: CompactionSettings, counter: str, rules: str | None, lazy: bool
) -> tuple[str, PathWindow] | None:
    """(session id, the stored path as a `PathWindow`) when the plan may read a window of it, else None."""
    candidate = session_file(ref)
    if candidate is not None:
        if not store.importer.streams_pi_file(candidate) and not store.importer.windowed_agent_file(candidate):
            return None
        session_id = str(store.import_file(candidate).session_id)
    else:
        session_id = resolve_stored(store, ref)
    window = compaction_window(store, session_id, settings.mode, counter, rules, settings.rules, lazy=lazy)
    return None if window is None else (session_id, window)


def open_whole(
    store: Store, ref: str, *, count_as: str | None = None, hold: Hold = _keep
) -> tuple[Session, dict[str, int] | None]:
    """The session `ref` names, with every entry; a file is read once, imported (or refreshed), and used as read.

    With `count_as` (a stored counter), a file's entries are counted in the same pass
    that reads and imports it and the counts cached in the import's transaction: that
    spares a second walk over a big session. The counts are None when nothing was counted.
    """
    candidate = session_file(ref)
    if candidate is None:
        session = store.load_session(resolve_stored(store, ref))
        hold(session)
        return session, None
    count = None
    if count_as is not None and count_as != "calibrated":
        from cutline.core.tokens import entry_tokens, get_counter

        instance = get_counter(count_as)

        def count(entry: Entry) -> int:
            return entry_tokens(entry, instance)

    opened = store.import_and_read(candidate, count, count_as or "chars4")
    hold(opened.session)
    return opened.session, opened.counts


def _open_counted(store: Store, ref: str, counter: str, hold: Hold) -> tuple[Session, dict[str, int]]:
    """The session `ref` names, whole, and its per-entry `counter` counts (made while reading a file, else the store's cache)."""
    from cutline.core.store.token_counts import count_entries

    session, counts = open_whole(store, ref, count_as=counter if counter == "chars4" else None, hold=hold)
    if counts is None:
        counts = count_entries(store, session, counter)  # the store's cache: a big session is not counted again
    return session, counts


def rules_for(session: Session | None, override: str | None = None) -> str | None:
    """A forced rule set, else what an OpenClaw store or version-4 header tells, else None (the path, then the settings)."""
    return override or (evidence([], session.format, session.version) if session else None)


def plan_on(
    index: PathIndex, settings: CompactionSettings, session: Session | None, rules_override: str | None = None
) -> CompactionPlan:
    """The desk's plan of an opened path: the index's counter, the forced rule set or what the session shows."""
    return plan(index, settings, index.counter, entry_tokens=False, rules=rules_for(session, rules_override))


def warmed(index: PathIndex, settings: CompactionSettings, rules: str | None) -> PathIndex:
    """The index after one plan, so the walks a first plan caches on it (the rules' evidence, the
    projection) are done in the worker that built it, not on the event loop (~0.2 s at 100k entries)."""
    with contextlib.suppress(CutlineError):
        plan(index, settings, index.counter, entry_tokens=False, rules=rules)
    return index


def settings_of_proposal(base: CompactionSettings, used: dict[str, object]) -> CompactionSettings:
    """`base` with the values a proposal was made with, so its cut is the one drawn (unknown keys ignored)."""
    known = CompactionSettings.model_fields
    changes = {k: v for k, v in used.items() if k in known and getattr(base, k) != v}
    if not changes:
        return base
    try:
        return base.with_overrides(**changes)
    except CutlineError:
        return base


def refuse_reserve_over_window(settings: CompactionSettings, result: CompactionPlan) -> None:
    """One line when the reserve leaves no room at all: pi's threshold (window − reserve) would be zero or negative.

    A window OpenClaw's guard blocks is itself the problem, and the plan says so: not refused.
    """
    from cutline.core.engine.modes import reserve_for

    if result.windowGuard is not None and result.windowGuard.shouldBlock:
        return
    reserve, window = reserve_for(settings), result.contextWindow
    if reserve >= window:
        raise CutlineError(
            f"reserveTokens {reserve:,} is at or above the context window {window:,}: "
            "no context would fit under the threshold (give a smaller --reserve-tokens or a larger --context-window)"
        )
