"""`cutline tokens` and `cutline timeline` of a stored pi session from the store's columns, without rebuilding its entries.

Why: rebuilding a 100,000-entry session as models cost ~2.3 s of the ~5 s these two
commands took; their output needs only each path entry's id, type, role, index facts and
cached counts (`Sessions.path_columns`), and a few entries read on demand. The output is
the same as from the whole session (tests compare both on every session the store imports).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cutline.app.quick_exit import hold_until_exit

if TYPE_CHECKING:
    from cutline.core.audit.timeline import Timeline
    from cutline.core.config.settings import CompactionSettings
    from cutline.core.store import Store
    from cutline.core.tokens import TokenReport


def column_token_report(store: Store, session_id: str, counters: list[str] | None) -> TokenReport | None:
    """`cached_token_report` of the stored session from its columns; None when they cannot give the same report.

    None where `Sessions.path_columns` refuses the session, and with the anthropic counter
    (asked for, or added because a key is set): it counts over the network and may fail,
    which the report then says.
    """
    from cutline.core.store.token_counts import stored_path_counts
    from cutline.core.tokens import PathRows, StoredCalls, report_counters, stored_token_report

    names = report_counters(counters)
    if "anthropic" in names:
        return None
    columns = store.sessions.path_columns(session_id)
    if columns is None:
        return None
    hold_until_exit(columns)
    per_counter = {name: stored_path_counts(store, columns, name) for name in names if name != "calibrated"}
    if "chars4" not in per_counter:
        per_counter["chars4"] = stored_path_counts(store, columns, "chars4")
    rows = PathRows(columns.ids, columns.kinds, columns.roles)
    calls = StoredCalls(columns.weights(), columns.prompts, columns.kept)
    return stored_token_report(session_id, names, rows, calls, per_counter)


def column_timeline(
    store: Store, session_id: str, settings: CompactionSettings, counters: list[str]
) -> Timeline | None:
    """`build_timeline` of the stored session from its columns, counts from the cache; None where `Sessions.path_columns` refuses it."""
    from cutline.core.audit.timeline import stored_timeline
    from cutline.core.store.token_counts import stored_path_counts

    columns = store.sessions.path_columns(session_id)
    if columns is None:
        return None
    hold_until_exit(columns)
    made: dict[str, list[int]] = {}

    def counts(name: str) -> list[int]:
        if name not in made:
            made[name] = stored_path_counts(store, columns, name)
        return made[name]

    return stored_timeline(columns, settings, counters, counts)
