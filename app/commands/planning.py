"""`cutline plan` and `cutline tokens`: where a compaction would cut and why, and what each token counter says.

Only click is imported at module level: every command module is imported when the
CLI starts, and `cutline plan` must start fast.
"""

from __future__ import annotations

from typing import Any

import click

from cutline.app.commands._refs import load_held, open_counted, open_session, stored_unless_other_agent
from cutline.app.output import indented_json, say, say_json
from cutline.core.errors import CutlineError

_MODES = ("pi", "safeguard", "first-and-tail", "system-and-summary")
_COUNTERS = ("chars4", "tiktoken", "calibrated", "anthropic")
_RULES = ("pi", "pi-0.73", "openclaw-2026.9", "qwen-code-0.24")
_DB = click.option(
    "--db",
    "db_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Store to use (default: $CUTLINE_HOME/cutline.db).",
)


def _refuse_reserve_over_window(settings: Any, window: int) -> None:
    """One line when the reserve leaves no room at all: pi's threshold (window − reserve) would be zero or negative."""
    from cutline.core.engine.modes import reserve_for

    reserve = reserve_for(settings)
    if reserve >= window:
        raise CutlineError(
            f"reserveTokens {reserve:,} is at or above the context window {window:,}: "
            "no context would fit under the threshold (give a smaller --reserve-tokens or a larger --context-window)"
        )


@click.command("plan")
@click.argument("session")
@click.option("--keep-recent-tokens", type=int, default=None, help="pi's keepRecentTokens (default 20000).")
@click.option("--reserve-tokens", type=int, default=None, help="pi's reserveTokens (default 16384).")
@click.option(
    "--context-window", type=int, default=None, help="Context window in tokens (default: the model's, else 200000)."
)
@click.option("--mode", type=click.Choice(_MODES), default=None, help="Compaction mode (default: settings, else pi).")
@click.option("--counter", type=click.Choice(_COUNTERS), default="chars4", show_default=True, help="Token counter.")
@click.option(
    "--rules",
    type=click.Choice(_RULES),
    default=None,
    help="Planner rule set: pi (current, 0.87.1 = 1.5.2), pi-0.73, openclaw-2026.9 (default: what the session shows, else settings, else pi).",
)
@click.option(
    "--openclaw-config",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="Read compaction settings from an OpenClaw config.",
)
@click.option("--entry-tokens", is_flag=True, help="With --json: include every path entry's token count.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
@_DB
def plan_cmd(
    session: str,
    keep_recent_tokens: int | None,
    reserve_tokens: int | None,
    context_window: int | None,
    mode: str | None,
    counter: str,
    rules: str | None,
    openclaw_config: str | None,
    entry_tokens: bool,
    as_json: bool,
    db_path: str | None,
) -> None:
    """Show where a compaction of SESSION (a stored session or a session file) would cut now, and why."""
    from cutline.core.config.file import load_settings
    from cutline.core.engine.plan import plan
    from cutline.core.engine.rules.choice import evidence, written_by
    from cutline.core.store import Store
    from cutline.core.store.token_counts import count_entries
    from cutline.core.tokens import gc_paused

    settings = load_settings(
        openclaw=openclaw_config,
        overrides={
            "keepRecentTokens": keep_recent_tokens,
            "reserveTokens": reserve_tokens,
            "contextWindow": context_window,
            "mode": mode,
        },
    )
    from cutline.core.engine.path_index import PathIndex, index_path

    with gc_paused(), Store(db_path) as store:
        windowed = _windowed(store, session, settings, counter, rules)
        if windowed is not None:
            session_id, window = windowed
            index = PathIndex.from_facts(window, window.counts, counter, window.ids, window.kinds, window.facts)
            chosen = rules
            writer = _window_writer(store, session_id, window, settings, rules)
        else:
            loaded, counts = open_counted(store, session, counter if counter == "chars4" else None)
            if counts is None:
                counts = count_entries(store, loaded, counter)
            session_id = loaded.id
            path = loaded.active_path()
            chosen = rules or evidence(path, loaded.format, loaded.version)
            index = index_path(path, [counts.get(e.id, 0) for e in path], counter)
            writer = written_by(path, loaded.format, loaded.version, settings.rules, rules).rules
        result = plan(index, settings, counter, entry_tokens=entry_tokens, rules=chosen)
    if result.windowGuard is None or not result.windowGuard.shouldBlock:
        # a window the guard blocks is itself the problem, and the plan says so
        _refuse_reserve_over_window(settings, result.contextWindow)
    if as_json:
        data = result.model_dump(mode="json", exclude=None if entry_tokens else {"entryTokens"})
        data["sessionId"] = session_id
        say_json(indented_json(data, ensure_ascii=False))
    else:
        from cutline.core.engine.keep_suggestion import (
            keep_recent_that_summarizes,
            over_threshold_with_nothing_to_summarize,
        )
        from cutline.core.engine.plan_text import plan_text

        say(plan_text(result, writer))
        if over_threshold_with_nothing_to_summarize(result):
            keep = keep_recent_that_summarizes(index, settings, chosen)
            if keep is not None:
                say(f"\nkeepRecentTokens {keep:,} would leave history to summarize: --keep-recent-tokens {keep}")


def _window_writer(store: Any, session_id: str, window: Any, settings: Any, rules: str | None) -> str:
    """The rules of the agent that wrote a stored pi session read as a window (as `audit` names them)."""
    from types import SimpleNamespace

    from cutline.core.audit.report import window_writer

    row = store.sessions.row(session_id) or {}
    # only its format and version are read: the stored row's, not the whole session loaded
    session: Any = SimpleNamespace(format=row.get("format", "pi"), version=row.get("version"))
    return window_writer(window, session, settings, rules).rules


def _windowed(store: Any, ref: str, settings: Any, counter: str, rules: str | None) -> tuple[str, Any] | None:
    """(session id, the stored path as a `PathWindow`) when the plan may read a window of it, else None.

    Why: a cold plan of a 100,000-entry pi file kept the whole session as models (~2 s of
    pydantic and ~900 MB); a new pi file is now imported streaming (its facts and chars4
    counts stored on the way) and planned from the stored facts, as `cutline compact`
    plans (`cutline.app.compaction_window`: pi files, mode pi, not OpenClaw's rules, the
    counter's counts cached). Any other file is read once and kept, as before: importing
    it and loading it back would read it twice.
    """
    from cutline.app.commands._refs import resolve_stored, session_file
    from cutline.app.compaction_window import compaction_window
    from cutline.app.quick_exit import hold_until_exit

    candidate = session_file(ref)
    if candidate is not None:
        if not store.importer.streams_pi_file(candidate):
            return None
        session_id = str(store.import_file(candidate).session_id)
    else:
        session_id = resolve_stored(store, ref)
    window = compaction_window(store, session_id, settings.mode, counter, rules, settings.rules, lazy=True)
    if window is None:
        return None
    hold_until_exit(window)
    return session_id, window


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


@click.command("tokens")
@click.argument("session")
@click.option(
    "--counter",
    "counters",
    multiple=True,
    type=click.Choice(_COUNTERS),
    help="Counters to use (repeatable; default chars4, tiktoken, calibrated, and anthropic when a key is set).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the full report as JSON.")
@_DB
def tokens_cmd(session: str, counters: tuple[str, ...], as_json: bool, db_path: str | None) -> None:
    """Per-entry token counts of SESSION under each counter, and each counter's error against the API's usage records."""
    from cutline.app.column_reports import column_token_data
    from cutline.core.store import Store
    from cutline.core.store.token_counts import cached_token_report
    from cutline.core.tokens import TokenReport, gc_paused, token_report_json

    named = list(counters) if counters else None
    with gc_paused(), Store(db_path) as store:
        # a session pi's reader reads (pi's, OpenClaw's) from the store's columns; any other rebuilt whole
        session_id = stored_unless_other_agent(store, session)
        data = column_token_data(store, session_id, named) if session_id is not None else None
        if data is None:
            loaded = open_session(store, session) if session_id is None else load_held(store, session_id)
            report = cached_token_report(store, loaded, named)
    if data is not None:
        if as_json:
            say_json(token_report_json(data))
            return
        report = TokenReport.model_validate(data)
    if as_json:
        say_json(report.model_dump_json(indent=2))
        return
    names = report.counters
    total = {name: sum(row[name] for row in report.entries) for name in names}
    say(
        f"{len(report.entries):,} entries on the active path; totals: "
        + ", ".join(f"{name} {total[name]:,}" for name in names)
    )
    for name, why in report.unavailable.items():
        say(f"{name}: not counted ({why})")
    calibration = report.calibration
    if calibration.fitted:
        say(
            f"calibrated ({calibration.method} over {len(calibration.samples)} model calls): "
            f"real ≈ {calibration.overhead:,.0f} + {calibration.ratio:.3f} × chars4"
        )
    if not report.turns:
        say("no assistant usage records: nothing to compare the counters against")
        return
    # "path #": the call's position on the active path (`timeline`'s "turn" counts user turns)
    say(f"\n{'path #':>6} {'real':>9} " + " ".join(f"{name:>11}" for name in names))
    for row in report.turns:
        say(f"{row['pathIndex']:>6} {row['real']:>9,} " + " ".join(f"{row.get(name, 0):>11,}" for name in names))
    say("\nrelative error against usage (median / p90):")
    for err in report.errors:
        say(
            f"  {err.counter:<11} {_percent(err.medianError):>7} / {_percent(err.p90Error):>7}  ({err.samples} model calls)"
        )


COMMANDS = [plan_cmd, tokens_cmd]
