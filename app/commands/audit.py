"""`cutline audit`, `cutline timeline` and `cutline compare`: what a compaction lost and why, context size over time, two compactions side by side.

Only click is imported at module level so the CLI starts fast; the core is imported
inside each command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from cutline.app.commands._refs import load_held, session_id_for
from cutline.app.commands._store import DB, open_store
from cutline.app.output import indented_json, say, say_json
from cutline.app.quick_exit import hold_until_exit
from cutline.core.choices import LOCAL_COUNTERS, RULE_SETS, listed
from cutline.core.errors import CutlineError, NotFoundError

_RULES_OPTION = click.option(
    "--rules",
    type=click.Choice(RULE_SETS),
    default=None,
    help=f"Planner rule set to re-plan with: {listed(RULE_SETS)} "
    "(default: the agent version that wrote the session, where the file tells).",
)


def _compaction_entry(store: Any, ref: str) -> tuple[str, str] | None:
    """(session id, entry id) of the stored compaction entry whose id is `ref` or starts with it, None if none."""
    rows = store.sessions.compaction_entries(ref)
    exact = [r for r in rows if r[1] == ref]
    if len(exact) == 1 or len(rows) == 1:
        row = (exact or rows)[0]
        return row[0], row[1]
    if len(rows) > 1:
        raise NotFoundError(f"compaction id {ref!r} matches {len(rows)} entries; give SESSION:ENTRY")
    return None


def _proposal_audit(store: Any, ref: str) -> Any:
    """The audit of a stored proposal; on a window of the path where the proposal allows it (`_proposal_window`)."""
    from cutline.core.audit.report import audit_proposal
    from cutline.core.review import latest_version, load_proposal
    from cutline.core.store.token_counts import count_entries

    proposal = load_proposal(store, ref)
    latest = latest_version(store, proposal.id)
    summary = latest.text if latest.text != proposal.summary else None
    window = _proposal_window(store, proposal)
    if window is not None:
        return audit_proposal(store.sessions.header(proposal.session_id), proposal, summary, window=window)
    session = load_held(store, proposal.session_id)
    return audit_proposal(session, proposal, summary, count_entries(store, session, "chars4"))


def findings_for(store: Any, ref: str) -> Any:
    """What to read before accepting proposal `ref`: its latest version's contradicted and lost facts and guard verdict.

    The guard runs again on the latest version (an edit may have fixed it or broken it).
    """
    from cutline.core.audit.before_accept import findings
    from cutline.core.review import load_proposal

    proposal = load_proposal(store, ref)
    report = _proposal_audit(store, proposal.id)
    return findings(report.facts, guard_for(store, proposal.id), report.weighted_retention)


def guard_for(store: Any, ref: str) -> Any:
    """The quality guard's verdict on proposal `ref`'s latest version (None when the proposal has no guard).

    Cheap (no audit): said before accepting even where the audit cannot be made, or is still being made.
    """
    from cutline.core.engine.quality_guard import verdict_for
    from cutline.core.review import latest_version, load_proposal

    proposal = load_proposal(store, ref)
    guard = proposal.quality
    if guard is None:
        return None
    text = latest_version(store, proposal.id).text
    return verdict_for(text, guard.inputs, attempts=guard.attempts, enforced=guard.enforced, strict=guard.strict)


def _proposal_window(store: Any, proposal: Any) -> Any:
    """The path a proposal was planned on as a `PathWindow`, None when the whole session must be loaded.

    None where `Sessions.path_window` says so (not a pi file, a context_edit or reset on the
    path, a count or facts missing, the parent entry off the active path), where
    `proposal_window_fits` says no (mode and rules), and when a stored entry shares the
    proposal's id (the audit would read that entry's compaction details).
    """
    from cutline.core.audit.report import proposal_window_fits

    if proposal.parentEntryId is None:
        return None
    # lazy: the audit reads the summarized part a block at a time, and keeps none of it
    window = store.sessions.path_window(proposal.session_id, "chars4", through=proposal.parentEntryId, lazy=True)
    if window is None or not proposal_window_fits(proposal, window):
        return None
    if store.sessions.holds_entry(proposal.session_id, proposal.id):
        return None
    hold_until_exit(window)
    return window


def _compaction_window(store: Any, session_id: str, compaction_id: str | None, settings: Any, rules: str | None) -> Any:
    """The active path through the compaction `audit` reads as a `PathWindow`, None when the whole session must be loaded.

    None where `Sessions.path_window` says so (not a pi file, a context_edit or reset on the
    path, a count or facts missing), where `compaction_window_fits` says no (mode and
    rules), when the compaction is not on the active path (the audit follows its parents)
    or no compaction is (the latest anywhere is audited), and when its id is repeated in
    the file (the audit reads the last record with that id).
    """
    from cutline.core.audit.report import compaction_window_fits

    if compaction_id is None:
        compaction_id = store.sessions.latest_path_compaction(session_id)
        if compaction_id is None:
            return None
    if store.sessions.repeats_id(session_id, compaction_id):
        return None
    window = store.sessions.path_window(session_id, "chars4", through=compaction_id, before=True)
    if window is None or window.kinds[-1] != "compaction":
        return None
    if not compaction_window_fits(window, store.sessions.header(session_id), settings, rules):
        return None
    hold_until_exit(window)
    return window


def _settings(
    keep_recent_tokens: int | None = None, reserve_tokens: int | None = None, context_window: int | None = None
) -> Any:
    from cutline.core.config.file import load_settings

    return load_settings(
        overrides={
            "keepRecentTokens": keep_recent_tokens,
            "reserveTokens": reserve_tokens,
            "contextWindow": context_window,
        }
    )


def _audit_ref(store: Any, ref: str, settings: Any) -> Any:
    """Audit what `ref` names: a session file or session (its latest compaction), SESSION:ENTRY, a compaction id or a proposal id."""
    from cutline.core.agents.refs import session_file
    from cutline.core.audit.report import audit_compaction
    from cutline.core.review import resolve_proposal

    if session_file(ref) is not None:
        session_id = session_id_for(store, ref)
        return audit_compaction(load_held(store, session_id), None, settings)
    if ":" in ref:
        session_ref, _, entry_id = ref.rpartition(":")
        try:
            found = session_id_for(store, session_ref)
        except NotFoundError:
            found = None
        if found is not None:
            return audit_compaction(load_held(store, found), entry_id, settings)
    try:
        proposal_id = resolve_proposal(store, ref)
    except NotFoundError:
        proposal_id = None
    if proposal_id is not None:
        return _proposal_audit(store, proposal_id)
    entry = _compaction_entry(store, ref)
    if entry is not None:
        return audit_compaction(load_held(store, entry[0]), entry[1], settings)
    try:
        session_id = store.resolve_session(ref)
    except NotFoundError:
        raise NotFoundError(f"{ref!r} is no session file, stored session, compaction id or proposal id") from None
    return audit_compaction(load_held(store, session_id), None, settings)


# ---------------------------------------------------------------------------
# Text output
# ---------------------------------------------------------------------------


def _resumed_with(explained: Any) -> str:
    """Where `plan` and `compact` use other rules than the file's writer's: say which, and why ("" when the same)."""
    from cutline.core.engine.rules.choice import Writer, label, resume_rules

    writer = Writer(explained.rules, explained.rules_reason or "", True)
    planned = resume_rules(writer, _settings().rules)
    if planned == writer.rules:
        return ""
    return f"; plan and compact use {label(planned)}'s rules ({planned}), for the pi you resume it with"


def report_text(report: Any) -> str:
    """The audit as plain text for a terminal."""
    lines = [
        f"audit of {report.target} {report.target_id} in session {report.session_id} ({report.format})",
        f"tokens before {report.tokens_before:,}" if report.tokens_before else "tokens before: not recorded",
    ]
    if report.tokens_after is not None:
        lines[-1] += f" -> after {report.tokens_after:,} ({report.counter})"
    lines.append(
        f"summarized {len(report.summarized_entry_ids)} entries; kept {len(report.kept_entry_ids)} verbatim"
        + (f" from {report.first_kept_entry_id}" if report.first_kept_entry_id else "")
    )
    lines += ["", "retention (kept/total)"]
    for r in report.retention:
        score = f"{r.score:.0%}" if r.score is not None else "-"
        lines.append(f"  {r.kind:<12} {r.kept:>4}/{r.total:<4} {score:>5}")
    lines.append(f"  weighted by importance: {report.weighted_retention:.0%}")
    contradicted = report.contradicted
    if contradicted:
        lines += ["", f"contradicted ({len(contradicted)}): the summary states these otherwise"]
        for fact in contradicted:
            lines.append(f"  - [{fact.kind}] {fact.text}  [entry {fact.source_entry_id or '?'}]")
            lines.append(f"      summary: {fact.closest}  ({fact.reason})")
    groups = {kind: [f for f in facts if f.verdict != "contradicted"] for kind, facts in report.lost_by_kind().items()}
    groups = {kind: facts for kind, facts in groups.items() if facts}
    lines += ["", "lost facts" + ("" if groups else ": none")]
    for kind, facts in groups.items():
        lines.append(f"  {kind} ({len(facts)})")
        for fact in facts:
            origin = " (previous summary)" if fact.origin == "previous_summary" else ""
            again = " (read again after the compaction)" if fact.recovered else ""
            lines.append(f"    - {fact.text}  [entry {fact.source_entry_id or '?'}]{origin}{again}")
    reworded = report.reworded
    if reworded:
        lines += ["", f"kept in other words ({len(reworded)}): confirm the closest passage"]
        for fact in reworded:
            lines.append(f"  - {fact.text}")
            lines.append(f"      \u2248 {fact.closest}")
    lines += ["", "warnings" + ("" if report.warnings else ": none")]
    for w in report.warnings:
        mark = " (recovered)" if w.recovered else ""
        lines.append(f"  ! {w.code}{mark}: {w.message}")
    if report.quality is not None:
        lines += ["", f"quality guard: {report.quality.summary()}"]
        if not report.quality.ok:
            from cutline.core.audit.before_accept import guard_words

            lines += [f"  - {line}" for line in guard_words(report.quality)]
    lines += ["", "why the cut fell there"]
    if report.why.rules:
        lines.append(f"  rules {report.why.rules}: {report.why.rules_reason}{_resumed_with(report.why)}")
    lines += [f"  {step}" for step in (report.why.steps or [report.why.text])]
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------


@click.command("audit")
@click.argument("session", required=False)
@click.option(
    "--compaction", "compaction_id", default=None, help="Compaction entry id (default: the latest compaction)."
)
@click.option("--proposal", "proposal_id", default=None, help="Audit a proposal made here instead.")
@click.option("--keep-recent-tokens", type=int, default=None, help="Settings assumed when re-planning the cut.")
@click.option("--reserve-tokens", type=int, default=None, help="Settings assumed when re-planning the cut.")
@click.option("--context-window", type=int, default=None, help="Settings assumed when re-planning the cut.")
@_RULES_OPTION
@click.option(
    "--json", "as_json", is_flag=True, help="Print lost facts, retention, warnings and the explanation as JSON."
)
@click.option(
    "--probe",
    is_flag=True,
    help="With --proposal: ask the configured model questions on the important facts, from the context after "
    "the compaction only, and grade its answers against the facts (the cost is shown first).",
)
@click.option("--yes", "assume_yes", is_flag=True, help="With --probe: run it without asking.")
@DB
def audit_cmd(
    session: str | None,
    compaction_id: str | None,
    proposal_id: str | None,
    keep_recent_tokens: int | None,
    reserve_tokens: int | None,
    context_window: int | None,
    rules: str | None,
    as_json: bool,
    probe: bool,
    assume_yes: bool,
    db_path: str | None,
) -> None:
    """What a compaction in SESSION (a stored session or a session file) lost, and why the cut fell there.

    With --proposal, SESSION may be left out; --probe adds the model check (optional: it needs a key or an endpoint).
    """
    from cutline.core.audit.report import audit_compaction

    if compaction_id and proposal_id:
        raise click.UsageError("give --compaction or --proposal, not both")
    if session is None and not proposal_id:
        raise click.UsageError("give a SESSION, or --proposal PROPOSAL")
    if probe and not proposal_id:
        raise click.UsageError("--probe checks a proposal: give --proposal PROPOSAL")
    settings = _settings(keep_recent_tokens, reserve_tokens, context_window)
    probed: Any = None
    with open_store(db_path) as store:
        session_id = session_id_for(store, session) if session is not None else None
        if proposal_id:
            report = _proposal_audit(store, proposal_id)
            if probe:
                probed = _probe(store, report, settings, assume_yes, as_json)
            else:
                from cutline.core.workbench.probing import stored_run

                probed = stored_run(store, report.target_id)
            if session_id is not None and report.session_id != session_id:
                raise CutlineError(
                    f"proposal {report.target_id} belongs to session {report.session_id}, not {session_id}"
                )
        else:
            from cutline.core.store.token_counts import count_entries

            assert session_id is not None  # a SESSION is required without --proposal
            window = _compaction_window(store, session_id, compaction_id, settings, rules)
            if window is not None:
                header = store.sessions.header(session_id)
                # the entries after the compaction on the path: a lost path read again there is recovered
                later = store.sessions.path_entries(session_id, len(window))
                report = audit_compaction(header, compaction_id, settings, rules=rules, window=window, later=later)
            else:
                loaded = load_held(store, session_id)
                report = audit_compaction(
                    loaded, compaction_id, settings, count_entries(store, loaded, "chars4"), rules=rules
                )
    if as_json:
        data = report.to_json()
        if proposal_id:
            data["probe"] = probed.model_dump() if probed is not None else None
        say_json(indented_json(data, ensure_ascii=False))
    else:
        text = report_text(report)
        if probed is not None:
            text += "\n\n" + probed.text()
        say(text)


def _probe(store: Any, report: Any, settings: Any, assume_yes: bool, as_json: bool) -> Any:
    """The model check of the audited proposal: the cost said first, asked, run and stored (None when declined)."""
    import os

    from cutline.core.workbench.probing import plan_probe, run_probe

    plan = plan_probe(store, report.target_id, report.facts, settings, os.environ)
    if not plan.questions:
        say("probe: no important fact in the summarized part to ask about", err=True)
        return None
    say(plan.cost.line(plan.model_name) + f"; {len(plan.questions)} questions", err=True)
    if not assume_yes and not click.confirm("run the probe?", default=False, err=True):
        say("probe not run", err=True)
        return None
    return run_probe(store, plan)


@click.command("timeline")
@click.argument("session")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="Write the plot as an SVG file.")
@click.option(
    "--counter",
    "counters",
    type=click.Choice(LOCAL_COUNTERS),
    multiple=True,
    help=f"Estimates to draw (repeatable; default {listed(LOCAL_COUNTERS)}); --replay runs on the first one.",
)
@click.option("--keep-recent-tokens", type=int, default=None, help="keepRecentTokens for the replay.")
@click.option("--reserve-tokens", type=int, default=None, help="reserveTokens (threshold = window - reserve).")
@click.option("--context-window", type=int, default=None, help="The context window drawn and replayed against.")
@click.option("--replay", "do_replay", is_flag=True, help="Simulate auto-compaction under these settings and draw it.")
@click.option("--summary-tokens", type=int, default=None, help="Replay: assumed summary size (default 2000).")
@_RULES_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the timeline (and replay) as JSON.")
@DB
def timeline_cmd(
    session: str,
    output: str | None,
    counters: tuple[str, ...],
    keep_recent_tokens: int | None,
    reserve_tokens: int | None,
    context_window: int | None,
    do_replay: bool,
    summary_tokens: int | None,
    rules: str | None,
    as_json: bool,
    db_path: str | None,
) -> None:
    """Context size per model call in SESSION: recorded usage, each counter's estimate, compactions, window and threshold."""
    from cutline.core.audit.timeline import build_timeline

    if output and not output.lower().endswith(".svg"):
        raise CutlineError(f"{output}: only SVG output is supported (name the file *.svg)")
    settings = _settings(keep_recent_tokens, reserve_tokens, context_window)
    names = list(counters) or list(LOCAL_COUNTERS)
    from cutline.app.column_reports import column_timeline
    from cutline.core.store.token_counts import count_entries
    from cutline.core.tokens import calibrated_counts

    with open_store(db_path) as store:
        session_id = session_id_for(store, session)
        # pi's and OpenClaw's sessions from the store's columns; the replay (it plans on the entries) and others rebuilt whole
        data = None if do_replay else column_timeline(store, session_id, settings, names)
        result = None
        if data is None:
            loaded = load_held(store, session_id)
            made: dict[str, dict[str, int]] = {}

            def counts(name: str) -> dict[str, int]:
                # the store's cache (counted once per session and counter), read once per command:
                # calibrated is chars4 scaled, and the timeline and the replay ask for the same counters
                if name not in made:
                    made[name] = (
                        calibrated_counts(loaded, counts("chars4"))
                        if name == "calibrated"
                        else count_entries(store, loaded, name)
                    )
                return made[name]

            if do_replay:
                from cutline.core.audit.replay import timeline_with_replay

                # the replay runs on one counter: the first one named (chars4 when none is)
                timeline, result = timeline_with_replay(
                    loaded,
                    settings,
                    names,
                    replay_counter=counters[0] if counters else "chars4",
                    summary_tokens=summary_tokens,
                    counts=counts,
                    rules=rules,
                )
            else:
                timeline = build_timeline(loaded, settings, names, counts)
    # the columns' data is what `Timeline.model_dump()` gives: printed and drawn as it is, no model made
    _print_timeline(data if data is not None else timeline.model_dump(), result, output, as_json)


def _print_timeline(timeline: dict[str, Any], result: Any, output: str | None, as_json: bool) -> None:
    """The timeline (`Timeline.model_dump()`'s shape) and replay as `timeline` prints them: the SVG file when asked for, then JSON or text."""
    from cutline.core.audit.timeline import render_svg_data

    if output:
        try:
            Path(output).write_text(render_svg_data(timeline), encoding="utf-8")
        except OSError as exc:
            raise CutlineError(f"cannot write {output}: {exc.strerror or exc}") from None
    if as_json:
        data: dict[str, Any] = {"timeline": timeline}
        if result is not None:
            data["replay"] = {**result.model_dump(exclude={"points"}), "text": result.text()}
        say_json(indented_json(data))
        return
    points = timeline["points"]
    say(
        f"session {timeline['session_id']}: {len(points)} model calls; window {timeline['context_window']:,}, "
        f"reserve {timeline['reserve_tokens']:,}, threshold {timeline['threshold']:,}"
    )
    peak = max((p["usage"] or 0 for p in points), default=0)
    if peak:
        say(f"peak recorded usage {peak:,} tokens")
    for name in timeline["counters"]:
        values = [p["estimates"][name] for p in points if name in p["estimates"]]
        if values:
            say(f"peak {name} estimate {max(values):,} tokens")
    for c in timeline["compactions"]:
        kind = "replayed compaction" if c["replayed"] else "compaction"
        before = f"{c['tokens_before']:,}" if c["tokens_before"] else "?"
        after = f"{c['tokens_after']:,}" if c["tokens_after"] is not None else "?"
        say(f"{kind} {c['entry_id']} at turn {c['turn']}: {before} -> {after} tokens")
    if result is not None:
        say(result.text())
        say(f"replayed with the rules of {result.rules} ({result.rules_reason}){_resumed_with(result)}")
    if output:
        say(f"wrote {output}")


@click.command("compare")
@click.argument("a")
@click.argument("b")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@DB
def compare_cmd(a: str, b: str, as_json: bool, db_path: str | None) -> None:
    """Two compactions or proposals side by side: A and B are proposal ids, compaction ids, SESSION:ENTRY, or sessions/files (latest compaction)."""
    from cutline.core.audit.report import compare

    settings = _settings()
    with open_store(db_path) as store:
        left = _audit_ref(store, a, settings)
        right = _audit_ref(store, b, settings)
    result = compare(left, right)
    if as_json:
        say_json(result.model_dump_json(indent=2))
    else:
        say(result.text())


COMMANDS = [audit_cmd, timeline_cmd, compare_cmd]
