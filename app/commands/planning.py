"""`cutline plan` and `cutline tokens`: where a compaction would cut and why, and what each token counter says.

Only click is imported at module level: every command module is imported when the
CLI starts, and `cutline plan` must start fast.
"""

from __future__ import annotations

import click

from cutline.app.commands._refs import load_held, open_session, stored_unless_other_agent
from cutline.app.commands._store import DB
from cutline.app.output import indented_json, say, say_json
from cutline.app.quick_exit import hold_until_exit
from cutline.core.choices import COUNTERS, LOCAL_COUNTERS, MODES, NETWORK_COUNTERS, RULE_SETS, listed


@click.command("plan")
@click.argument("session")
@click.option("--keep-recent-tokens", type=int, default=None, help="pi's keepRecentTokens (default 20000).")
@click.option("--reserve-tokens", type=int, default=None, help="pi's reserveTokens (default 16384).")
@click.option(
    "--context-window", type=int, default=None, help="Context window in tokens (default: the model's, else 200000)."
)
@click.option(
    "--mode",
    type=click.Choice(MODES),
    default=None,
    help=f"Compaction mode: {listed(MODES)} (default: settings, else pi).",
)
@click.option(
    "--counter",
    type=click.Choice(COUNTERS),
    default="chars4",
    show_default=True,
    help=f"Token counter: {listed(COUNTERS)}.",
)
@click.option(
    "--rules",
    type=click.Choice(RULE_SETS),
    default=None,
    help=f"Planner rule set: {listed(RULE_SETS)} (pi is current pi, 0.87.1 = 1.5.2; "
    "default: what the session shows, else settings, else pi).",
)
@click.option(
    "--openclaw-config",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="Read compaction settings from an OpenClaw config.",
)
@click.option("--entry-tokens", is_flag=True, help="With --json: include every path entry's token count.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
@DB
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
    from cutline.core import workbench
    from cutline.core.config.file import load_settings
    from cutline.core.store import Store
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
    with gc_paused(), Store(db_path) as store:
        target = workbench.open_for_plan(store, session, settings, counter, rules, hold=hold_until_exit, lazy=True)
        result = target.plan(settings, entry_tokens=entry_tokens)
        # the writer names the rules in the text only (JSON has them as `rules`): a JSON plan does not import the audit
        writer = None if as_json else target.written_by(settings, rules)
    workbench.refuse_reserve_over_window(settings, result)
    if writer is None:
        data = result.model_dump(mode="json", exclude=None if entry_tokens else {"entryTokens"})
        data["sessionId"] = target.session_id
        say_json(indented_json(data, ensure_ascii=False))
    else:
        from cutline.core.engine.keep_suggestion import (
            keep_recent_that_summarizes,
            over_threshold_with_nothing_to_summarize,
        )
        from cutline.core.engine.plan_text import plan_text

        say(plan_text(result, writer))
        if over_threshold_with_nothing_to_summarize(result):
            keep = keep_recent_that_summarizes(target.index, settings, target.rules)
            if keep is not None:
                say(f"\nkeepRecentTokens {keep:,} would leave history to summarize: --keep-recent-tokens {keep}")


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


@click.command("tokens")
@click.argument("session")
@click.option(
    "--counter",
    "counters",
    multiple=True,
    type=click.Choice(COUNTERS),
    help=f"Counters to use (repeatable; default {listed(LOCAL_COUNTERS)}, and {listed(NETWORK_COUNTERS)} when a key is set).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the full report as JSON.")
@DB
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
