"""The review screen's messages: what its workers post, each typed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from cutline.app.screens.versions import Version
from cutline.core import workbench
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan
from cutline.core.engine.path_index import PathIndex
from cutline.core.engine.proposal import Proposal
from cutline.core.workbench.entries import StoredEntries
from cutline.core.workbench.opening import Opened

if TYPE_CHECKING:
    pass


class Planned(Message):
    """A plan made in a worker: for request `asked` (the screen draws it only if no newer one was asked for since).

    `error` is why no plan could be made (`plan` is None then). `settings` and `rules` are what it was made with;
    `cost` is what making it took (CPU seconds of the thread that made it: another thread's share not counted).
    """

    def __init__(
        self,
        asked: int,
        plan: CompactionPlan | None,
        settings: CompactionSettings,
        rules: str | None,
        error: str = "",
        cost: float | None = None,
    ) -> None:
        self.asked = asked
        self.plan = plan
        self.settings = settings
        self.rules = rules
        self.error = error
        self.cost = cost
        self.index: PathIndex | None = None  # the index it was made on (for what its cost tells of the next plan)
        super().__init__()


class Loaded(Message):
    """The session opened (in the load worker), with its plan under the settings the screen will show, made there too."""

    def __init__(self, result: Opened, planned: Planned | None = None) -> None:
        self.result = result
        self.planned = planned
        super().__init__()


class Preview(Message):
    """A long path's rows, read from the store, to show while the session itself is rebuilt."""

    def __init__(self, entries: StoredEntries, tokens: list[int]) -> None:
        self.entries = entries
        self.tokens = tokens
        super().__init__()


class LoadProgress(Message):
    def __init__(self, step: int, text: str, big: bool) -> None:
        self.step = step
        self.text = text
        self.big = big  # worth a progress bar (a small session loads before it would be seen)
        super().__init__()


class SourceChanged(Message):
    """The session's file grew (or changed) on disk: the agent is still writing it."""


class CountsReady(Message):
    def __init__(self, counter: str, tokens: list[int], index: PathIndex) -> None:
        self.counter = counter
        self.tokens = tokens
        self.index = index
        super().__init__()


class EntryCounts(Message):
    def __init__(self, index: int, counts: dict[str, int | None]) -> None:
        self.index = index
        self.counts = counts
        super().__init__()


class RunProgress(Message):
    def __init__(self, stage: str, part: int | None, parts: int | None, detail: str) -> None:
        self.stage = stage
        self.part = part
        self.parts = parts
        self.detail = detail
        super().__init__()


class ContextReady(Message):
    """The agent's next context as text: now, and after the open proposal is written back (or why not)."""

    def __init__(self, now: str, after: str | None, after_note: str) -> None:
        super().__init__()
        self.now = now
        self.after = after
        self.after_note = after_note


class ProposalComputed(Message):
    def __init__(self, run: int, proposal: Proposal) -> None:
        self.run = run
        self.proposal = proposal
        super().__init__()


class RunRefused(Message):
    """The run made no proposal worth storing (or could not start): why, in one line."""

    def __init__(self, run: int, reason: str) -> None:
        self.run = run
        self.reason = reason
        super().__init__()


class AcceptPrepared(Message):
    """What accepting would write, read off the UI thread, for the accept dialog."""

    def __init__(self, preview: workbench.AcceptPreview, store_only: bool) -> None:
        self.preview = preview
        self.store_only = store_only
        super().__init__()


class ProposalStored(Message):
    def __init__(self, proposal: Proposal, versions: list[Version]) -> None:
        self.proposal = proposal
        self.versions = versions
        super().__init__()


class VersionSaved(Message):
    def __init__(self, version: Version) -> None:
        self.version = version
        super().__init__()


class WriteLaterPrepared(Message):
    """What writing back a proposal accepted into the store only would write; or where it is written already."""

    def __init__(self, preview: workbench.AcceptPreview | None, written_to: str | None = None) -> None:
        self.preview = preview
        self.written_to = written_to
        super().__init__()


class Decided(Message):
    """A decision recorded: what it wrote, and what a person should know (the backup's path, a drift)."""

    def __init__(self, decision: str, detail: str, notes: list[str] | None = None) -> None:
        self.decision = decision
        self.detail = detail
        self.notes = notes or []
        super().__init__()
