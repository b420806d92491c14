"""`cutline tokens` and `cutline timeline` of a stored pi or OpenClaw session from the store's columns, without rebuilding its entries.

Why: rebuilding a 100,000-entry session as models cost ~2.3 s of the ~5 s these two
commands took; their output needs only each path entry's id, type, role, index facts and
cached counts (`Sessions.path_columns`), and a few entries read on demand. The output is
the same as from the whole session (tests compare both on every session the store imports).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cutline.app.quick_exit import hold_until_exit

if TYPE_CHECKING:
    from cutline.core.config.settings import CompactionSettings
    from cutline.core.store import Store


def column_token_data(store: Store, session_id: str, counters: list[str] | None) -> dict[str, Any] | None:
    """`cached_token_report(...).model_dump()` of the stored session from its columns; None when they cannot give the same.

    None where `Sessions.path_columns` refuses the session, and with the anthropic counter
    (asked for, or added because a key is set): it counts over the network and may fail,
    which the report then says.
    """
    from cutline.core.store.token_counts import stored_path_counts
    from cutline.core.tokens import PathRows, StoredCalls, gc_paused, report_counters, stored_token_data

    names = report_counters(counters)
    if "anthropic" in names:
        return None
    with gc_paused():  # ~100,000 small objects that all stay: a collection would only walk them
        columns = store.sessions.path_columns(session_id)
        if columns is None:
            return None
        hold_until_exit(columns)
        per_counter = {
            name: stored_path_counts(store, session_id, columns.ids, name) for name in names if name != "calibrated"
        }
        if "chars4" not in per_counter:
            per_counter["chars4"] = stored_path_counts(store, session_id, columns.ids, "chars4")
        rows = PathRows(columns.ids, columns.kinds, columns.roles)
        calls = StoredCalls(columns.weights(), columns.prompts, columns.kept)
        data = stored_token_data(session_id, names, rows, calls, per_counter)
        hold_until_exit(data)
        return data


def column_timeline(
    store: Store, session_id: str, settings: CompactionSettings, counters: list[str]
) -> dict[str, Any] | None:
    """`build_timeline(...).model_dump()` of the stored session from its columns, counts from the cache; None where `Sessions.path_columns` refuses it."""
    from cutline.core.audit.timeline import stored_timeline_data
    from cutline.core.store.token_counts import stored_path_counts
    from cutline.core.tokens import gc_paused

    with gc_paused():  # ~100,000 small objects that all stay: a collection would only walk them
        columns = store.sessions.path_columns(session_id)
        if columns is None:
            return None
        hold_until_exit(columns)
        made: dict[str, list[int]] = {}

        def counts(name: str) -> list[int]:
            if name not in made:
                made[name] = stored_path_counts(store, session_id, columns.ids, name)
            return made[name]

        data = stored_timeline_data(columns, settings, counters, counts)
        hold_until_exit(data)
        return data
