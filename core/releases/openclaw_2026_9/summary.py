"""OpenClaw 2026.9's summary flow: its safeguard summary (`safeguard`), the context rebuilt as pi's."""

from __future__ import annotations

from cutline.core.engine.context import entry_message
from cutline.core.engine.modes.base import CompactionJob, Rebuilt
from cutline.core.engine.modes.pi import PiMode, rebuilt_context
from cutline.core.engine.rule_summaries import model_max_output_tokens
from cutline.core.engine.sections import collect_tool_failures, format_file_operations, format_tool_failures
from cutline.core.engine.summary_run import SummaryRun
from cutline.core.releases.openclaw_2026_9.safeguard import (
    SAFEGUARD_PROMPT,
    agents_md_rules,
    latest_unresolved_request,
    openclaw_summary,
)


async def summarize(mode: PiMode, job: CompactionJob, run: SummaryRun) -> Rebuilt:
    """OpenClaw 2026.9's safeguard summary (`safeguard`); the mode's own hooks are not used, the context rebuilt as pi's."""
    settings = job.settings
    # its flow splits off the recent turns and reads the span back and forth: read once, held as a list
    summarized = list(job.summarized)
    kept = [m for m in (entry_message(job.path[i]) for i in job.plan.kept_indices()) if m is not None]
    latest = getattr(job.plan, "latestUnresolvedUserRequest", None) or latest_unresolved_request(
        summarized + job.prefix + kept
    )
    cut_away = summarized + job.prefix
    failures = collect_tool_failures(cut_away)
    appendix = (
        format_tool_failures(failures)
        + format_file_operations(job.read_files, job.modified_files)
        + agents_md_rules(job.cwd, settings.postCompactionSections)
    )
    result = await openclaw_summary(
        run,
        settings,
        summarized=summarized,
        prefix=job.prefix,
        previous=job.plan.previousSummary,
        split_turn=job.plan.isSplitTurn,
        latest_request=latest,
        appendix=appendix,
        model_max=model_max_output_tokens(run.summarizer.model),
    )
    context, ids = rebuilt_context(job, result.summary, latest)
    return Rebuilt(
        summary=result.summary,
        context=context,
        context_entry_ids=ids,
        first_kept_entry_id=job.plan.firstKeptEntryId,
        summarized_count=len(cut_away),
        kept_count=job.plan.keptMessages,
        tool_failures=failures,
        quality=result.verdict,
        latest_request=result.latest_request,
        prompt_name=SAFEGUARD_PROMPT,
    )
