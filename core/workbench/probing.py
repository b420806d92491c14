"""The model check of a proposal (`cutline audit --proposal ID --probe`): plan it (questions, prompt, cost) without
a request, run it (blocking: call it in a worker), keep its results with the proposal, read them again.

The questions come from the audit's important facts of the summarized part; the model
reads the context the agent will have once the proposal is written back
(`review.context_after_accept`, as `cutline context --proposal` prints it) and nothing else.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cutline.core.audit.probe import (
    NO_MODEL,
    ProbeCost,
    ProbeQuestion,
    ProbeRun,
    ask,
    estimate,
    graded,
    probe_model,
    probe_prompt,
    probe_questions,
)
from cutline.core.errors import CutlineError

if TYPE_CHECKING:
    from cutline.core.audit.verdicts import AuditFact
    from cutline.core.config.settings import CompactionSettings
    from cutline.core.store import Store
    from cutline.core.summarizers.base import Summarizer


@dataclass(frozen=True)
class ProbePlan:
    """A probe ready to send: the model, the questions, the prompt and what it will cost at most."""

    proposal_id: str
    version: int
    model: Summarizer
    questions: list[ProbeQuestion]
    prompt: str
    cost: ProbeCost

    @property
    def model_name(self) -> str:
        return f"{self.model.name} {self.model.model or ''}".strip()


def plan_probe(
    store: Store,
    proposal_id: str,
    facts: Sequence[AuditFact],
    settings: CompactionSettings,
    environ: Mapping[str, str],
) -> ProbePlan:
    """The probe of a proposal's latest version; CutlineError (one line) when no model is configured or no context is known."""
    from cutline.core.agents.wire import context_text
    from cutline.core.review import context_after_accept, latest_version, load_proposal

    model = probe_model(settings, environ)
    if model is None:
        raise CutlineError(NO_MODEL)
    proposal = load_proposal(store, proposal_id)
    context = context_after_accept(store, proposal.id)
    if context is None:
        raise CutlineError(f"proposal {proposal.id}: cutline cannot tell what its session sends after it")
    questions = probe_questions(facts)
    prompt = probe_prompt(context_text(context), questions)
    version = latest_version(store, proposal.id).n
    return ProbePlan(proposal.id, version, model, questions, prompt, estimate(prompt, questions, settings))


def run_probe(store: Store, plan: ProbePlan) -> ProbeRun:
    """Ask, grade and keep the results with the proposal (blocking); SummarizerError when the model fails."""
    from cutline.core.store.db import utc_now

    reply = asyncio.run(ask(plan.model, plan.prompt, plan.questions)) if plan.questions else ""
    run = ProbeRun(
        proposal_id=plan.proposal_id,
        version=plan.version,
        model=plan.model_name,
        created_at=utc_now(),
        cost=plan.cost,
        answers=graded(plan.questions, reply),
    )
    store.probes.add(run.proposal_id, run.created_at, run.model_dump_json())
    return run


def stored_run(store: Store, proposal_id: str) -> ProbeRun | None:
    """The proposal's last model check, None when it was never probed."""
    found = store.probes.latest(proposal_id)
    return None if found is None else ProbeRun.model_validate_json(found)
