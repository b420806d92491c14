"""What a compaction mode is: how it plans a path and how it rebuilds the context around a summary."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan
from cutline.core.engine.path_index import PathIndex
from cutline.core.engine.rules.base import PlannerRules
from cutline.core.engine.span import MessageSpan
from cutline.core.models import Entry, Message

if TYPE_CHECKING:  # the summarizing side: imported by a run, not by a plan or a timeline
    from cutline.core.engine.proposal import ToolFailure
    from cutline.core.engine.quality_guard import QualityVerdict
    from cutline.core.engine.summary_run import SummaryRun, SummaryStyle

PI_FAMILY = "pi"


@dataclass(frozen=True)
class CompactionJob:
    """What a mode rebuilds from: the plan, the path it was made for, and the messages it cuts away."""

    plan: CompactionPlan
    path: Sequence[Entry]  # the active path: a list, or a PathWindow of a stored session
    settings: CompactionSettings
    # the summarized messages: a `MessageSpan` (read a slice at a time, each walk reads again) or a list
    summarized: Sequence[Message]
    prefix: list[Message]
    read_files: list[str]
    modified_files: list[str]
    # the session's working directory (OpenClaw reads the workspace's AGENTS.md from there)
    cwd: str | None = None
    # what the compaction cuts away: the summarized messages, then the split turn's prefix (empty: those two joined)
    cut_away_span: Sequence[Message] | None = None

    @property
    def cut_away(self) -> Sequence[Message]:
        """The summarized messages followed by the prefix's."""
        if self.cut_away_span is not None:
            return self.cut_away_span
        return [*self.summarized, *self.prefix]


def failed_results(job: CompactionJob) -> Sequence[Message]:
    """The cut-away messages `collect_tool_failures` reads, or all of them: a span's errored tool results are
    those its walks remembered (`MessageSpan.remembered`), so the failures section does not read the span again."""
    summarized = job.summarized
    if isinstance(summarized, MessageSpan) and summarized.remembers:
        return [*summarized.remembered(), *job.prefix]
    return job.cut_away


@dataclass
class Rebuilt:
    """A mode's answer: the summary, how the compaction entry wraps it, and the context the agent would see."""

    summary: str
    context: list[Message]
    context_entry_ids: list[str | None]
    first_kept_entry_id: str | None
    summarized_count: int
    kept_count: int
    summary_index: int = 0
    summary_role: Literal["compactionSummary", "user"] = "compactionSummary"
    entry_prefix: str = ""
    entry_suffix: str = ""
    last_turn: str = ""
    tool_failures: list[ToolFailure] = field(default_factory=list)
    # set by summary flows that judge their own summary (OpenClaw 2026.9) or name their prompt
    quality: QualityVerdict | None = None
    latest_request: str | None = None
    prompt_name: str | None = None


class CompactionMode(Protocol):
    """A compaction mode: its name, its reserve and trigger, its planning and its rebuild of the context.

    `plan_family` names the planner a mode shares: plans of one family are
    interchangeable (pi and safeguard cut alike), and a family of `PI_FAMILY` keeps
    the recent part of the path from a cut, as pi does.
    """

    @property
    def name(self) -> str: ...

    @property
    def plan_family(self) -> str: ...

    def reserve_tokens(self, settings: CompactionSettings) -> int:
        """The reserve the mode keeps free below the window."""
        ...

    def trigger_threshold(self, settings: CompactionSettings, window: int, reserve: int) -> int:
        """The context size above which the mode compacts."""
        ...

    def plan(
        self, index: PathIndex, settings: CompactionSettings, rules: PlannerRules, *, entry_tokens: bool
    ) -> CompactionPlan:
        """Plan a compaction of the indexed path (`rules` decides the cut for modes that cut as pi does)."""
        ...

    def summary_style(self, settings: CompactionSettings) -> SummaryStyle:
        """The prompt and serialization the mode's summarization requests use."""
        ...

    async def rebuild(self, job: CompactionJob, run: SummaryRun) -> Rebuilt:
        """Summarize what the plan cuts away through `run` and rebuild the context around the summary."""
        ...
