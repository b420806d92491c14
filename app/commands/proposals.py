"""`cutline compact`, `accept`, `reject` and `proposals`: make, decide and list compaction proposals."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from cutline.app.commands._refs import session_id_for
from cutline.app.commands._store import DB, open_store
from cutline.app.output import indented_json, say, say_json
from cutline.app.quick_exit import hold_until_exit
from cutline.core.choices import MODES, PROPOSAL_COUNTERS, RULE_SETS, SUMMARIZERS, listed
from cutline.core.errors import CutlineError

if TYPE_CHECKING:
    from cutline.core.store import Store


@click.command("compact")
@click.argument("session")
@click.option(
    "--summarizer",
    type=click.Choice(SUMMARIZERS),
    default=None,
    help=f"Who writes the summary: {listed(SUMMARIZERS)} (default: settings, else extractive).",
)
@click.option("--model", default=None, help="Model for the anthropic / openai summarizer (default: the session's own).")
@click.option(
    "--base-url", default=None, help="openai summarizer: an OpenAI-compatible endpoint (else OPENAI_BASE_URL)."
)
@click.option("--api", type=click.Choice(["responses", "chat"]), default=None, help="openai summarizer: which API.")
@click.option(
    "--mode",
    type=click.Choice(MODES),
    default=None,
    help=f"Compaction mode: {listed(MODES)}.",
)
@click.option("--keep-recent-tokens", type=int, default=None, help="pi's keepRecentTokens.")
@click.option("--reserve-tokens", type=int, default=None, help="pi's reserveTokens (summary max_tokens = 0.8 of it).")
@click.option("--context-window", type=int, default=None, help="The model's context window in tokens.")
@click.option("--max-history-share", type=float, default=None, help="Safeguard: share of the window history may use.")
@click.option("--parts", type=int, default=None, help="Staged summarization: number of token-share parts.")
@click.option(
    "--max-chunk-tokens", type=int, default=None, help="Staged summarization: split by this many tokens per part."
)
@click.option("--tail", "protected_tail", type=int, default=None, help="first-and-tail: messages kept at the end.")
@click.option(
    "--prompt",
    "prompt_name",
    default=None,
    help="History prompt: pi-checkpoint, go-7-section, narrative, claude-code or codex (as those agents summarize).",
)
@click.option(
    "--last-turn/--no-last-turn",
    "last_turn",
    default=None,
    help="Append the last exchange verbatim when it is summarized.",
)
@click.option(
    "--preview-style", is_flag=True, default=None, help="Serialize tool results as 500 + 200 character previews."
)
@click.option("--instructions", default=None, help='Custom instructions for the summary ("Additional focus").')
@click.option(
    "--timeout",
    "timeout_seconds",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Give up after this many seconds, reading and planning the session included (default: settings, else 300).",
)
@click.option(
    "--request-timeout",
    "request_timeout_seconds",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Give up on one summarizer request after this many seconds (default: settings, else 180).",
)
@click.option(
    "--counter",
    type=click.Choice(PROPOSAL_COUNTERS),
    default="chars4",
    show_default=True,
    help="Token counter for the plan.",
)
@click.option(
    "--openclaw-config",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="Read compaction settings from an OpenClaw config.",
)
@click.option(
    "--rules",
    type=click.Choice(RULE_SETS),
    default=None,
    help=f"Planner rule set: {listed(RULE_SETS)} (default: what the session shows, else settings, else pi).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the proposal as JSON.")
@DB
def compact_cmd(
    session: str,
    summarizer: str | None,
    model: str | None,
    base_url: str | None,
    api: str | None,
    mode: str | None,
    keep_recent_tokens: int | None,
    reserve_tokens: int | None,
    context_window: int | None,
    max_history_share: float | None,
    parts: int | None,
    max_chunk_tokens: int | None,
    protected_tail: int | None,
    prompt_name: str | None,
    last_turn: bool | None,
    preview_style: bool | None,
    instructions: str | None,
    timeout_seconds: float | None,
    request_timeout_seconds: float | None,
    counter: str,
    openclaw_config: str | None,
    rules: str | None,
    as_json: bool,
    db_path: str | None,
) -> None:
    """Make a compaction proposal for SESSION (a stored session or a session file), store it and print it."""
    import time

    from cutline.core import workbench

    started = time.monotonic()  # --timeout covers everything from here to the proposal
    from cutline.core.config.file import load_settings

    overrides = {
        "mode": mode,
        "keepRecentTokens": keep_recent_tokens,
        "reserveTokens": reserve_tokens,
        "contextWindow": context_window,
        "maxHistoryShare": max_history_share,
        "parts": parts,
        "maxChunkTokens": max_chunk_tokens,
        "protectedTailMessages": protected_tail,
        "promptName": prompt_name,
        "lastTurnInjection": last_turn,
        "previewStyle": preview_style,
        "customInstructions": instructions,
        "summarizer": summarizer,
        "model": model,
        "baseUrl": base_url,
        "api": api,
        "timeoutSeconds": timeout_seconds,
        "requestTimeoutSeconds": request_timeout_seconds,
    }
    settings = load_settings(openclaw=openclaw_config, overrides={k: v for k, v in overrides.items() if v is not None})
    if openclaw_config:
        from cutline.core.config.openclaw import retired_notice

        notice = retired_notice(openclaw_config)
        if notice:
            say(f"note: {notice}", err=True)
    refused = workbench.checked_settings(settings, [])  # the key and prompt checks, before anything is read
    if isinstance(refused, workbench.Refusal):
        raise refused.error()
    from cutline.app.deadline import whole_deadline
    from cutline.core.store.memory import no_cyclic_gc

    with open_store(db_path, recover=True) as store:
        # everything up to the proposal, the import and plan included; the cyclic collector paused: a long
        # span's walk makes millions of short-lived acyclic objects, rescanned for ~25 % of the run's CPU
        with whole_deadline(settings.timeoutSeconds), no_cyclic_gc():
            # lazy: the window's entries are read while the store is open (plan, summary), a slice at a time
            target = workbench.open_for_plan(store, session, settings, counter, rules, hold=hold_until_exit, lazy=True)
            the_plan = target.plan(settings)
            outcome = workbench.propose(store, target, the_plan, settings, started=started)
        if outcome is None or isinstance(outcome, workbench.Refusal):
            raise (outcome or workbench.Refusal("the compaction was cancelled; no proposal stored")).error()
        proposal = workbench.store_proposal(store, outcome, the_plan, target.session)
        if as_json:
            say_json(proposal.model_dump_json(indent=2))
            return
        back = target.write_back(store, hold=hold_until_exit)
    say(
        f"proposal {proposal.id}  session {proposal.session_id}  mode {proposal.mode}  rules {the_plan.rules or 'none'}  "
        f"summarizer {proposal.summarizer}"
    )
    say(
        f"tokens {proposal.tokensBefore:,} -> {proposal.tokensAfter:,} ({proposal.counter}); "
        f"summarized {proposal.summarizedCount} messages, first kept entry {proposal.firstKeptEntryId or '-'}"
    )
    say(f"validation: {proposal.validation.summary()}")
    if back.possible:
        say(f"write-back: possible with `accept --write-back` ({back.style}): {back.reason}")
    else:
        say(f"write-back: not possible ({back.reason}); `accept` without --write-back records the decision only")
    if proposal.quality is not None:
        say(f"quality guard: {proposal.quality.summary()}{' (strict)' if proposal.quality.strict else ''}")
    for note in proposal.notes:
        say(f"note: {note}")
    say("")
    say(proposal.summary)


@click.command("accept")
@click.argument("proposal")
@click.option(
    "--write-back", is_flag=True, help="Write the compaction into the agent's session file (see `write-back-plan`)."
)
@click.option("--note", default=None, help="A note kept with the decision.")
@click.option(
    "--anyway",
    is_flag=True,
    help="Write back even when the summary contradicts facts or fails the quality guard (they are still shown).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the decision as JSON.")
@DB
def accept_cmd(
    proposal: str, write_back: bool, note: str | None, anyway: bool, as_json: bool, db_path: str | None
) -> None:
    """Accept PROPOSAL's latest summary version (refused if invalid or already decided).

    Without --write-back the decision is only recorded in the store; a proposal accepted
    so is written back later by accepting it again with --write-back. Before anything is
    written, the facts the summary contradicts or loses and a failed quality guard are
    shown (on stderr); with --write-back, a contradiction or a failed guard asks first
    (refused when no one can answer, unless --anyway).
    PROPOSAL may also be an inbox item (`cutline inbox`): the waiting agent gets the summary.
    """
    from cutline.app.commands.inbox import answer_inbox
    from cutline.core import workbench

    if answer_inbox(proposal, "accept", note, db_path):
        return

    with open_store(db_path, recover=True) as store:
        _before_accept(store, proposal, write_back, anyway)
        decision = workbench.accept(store, proposal, write_back=write_back, note=note)
    if as_json:
        say_json(decision.model_dump_json(indent=2))
        return
    where = f"; compaction entry {decision.entry_id} written to {decision.written_to}" if decision.written_to else ""
    say(f"accepted {decision.proposal_id} (summary version {decision.version}){where}")
    for line in decision.notes:
        say(f"note: {line}")


def _before_accept(store: Store, ref: str, write_back: bool, anyway: bool) -> None:
    """Show what the summary contradicts or loses and a failed guard; ask (or refuse) before a write-back they block."""
    import sys

    from cutline.app.commands.audit import findings_for, guard_for
    from cutline.core.audit.before_accept import Findings
    from cutline.core.review import load_proposal

    proposal = load_proposal(store, ref)
    try:
        found = findings_for(store, proposal.id)
    except CutlineError as exc:
        say(f"before accepting {proposal.id}: no audit ({exc})", err=True)
        found = Findings(guard=guard_for(store, proposal.id))  # the guard needs no audit: still said
    lines = found.lines(proposal.id)
    if not lines:
        return
    say(f"before accepting {proposal.id}:", err=True)
    for line in lines:
        say(f"  {line}", err=True)
    if not (write_back and found.blocking) or anyway:
        return
    if sys.stdin.isatty() and click.confirm("Write it back anyway?", default=False, err=True):
        return
    raise CutlineError(
        f"{proposal.id} not accepted: the summary contradicts facts or fails the quality guard; "
        "edit it, or accept with --anyway"
    )


@click.command("write-back-plan")
@click.argument("proposal")
@DB
def write_back_plan_cmd(proposal: str, db_path: str | None) -> None:
    """Say whether PROPOSAL's session can be written back, how, and why not (nothing is written)."""
    from cutline.core import workbench

    with open_store(db_path, recover=True) as store:
        plan = workbench.write_back_of(store, proposal)
    if plan.possible:
        say(f"write-back possible ({plan.style}): {plan.reason}")
    else:
        say(f"no write-back: {plan.reason}; `cutline accept {proposal}` without --write-back records the decision only")


@click.command("undo")
@click.argument("proposal")
@click.option("--branch", is_flag=True, help="If the agent wrote since: continue from before the compaction (pi).")
@click.option(
    "--from-backup", is_flag=True, help="Restore the backup made before the write-back (a copy of now is kept)."
)
@DB
def undo_cmd(proposal: str, branch: bool, from_backup: bool, db_path: str | None) -> None:
    """Take back PROPOSAL's write-back: the session file exactly as before it (the proposal is open again)."""
    from cutline.core import workbench

    with open_store(db_path, recover=True) as store:
        result = workbench.undo(store, proposal, from_backup=from_backup, branch=branch)
    say(result.message)


@click.command("reject")
@click.argument("proposal")
@click.option("--note", default=None, help="Why (kept with the decision).")
@DB
def reject_cmd(proposal: str, note: str | None, db_path: str | None) -> None:
    """Reject PROPOSAL (or an inbox item: the waiting agent cancels its compaction)."""
    from cutline.app.commands.inbox import answer_inbox
    from cutline.core import workbench

    if answer_inbox(proposal, "reject", note, db_path):
        return

    with open_store(db_path, recover=True) as store:
        decision = workbench.reject(store, proposal, note=note)
    say(f"rejected {decision.proposal_id}")


@click.command("proposals")
@click.argument("session")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@DB
def proposals_cmd(session: str, as_json: bool, db_path: str | None) -> None:
    """List SESSION's proposals, newest first."""
    from cutline.core.review import list_proposals

    with open_store(db_path, recover=True) as store:
        rows = list_proposals(store, session_id_for(store, session))
    if as_json:
        say_json(indented_json([r.model_dump() for r in rows]))
        return
    if not rows:
        say("no proposals")
        return
    for r in rows:
        say(
            f"{r.id}  {r.status:<8}  {r.mode or '-':<18}  {r.summarizer or '-':<10}  "
            f"{_tokens(r.tokens_before)}->{_tokens(r.tokens_after)}  {'valid' if r.valid else 'INVALID'}  v{r.versions}  {r.created_at}"
        )


def _tokens(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


COMMANDS = [compact_cmd, accept_cmd, write_back_plan_cmd, undo_cmd, reject_cmd, proposals_cmd]
