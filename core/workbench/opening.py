"""Open a session for review: import a file, choose how its path is held, count it, index it, find its open proposal.

The loading strategy the desk used to hold: a path of at least `LAZY_ENTRIES` entries
is never rebuilt in memory (planned from its stored facts, its rows read as they come
into view: `StoredPath`); one of at least `PREVIEW_ENTRIES` is shown from the store
while it is rebuilt; any other is rebuilt whole. Progress and the preview reach the
caller through `Watcher` (the desk posts them as messages).
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan
from cutline.core.engine.path_index import PathIndex, index_path
from cutline.core.engine.proposal import Proposal
from cutline.core.models import Entry, Session
from cutline.core.store.memory import no_cyclic_gc
from cutline.core.workbench.deciding import Latest, latest_proposal
from cutline.core.workbench.entries import StoredEntries, call_paths, outside_end, pair_numbers
from cutline.core.workbench.planning import plan_on, rules_for, settings_of_proposal, warmed
from cutline.core.workbench.stored_path import StoredPath, stored_path, telling_session

if TYPE_CHECKING:
    from cutline.core.agents.writeback import WriteBackPlan
    from cutline.core.review import SummaryVersion
    from cutline.core.store import Store

# a path at least this long is shown from the store (rows read as they come into view) while it loads
PREVIEW_ENTRIES = 5_000
# a path at least this long is never rebuilt in memory: planned from stored facts, entries read as needed
LAZY_ENTRIES = 20_000
LOAD_STEPS = 5


class Watcher(Protocol):
    """Who hears how an opening goes: its steps, and a long path's stored rows before it is ready."""

    def progress(self, step: int, text: str, big: bool) -> None: ...

    def preview(self, entries: StoredEntries, tokens: list[int]) -> None: ...


class Unwatched:
    """A `Watcher` that hears nothing (a caller without a screen)."""

    def progress(self, step: int, text: str, big: bool) -> None:
        return None

    def preview(self, entries: StoredEntries, tokens: list[int]) -> None:
        return None


@dataclass
class Opened:
    """A session opened for review: everything a front end shows and plans, prepared off its UI thread."""

    session: Session  # whole, or the header only when `stored` is set
    path: Sequence[Entry]
    tokens: dict[str, list[int]]
    settings: CompactionSettings
    calibration_ratio: float | None  # None: worked out from the stored path when first needed (in a worker)
    path_index: PathIndex
    pairs: tuple[dict[int, int], dict[int, int]]
    call_paths: dict[str, str]
    outside: int
    proposal: Proposal | None = None
    proposal_status: str = "open"
    versions: list[SummaryVersion] = field(default_factory=list)
    notice: str = ""
    write_back: WriteBackPlan | None = None  # whether accepting can write into the session, how, or why not
    stored: StoredPath | None = None  # a long path planned from stored facts: its entries are read as needed

    def plan(self, settings: CompactionSettings, *, rules_override: str | None = None) -> CompactionPlan:
        """The plan of the path (chars4) under `settings`, as the desk draws it (`plan_on`)."""
        return plan_on(self.path_index, settings, self.session, rules_override)

    def run_path(self) -> Sequence[Entry] | None:
        """Every entry when the session is whole, else None: a run reads a window of the stored columns, or a rebuild."""
        return None if self.stored is not None and not self.session.entries else self.path

    def whole(self, store: Store) -> Session:
        """The session with every entry: rebuilt from the store (call it in a worker) when it is held as stored columns."""
        if self.stored is not None and not self.session.entries:
            return store.load_session(self.session.id)
        return self.session


def open_for_review(
    store: Store,
    ref: str,
    *,
    preview: bool = True,
    rules_override: str | None = None,
    watcher: Watcher | None = None,
    preview_entries: int = PREVIEW_ENTRIES,
    lazy_entries: int = LAZY_ENTRIES,
) -> Opened:
    """Open `ref` (a stored session or a session file, imported again only if it changed) for review (blocking)."""
    from cutline.core.agents.refs import session_file
    from cutline.core.config.file import load_settings
    from cutline.core.session_writes import write_back_plan
    from cutline.core.store.token_counts import count_entries
    from cutline.core.tokens import calibrate

    watch = watcher or Unwatched()
    notice = ""
    candidate = session_file(ref)
    if candidate is not None:
        watch.progress(0, f"importing {candidate.name}", candidate.stat().st_size >= 8 * 1024 * 1024)
        report = store.import_file(candidate)
        ref = report.session_id
        if report.status != "unchanged":
            notice = f"{report.status} {report.total:,} entries from {candidate.name}"
        if report.problems:
            notice += f" · {len(report.problems)} problems (first: {report.problems[0]})"
    session_id = store.resolve_session(ref)
    length = store.sessions.path_length(session_id)
    big = length >= preview_entries
    if length >= lazy_entries:
        opened = _open_stored(store, session_id, length, notice, rules_override, watch)
        if opened is not None:
            return opened
    if preview and length >= preview_entries:
        _preview(store, session_id, length, watch)
    watch.progress(1, f"reading {length:,} entries", big)
    session = store.load_session(session_id)
    # a big session is millions of long-lived objects: keep them out of every later GC pass,
    # which would otherwise stall the screen for a large fraction of a second
    gc.collect()
    gc.freeze()
    path = session.active_path()
    watch.progress(2, "counting tokens", big)
    chars4 = count_entries(store, session, "chars4")
    tokens = {"chars4": [chars4.get(e.id, 0) for e in path]}
    calibration = calibrate(session, chars4)
    latest = latest_proposal(store, session.id)
    settings = _settings(load_settings(), latest)
    index_of = {e.id: i for i, e in enumerate(path)}
    watch.progress(3, "indexing the path", big)
    path_index = warmed(index_path(path, tokens["chars4"], "chars4"), settings, rules_for(session, rules_override))
    watch.progress(4, "pairing tool calls", big)
    pairs = pair_numbers(path)
    write_back = write_back_plan(session)  # a look for a running agent too: off the UI thread, here
    return Opened(
        session,
        path,
        tokens,
        settings,
        calibration.ratio,
        path_index=path_index,
        pairs=pairs,
        call_paths=call_paths(path),
        outside=outside_end(path, index_of),
        proposal=latest.proposal,
        proposal_status=latest.status,
        versions=latest.versions,
        notice=notice,
        write_back=write_back,
    )


def _settings(configured: CompactionSettings, latest: Latest) -> CompactionSettings:
    """The settings a review opens on: the open proposal's, wherever it was made (another tab, an earlier visit)."""
    if latest.proposal is not None and latest.status == "open":
        return settings_of_proposal(configured, latest.proposal.settings)
    return configured


def _open_stored(
    store: Store, session_id: str, length: int, notice: str, rules_override: str | None, watch: Watcher
) -> Opened | None:
    """Open a long path without rebuilding it: rows and plan from stored columns; None when they are not all stored."""
    # rows first (their counts come with the plan); a few screens of entries kept, not 64 windows
    entries = _preview(store, session_id, length, watch, counted=False, windows=16)
    watch.progress(2, "indexing the path", True)
    # a million small long-lived objects (facts, index lists): the collector rescanning them as they were made
    # ran 3 full collections of up to ~100 ms each, holding the interpreter (and so the screen) meanwhile
    with no_cyclic_gc():
        opened = _stored_result(store, session_id, entries, notice, rules_override, watch)
        # frozen before the collector is back: the first collection after would otherwise scan them all,
        # holding the interpreter (and so the screen) for ~50 ms
        gc.freeze()
    return opened


def _stored_result(
    store: Store, session_id: str, entries: StoredEntries, notice: str, rules_override: str | None, watch: Watcher
) -> Opened | None:
    """`_open_stored`'s work: the path's facts and counts, the index warmed, pairs and paths; None when not all stored."""
    from cutline.core.config.file import load_settings
    from cutline.core.session_writes import write_back_plan

    length = len(entries)
    found = stored_path(store, session_id, entries)
    if found is None or len(found[1]) != length:
        return None  # stored before facts were kept, or not counted yet: the whole load does it
    stored, tokens = found
    if stored.has_context_edits():
        return None  # what a context_edit omits depends on the whole path: the whole load works it out
    session = store.sessions.header(session_id)
    if session.format == "openclaw" or (session.format == "pi" and (session.version or 1) < 3):
        return None  # their write-back plan reads the whole session (a migration, OpenClaw's store): the whole load
    latest = latest_proposal(store, session_id)
    settings = _settings(load_settings(), latest)
    path_index = warmed(stored.index(tokens, "chars4"), settings, rules_for(session, rules_override))
    watch.progress(4, "pairing tool calls", True)
    pairs, paths, outside = stored.pairs(), stored.call_paths(), stored.outside_end()
    write_back = write_back_plan(telling_session(session, stored))  # a look for a running agent too
    stored.keep_less()
    return Opened(
        session,
        entries,
        {"chars4": tokens},
        settings,
        None,  # fitted when first needed: the calibrated counter, an entry's counts
        path_index=path_index,
        pairs=pairs,
        call_paths=paths,
        outside=outside,
        proposal=latest.proposal,
        proposal_status=latest.status,
        versions=latest.versions,
        notice=notice,
        write_back=write_back,
        stored=stored,
    )


def _preview(
    store: Store, session_id: str, length: int, watch: Watcher, counted: bool = True, windows: int = 64
) -> StoredEntries:
    """Hand the path's rows as stored (the last window read already) to the watcher, before the session is rebuilt."""
    tokens = store.counts.path_counts(session_id, "chars4") if counted else None
    if tokens is None or len(tokens) != length:
        tokens = []  # not counted yet: the rows come without their counts

    def fetch(start: int, stop: int) -> list[Entry]:
        return list(store.sessions.path_entries(session_id, start, stop))

    entries = StoredEntries(length, fetch, windows)
    entries.load_window(entries.window_of(length - 1))
    if length % StoredEntries.WINDOW < 64 and length > StoredEntries.WINDOW:
        entries.load_window(entries.window_of(length - 1) - 1)  # a screenful above the last entry
    watch.preview(entries, tokens)
    return entries


def counted(store: Store, opened: Opened, counter: str, calibration_ratio: float) -> tuple[list[int], PathIndex]:
    """The path's counts under `counter` and its plan index, warmed (blocking: a pass over the whole path)."""
    from cutline.core.store.token_counts import count_entries, stored_path_counts
    from cutline.core.tokens import CalibratedCounter

    if counter in opened.tokens:
        tokens = opened.tokens[counter]
    elif counter == "calibrated":
        scaler = CalibratedCounter(calibration_ratio)
        tokens = [scaler.scale(t) for t in opened.tokens["chars4"]]
    elif opened.stored is not None:
        tokens = stored_path_counts(store, opened.session.id, opened.stored.ids, counter)
    else:
        counts = count_entries(store, opened.session, counter)
        tokens = [counts.get(e.id, 0) for e in opened.path]
    return tokens, index_for(opened, tokens, counter)


def index_for(opened: Opened, tokens: list[int], counter: str) -> PathIndex:
    """The plan's index of the opened path over `tokens`."""
    if opened.stored is not None:
        return opened.stored.index(tokens, counter)
    return index_path(list(opened.path), tokens, counter)
