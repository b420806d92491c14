"""The `pi` mode: pi's compact(), history and a split turn's prefix summarized concurrently, merged after `---`.

The cut comes from the planner rule set it is given (`core.engine.rules`); the
summary gets pi's last-turn, tool-failure and file-operation sections, and the
context is rebuilt as pi's buildSessionContext would with the new compaction entry.
`safeguard` builds on this mode and overrides its hooks.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

from cutline.core import agent_releases
from cutline.core.agents.path_window import PathWindow
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan
from cutline.core.engine.context import build_context, context_indices
from cutline.core.engine.last_turn import last_turn_section
from cutline.core.engine.modes.base import PI_FAMILY, CompactionJob, Rebuilt, failed_results
from cutline.core.engine.path_index import PathIndex
from cutline.core.engine.rules.base import PlannerRules, PlanRequest
from cutline.core.engine.sections import collect_tool_failures, format_file_operations, format_tool_failures
from cutline.core.errors import SummarizerError
from cutline.core.models import CompactionRecord, Entry, Message

if TYPE_CHECKING:  # the summarizing side: imported by a run (below), not by a plan or a timeline
    from cutline.core.engine.summary_run import SummaryRun, SummaryStyle

TURN_CONTEXT_SEPARATOR = "\n\n---\n\n**Turn Context (split turn):**\n\n"


async def _constant(text: str) -> str:
    return text


def rebuilt_context(
    job: CompactionJob, summary: str, latest_request: str | None = None
) -> tuple[list[Message], list[str | None]]:
    """The context pi builds once the compaction entry holding `summary` is appended, with each message's entry id."""
    path = job.path
    details: dict[str, Any] = {"readFiles": job.read_files, "modifiedFiles": job.modified_files}
    if latest_request:
        details["latestUnresolvedUserRequest"] = latest_request
    record = CompactionRecord(
        summary=summary,
        firstKeptEntryId=job.plan.firstKeptEntryId,
        tokensBefore=job.plan.tokensBefore,
        details=details,
    )
    pending = Entry(id="(proposed)", parentId=path[-1].id if path else None, type="compaction", compaction=record)
    extended = [*_context_part(path, job.plan.firstKeptEntryId), pending]
    ids: list[str | None] = [None if i == len(extended) - 1 else extended[i].id for i in context_indices(extended)]
    return build_context(extended), ids


def _context_part(path: Sequence[Entry], first_kept: str | None) -> Sequence[Entry]:
    """The part of the path a new compaction's context is built from: all of it, or a window's entries from the first kept one.

    A `PathWindow` (no context_edit on its path, so each entry's weight is its own) gives
    its entries from the first kept one on, read and not kept: the context after the new
    compaction is its summary and those entries, so the ones before change nothing (a
    window of an uncompacted path held every one of its 100,000 entries here). No first
    kept entry, or one not on the path: the new compaction keeps nothing before it.
    The whole path when the first kept entry lies before the window.
    """
    if not isinstance(path, PathWindow):
        return path
    if first_kept is None:
        return []
    try:
        at = path.ids.index(first_kept)
    except ValueError:
        return []
    if at < path.start:
        return path
    return path.read_unkept(list(range(at, len(path))))


class PiMode:
    """pi's compaction: pi's reserve and trigger, the rule set's cut, pi's two summaries."""

    @property
    def name(self) -> str:
        return "pi"

    @property
    def plan_family(self) -> str:
        return PI_FAMILY

    def reserve_tokens(self, settings: CompactionSettings) -> int:
        """pi's own reserve (no floor)."""
        return settings.reserveTokens

    def trigger_threshold(self, settings: CompactionSettings, window: int, reserve: int) -> int:
        """pi compacts above window − reserve."""
        return window - reserve

    def plan(
        self, index: PathIndex, settings: CompactionSettings, rules: PlannerRules, *, entry_tokens: bool
    ) -> CompactionPlan:
        """The rule set plans; this mode adds nothing."""
        request = PlanRequest(
            index=index,
            settings=settings,
            mode=self.name,
            reserve=self.reserve_tokens(settings),
            entry_tokens=entry_tokens,
        )
        return rules.plan(request)

    def summary_style(self, settings: CompactionSettings) -> SummaryStyle:
        """The prompt and serialization the settings name."""
        from cutline.core.engine.summary_run import settings_style

        return settings_style(settings)

    async def rebuild(self, job: CompactionJob, run: SummaryRun) -> Rebuilt:
        """Summarize as the rule set's agent release does (its folder's `SUMMARY` flow), rebuild the context.

        pi 0.73.1's flow is the engine's own (`engine_summary`); current pi calls in
        sequence, OpenClaw 2026.9 writes its safeguard summary (core/releases/<release>/).
        """
        from cutline.core.engine.rule_summaries import summary_rules  # the summarizing side: a run's, not a plan's

        return await summary_flow(summary_rules(job.plan, job.settings))(self, job, run)

    def finish(self, job: CompactionJob, body: str) -> Rebuilt:
        """pi's sections after a summary body (last turn, tool failures, file operations) and the context rebuilt."""
        cut_away = job.cut_away
        last_turn = (
            last_turn_section(cut_away, job.settings.lastTurnMaxTokens) if job.settings.lastTurnInjection else ""
        )
        if last_turn:
            body = f"{body}\n\n{last_turn}"
        failures = collect_tool_failures(failed_results(job))
        body += format_tool_failures(failures) + format_file_operations(job.read_files, job.modified_files)
        context, ids = rebuilt_context(job, body)
        return Rebuilt(
            summary=body,
            context=context,
            context_entry_ids=ids,
            first_kept_entry_id=job.plan.firstKeptEntryId,
            summarized_count=len(cut_away),
            kept_count=job.plan.keptMessages,
            last_turn=last_turn,
            tool_failures=failures,
        )

    async def prepare_history(self, job: CompactionJob, run: SummaryRun) -> tuple[Sequence[Message], str | None]:
        """The history to summarize and the summary it updates: as planned, for pi."""
        return job.summarized, job.plan.previousSummary

    async def summarize_history(
        self, job: CompactionJob, run: SummaryRun, history: Sequence[Message], previous: str | None
    ) -> str:
        """One pass, or OpenClaw's stages when the history is too big for one."""
        from cutline.core.engine.summary_run import NO_PRIOR_HISTORY

        run.emit("history")
        custom = job.settings.customInstructions
        if run.needs_stages(history):
            return await run.staged("history", history, previous, custom)
        if not history:
            return previous or NO_PRIOR_HISTORY
        return await run.with_fallback("history", history, previous, custom, run.max_chunk(history))

    async def summarize_prefix(self, run: SummaryRun, prefix: list[Message]) -> str:
        """pi's turn-prefix request; a failure leaves a note in the summary's place."""
        run.emit("turn_prefix")
        try:
            return await run.call("turn_prefix", run.turn_prefix_request(prefix))
        except SummarizerError as exc:
            run.note(f"turn_prefix: summarization failed: {exc}")
            run.degrade("annotation")
            return f"Context contained {len(prefix)} messages (0 oversized). Summary unavailable due to size limits."


async def engine_summary(mode: PiMode, job: CompactionJob, run: SummaryRun) -> Rebuilt:
    """The engine's own summary flow, pi 0.73.1's: history and a split turn's prefix summarized concurrently."""
    import asyncio

    from cutline.core.engine.summary_run import NO_PRIOR_HISTORY

    history, previous = await mode.prepare_history(job, run)
    if job.plan.isSplitTurn and job.prefix:
        history_text, prefix_text = await asyncio.gather(
            mode.summarize_history(job, run, history, previous) if job.summarized else _constant(NO_PRIOR_HISTORY),
            mode.summarize_prefix(run, job.prefix),
        )
        if not run.reads_text and job.summarized:  # offline: the history part names the turn under way
            # the offline summarizer's: imported when it runs, not by every plan
            from cutline.core.summarizers.extractive import name_turn_under_way

            history_text = name_turn_under_way(history_text, run.prompt_name, job.prefix)
        body = f"{history_text}{TURN_CONTEXT_SEPARATOR}{prefix_text}"
    else:
        body = await mode.summarize_history(job, run, history, previous)
    return mode.finish(job, body)


class SummaryFlow(Protocol):
    """An agent release's summary flow: the summary a mode of pi's family writes, and the context rebuilt."""

    def __call__(self, mode: PiMode, job: CompactionJob, run: SummaryRun) -> Awaitable[Rebuilt]: ...


def summary_flow(rules: str) -> SummaryFlow:
    """The summary flow of the release whose rule set is `rules` (its folder's `SUMMARY`)."""
    return cast(SummaryFlow, agent_releases.load(rules).SUMMARY)


PI = PiMode()
