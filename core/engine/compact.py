"""The compaction engine: from a plan and a summarizer to a Proposal a person reviews.

`compact()` checks the plan, runs the hooks, and hands the summarizing and the
rebuild of the context to the settings' mode (`core.engine.modes`): pi's compact()
(history and split-turn prefix summarized concurrently and merged after `---`),
OpenClaw's safeguard (pruning by maxHistoryShare, staged summarization with the
fallback chain, tool failures) and the two other designs in the seeds
(first-and-tail, system-and-summary). Independent summarization calls run
concurrently; cancel the awaiting task to stop them all.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Sequence

from cutline.core.agents.light import LightEntry, LightMessage
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan
from cutline.core.engine.context import entry_message, sum_context_tokens
from cutline.core.engine.modes import PI_FAMILY, CompactionJob, CompactionMode, Rebuilt, get_mode, same_plans
from cutline.core.engine.modes.first_and_tail import ACKNOWLEDGEMENT, SUMMARY_CLOSE, SUMMARY_OPEN
from cutline.core.engine.modes.pi import TURN_CONTEXT_SEPARATOR
from cutline.core.engine.modes.safeguard import TURN_PREFIX_INSTRUCTIONS
from cutline.core.engine.modes.system_and_summary import LAST_REQUEST_PREFIX
from cutline.core.engine.proposal import (
    InjectedBlocks,
    Proposal,
    ProposalDetails,
    ToolFailure,
    new_proposal_id,
    summary_message,
    validate_proposal,
)
from cutline.core.engine.recovery import (
    build_memory_flush_turn,
    build_post_compaction_turn,
    should_run_post_compaction,
)
from cutline.core.engine.rule_summaries import guard_inputs, judge, summary_rules
from cutline.core.engine.sections import (
    MAX_TOOL_FAILURE_CHARS,
    MAX_TOOL_FAILURES,
    collect_tool_failures,
    format_file_operations,
    format_tool_failures,
    is_failed_result,
)
from cutline.core.engine.span import MessageSpan
from cutline.core.engine.summary_run import NO_PRIOR_HISTORY, Progress, ProgressEvent, SummaryRun
from cutline.core.errors import CutlineError
from cutline.core.hooks import AfterCompactionEvent, BeforeCompactionEvent, HookOutcome, HooksConfig, run_hooks
from cutline.core.models import Entry, Message, Session
from cutline.core.summarizers.base import Summarizer
from cutline.core.summarizers.prompts import prompt_for_agent

__all__ = [
    "ACKNOWLEDGEMENT",
    "LAST_REQUEST_PREFIX",
    "MAX_TOOL_FAILURES",
    "MAX_TOOL_FAILURE_CHARS",
    "NO_PRIOR_HISTORY",
    "SUMMARY_CLOSE",
    "SUMMARY_OPEN",
    "TURN_CONTEXT_SEPARATOR",
    "TURN_PREFIX_INSTRUCTIONS",
    "InjectedBlocks",
    "Progress",
    "ProgressEvent",
    "Proposal",
    "ProposalDetails",
    "SummaryRun",
    "ToolFailure",
    "collect_tool_failures",
    "compact",
    "format_file_operations",
    "format_tool_failures",
    "new_proposal_id",
    "summary_message",
    "validate_proposal",
]


def _summarizable(entry: Entry) -> Message | None:
    """The message an entry contributes to a summary (a compaction's own summary is not re-summarized)."""
    if entry.type == "compaction" or entry.isSidechain or entry.isCompactSummary:
        return None
    return entry_message(entry)


def _light_summarizable(entry: LightEntry) -> LightMessage | None:
    """`_summarizable` of a light entry (always a message line): its message, unless a sidechain or compact summary."""
    if entry.isSidechain or entry.isCompactSummary:
        return None
    return entry.message


def _messages_at(path: Sequence[Entry], indices: list[int]) -> list[Message]:
    return [m for m in (_summarizable(path[i]) for i in indices if 0 <= i < len(path)) if m is not None]


def _count_tokens(messages: list[Message], counter: str, notes: list[str]) -> tuple[int, str]:
    try:
        return sum_context_tokens(messages, counter), counter
    except CutlineError as exc:
        notes.append(f"tokensAfter counted with chars4: the {counter} counter is not available here ({exc})")
        return sum_context_tokens(messages, "chars4"), "chars4"


def _keep_hint(plan: CompactionPlan, path: Sequence[Entry], settings: CompactionSettings) -> str:
    """The keepRecentTokens that would summarize something, as a hint for the refusal ("" when none would)."""
    from cutline.core.engine.keep_suggestion import keep_recent_that_summarizes
    from cutline.core.engine.path_index import index_path

    tokens = plan.entryTokens if len(plan.entryTokens) == len(path) else None
    try:
        index = index_path(list(path), tokens, plan.counter)
        keep = keep_recent_that_summarizes(
            index, settings.model_copy(update={"keepRecentTokens": plan.keepRecentTokens}), plan.rules
        )
    except CutlineError:
        return ""
    if keep is None:
        return (
            f" (its recent tail alone is over keepRecentTokens {plan.keepRecentTokens:,})"
            if plan.tokensBefore > plan.threshold
            else ""
        )
    return f"; keepRecentTokens {keep:,} would leave history to summarize (--keep-recent-tokens {keep})"


def checked_mode(plan: CompactionPlan, path: Sequence[Entry], settings: CompactionSettings) -> CompactionMode:
    """The settings' mode, once the plan is known to be one it can carry out on this path."""
    if plan.alreadyCompacted:
        raise CutlineError("the session already ends with a compaction: nothing to compact")
    if plan.nothingToCompact:
        raise CutlineError("the plan has nothing to summarize" + _keep_hint(plan, path, settings))
    if plan.pathLength != len(path):
        raise CutlineError("the plan was made for another version of this session's path; plan again")
    mode = get_mode(settings.mode)
    if not same_plans(plan.mode, mode.name):
        raise CutlineError(f"the plan was made for mode {plan.mode}, the settings ask for {mode.name}; plan again")
    return mode


def _new_proposal(
    plan: CompactionPlan, session: Session, job: CompactionJob, run: SummaryRun, summarizer: Summarizer
) -> Proposal:
    """The proposal before summarizing: what the plan says, the summarizer, the settings used."""
    path = job.path
    proposal = Proposal(
        id=new_proposal_id(),
        session_id=session.id,
        created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        mode=job.settings.mode,
        summary="",
        tokensBefore=plan.tokensBefore,
        counter=plan.counter,
        firstKeptEntryId=plan.firstKeptEntryId,
        parentEntryId=path[-1].id if path else None,
        summarizedCount=len(job.summarized) + len(job.prefix),
        keptCount=plan.keptMessages,
        previousSummary=plan.previousSummary,
        summarizer=summarizer.name,
        model=summarizer.model,
        prompt_name=run.prompt_name,
        settings=job.settings.model_dump(mode="json"),
    )
    proposal.details.readFiles = list(job.read_files)
    proposal.details.modifiedFiles = list(job.modified_files)
    return proposal


def in_agent_shape(settings: CompactionSettings, session_format: str | None) -> CompactionSettings:
    """The settings with the session's own agent's summary shape, unless a prompt was chosen (config, flag, panel)."""
    if "promptName" in settings.model_fields_set:
        return settings
    own = prompt_for_agent(session_format)
    return settings if own == settings.promptName else settings.with_overrides(promptName=own)


def _apply(proposal: Proposal, rebuilt: Rebuilt) -> None:
    """Take the mode's summary, wrapping and context into the proposal."""
    proposal.summary = rebuilt.summary
    proposal.context = rebuilt.context
    proposal.context_entry_ids = rebuilt.context_entry_ids
    proposal.firstKeptEntryId = rebuilt.first_kept_entry_id
    proposal.summarizedCount = rebuilt.summarized_count
    proposal.keptCount = rebuilt.kept_count
    proposal.summary_index = rebuilt.summary_index
    proposal.summary_role = rebuilt.summary_role
    proposal.entry_prefix = rebuilt.entry_prefix
    proposal.entry_suffix = rebuilt.entry_suffix
    proposal.injected.last_turn = rebuilt.last_turn
    proposal.details.toolFailures = rebuilt.tool_failures
    proposal.quality = rebuilt.quality
    proposal.details.latestUnresolvedUserRequest = rebuilt.latest_request
    if rebuilt.prompt_name:
        proposal.prompt_name = rebuilt.prompt_name


def _judge(proposal: Proposal, job: CompactionJob) -> None:
    """The rule set the plan and summary followed (none for a mode that uses none) and the quality guard's verdict.

    A mode outside pi's family (first-and-tail, system-and-summary) plans without a rule
    set: the proposal says none, as its plan does, though its summary is written the
    engine's own way (pi 0.73.1's flow).
    """
    rules = summary_rules(job.plan, job.settings)
    proposal.rules = rules if get_mode(job.plan.mode).plan_family == PI_FAMILY else None
    if proposal.quality is None:
        inputs = guard_inputs(rules, job.cut_away, job.settings)
        proposal.quality = judge(proposal.summary, inputs, job.settings)


def utc_today() -> dt.date:
    """The date the injected turns carry when the caller names none (OpenClaw fills `YYYY-MM-DD` with it)."""
    return dt.datetime.now(dt.UTC).date()


def _inject_turns(proposal: Proposal, settings: CompactionSettings, today: dt.date) -> None:
    """The memory-flush and post-compaction recovery turns the settings ask for."""
    if settings.memoryFlush.enabled:
        proposal.injected.memory_flush = build_memory_flush_turn(settings.memoryFlush, today)
    if should_run_post_compaction(settings.postCompaction, compacted=True):
        proposal.injected.recovery_turn = build_post_compaction_turn(settings.postCompaction, today).text()


async def compact(
    plan: CompactionPlan,
    session: Session,
    summarizer: Summarizer,
    settings: CompactionSettings,
    *,
    progress: Progress | None = None,
    hooks: HooksConfig | None = None,
    today: dt.date | None = None,
    path: Sequence[Entry] | None = None,
) -> Proposal:
    """Summarize what `plan` (a core.engine.plan.CompactionPlan of `session`'s active path) cuts away and build the Proposal.

    Raises CutlineError when the plan has nothing to compact. `progress` receives
    ProgressEvents; `hooks` run before and after (failures become notes). `path` is the
    session's active path when the caller holds it otherwise (a `PathWindow` of a stored
    session, whose `session` then has no entries).
    """
    path = path if path is not None else session.active_path()
    settings = in_agent_shape(settings, session.format)
    mode = checked_mode(plan, path, settings)
    today = today or utc_today()
    started = time.perf_counter()
    run = SummaryRun(summarizer, settings, progress, plan.contextWindow, mode.summary_style(settings))
    summarize, prefix = plan.summarize_indices(), plan.turn_prefix_indices()
    job = CompactionJob(
        plan=plan,
        path=path,
        settings=settings,
        summarized=MessageSpan(path, summarize, _summarizable, remember=is_failed_result, light=_light_summarizable),
        prefix=_messages_at(path, prefix),
        read_files=list(plan.readOnlyFiles),
        modified_files=list(plan.modifiedFiles),
        cwd=session.cwd,
        cut_away_span=MessageSpan(path, [*summarize, *prefix], _summarizable),
    )
    outcomes: list[HookOutcome] = []

    run.emit("before_compaction")
    before = BeforeCompactionEvent(messageCount=len(job.summarized) + len(job.prefix), tokenCount=plan.tokensBefore)
    outcomes += await run_hooks("before_compaction", before, hooks)

    proposal = _new_proposal(plan, session, job, run, summarizer)
    _apply(proposal, await mode.rebuild(job, run))
    _judge(proposal, job)
    _inject_turns(proposal, settings, today)
    proposal.tokensAfter, proposal.counter = _count_tokens(proposal.context, plan.counter, run.notes)
    proposal.validation = validate_proposal(proposal)

    run.emit("after_compaction")
    after = AfterCompactionEvent(
        messageCount=len(proposal.context), tokenCount=proposal.tokensAfter, compactedCount=proposal.summarizedCount
    )
    outcomes += await run_hooks("after_compaction", after, hooks)
    run.notes.extend(o.note() for o in outcomes if not o.ok)
    proposal.notes = run.notes
    proposal.degraded = run.degraded
    proposal.timings = {**run.timings, "total": time.perf_counter() - started}
    run.emit("done")
    return proposal
