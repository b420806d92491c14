"""Propose a compaction: the summarizer and its model, the key checks, the hooks, the deadline, the window, the refusals.

Why one place: `cutline compact` and the desk's run each assembled these and drifted
(the desk summarized with the default model where the CLI used the session's own,
and stored proposals the CLI refused). The desk and the CLI now make the same call and
get the same answer: a `Proposal` to store, or a `Refusal` to show (the CLI raises it).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import threading
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compaction_plan import CompactionPlan
from cutline.core.engine.proposal import Proposal
from cutline.core.errors import CutlineError
from cutline.core.models import Entry, Session

if TYPE_CHECKING:
    from cutline.core.engine.summary_run import Progress
    from cutline.core.store import Store
    from cutline.core.workbench.opened import OpenedSession

T = TypeVar("T")


@dataclass(frozen=True)
class Refusal:
    """Why no proposal is stored: one line for the person (the CLI raises it, the desk shows it)."""

    reason: str

    def error(self) -> CutlineError:
        return CutlineError(self.reason)


def checked_settings(
    settings: CompactionSettings, path: Sequence[Entry], environ: Mapping[str, str] | None = None
) -> CompactionSettings | Refusal:
    """The settings a run summarizes with (the session's own model when none is set), or why it cannot run.

    Checked up front: a bad prompt name would fail only once the plan has something to
    summarize, and a summarizer without its key would leave only "Summary unavailable".
    """
    from cutline.core.summarizers.prompts import build_prompt_text
    from cutline.core.summarizers.session_model import default_summarizer_model

    env = os.environ if environ is None else environ
    try:
        build_prompt_text("history", "", prompt_name=settings.promptName)
    except CutlineError as exc:
        return Refusal(str(exc))
    if settings.summarizer == "anthropic" and not env.get("ANTHROPIC_API_KEY"):
        return Refusal("the anthropic summarizer needs ANTHROPIC_API_KEY in the environment")
    if (
        settings.summarizer == "openai"
        and not env.get("OPENAI_API_KEY")
        and not (settings.baseUrl or env.get("OPENAI_BASE_URL"))
    ):
        return Refusal("the openai summarizer needs OPENAI_API_KEY (or a baseUrl / OPENAI_BASE_URL endpoint)")
    own_model = default_summarizer_model(settings, path, env)
    return settings.with_overrides(model=own_model) if own_model else settings


def verdict(proposal: Proposal) -> Refusal | None:
    """Why a made proposal is not worth storing, else None.

    An annotation-only proposal (every summarizer call failed: its text says "Summary
    unavailable") is no summary to review; one that leaves the context no smaller saves nothing.
    """
    if proposal.degraded == "annotation":
        cause = next((n for n in proposal.notes if "failed" in n), "no summary could be written")
        return Refusal(f"the {proposal.summarizer} summarizer failed ({cause}); no proposal stored")
    if proposal.tokensAfter >= proposal.tokensBefore:
        return Refusal(
            f"the compaction would grow the context ({proposal.tokensBefore:,} -> {proposal.tokensAfter:,} tokens); "
            "no proposal stored (lower --keep-recent-tokens to summarize more of the session)"
        )
    return None


def _run(work: Coroutine[Any, Any, T], cancel: threading.Event | None, poll: float = 0.05) -> T | None:
    """Run `work` on a fresh event loop in this thread; None when `cancel` is set before it ends."""
    if cancel is None:
        # the value beside the task, not its result: asyncio.run (3.11) formats a finished task's result at
        # exit (its SIGINT handler check), which for a large proposal cost ~15 % of a run
        box: list[T] = []

        async def boxed() -> None:
            box.append(await work)

        asyncio.run(boxed())
        return box[0]

    async def main() -> T | None:
        task = asyncio.ensure_future(work)
        while not task.done():
            if cancel.is_set():
                task.cancel()
                break
            await asyncio.wait({task}, timeout=poll)
        try:
            return await task
        except asyncio.CancelledError:
            return None

    return asyncio.run(main())


def propose(
    store: Store,
    opened: OpenedSession,
    plan: CompactionPlan,
    settings: CompactionSettings,
    *,
    progress: Progress | None = None,
    today: dt.date | None = None,
    cancel: threading.Event | None = None,
    environ: Mapping[str, str] | None = None,
    started: float | None = None,
) -> Proposal | Refusal | None:
    """Summarize what `plan` cuts away (blocking: call it in a worker): a proposal to store, a refusal, or None if cancelled.

    The path is read as `opened` holds it (`run_path`): a window or the whole session; a
    session held without its entries is read as a window of its stored path when the
    compaction may read one (as `cutline compact` does), else rebuilt for the run and let go after.
    The `[hooks]` of config.toml run around it; the settings' deadline bounds it, counted
    from `started` (`time.monotonic()`, the moment the person asked) when given: what was
    spent reading the path is taken from it, and DeadlineExceeded comes when none is left.
    """
    from cutline.core.config.file import load_config
    from cutline.core.engine.compact import checked_mode, compact
    from cutline.core.engine.deadline import time_left, within_deadline
    from cutline.core.summarizers import summarizer_for
    from cutline.core.workbench.planning import compaction_window

    session, path = opened.session, opened.run_path()
    rebuilt: Session | None = None
    if path is None and not session.entries:
        # lazy: read while the store is open for the run, the summarized span a slice at a time (not every entry held)
        path = compaction_window(
            store, session.id, settings.mode, plan.counter, plan.rules, settings.rules, flags_only=True, lazy=True
        )
        if path is None:
            rebuilt = session = store.load_session(session.id)
    try:
        run_path = path if path is not None else session.active_path()
        try:
            checked_mode(plan, run_path, settings)  # nothing to compact (with the keepRecentTokens that would)
        except CutlineError as exc:
            return Refusal(str(exc))
        checked = checked_settings(settings, run_path, environ)
        if isinstance(checked, Refusal):
            return checked
        work = compact(
            plan,
            session,
            summarizer_for(checked),
            checked,
            progress=progress,
            hooks=load_config().hooks,
            today=today,
            path=path,
        )
        try:
            left = time_left(checked.timeoutSeconds, started)
        except CutlineError:
            work.close()  # never started: no "never awaited" warning
            raise
        proposal = _run(within_deadline(work, left, checked.timeoutSeconds), cancel)
    finally:
        if rebuilt is not None:
            rebuilt.let_go()  # a session rebuilt for one run: let go of a slice of entries at a time
    if proposal is None or (cancel is not None and cancel.is_set()):
        return None
    return verdict(proposal) or proposal


def store_proposal(store: Store, proposal: Proposal, plan: CompactionPlan | None, session: Session) -> Proposal:
    """Store a made proposal (its generated summary as version 1), tied to the session file's bytes it was made from."""
    from cutline.core.review import save_proposal

    plan_json = plan.model_dump_json() if plan is not None else None
    return save_proposal(store, proposal, plan_json, source_sha256=session.source_sha256)
