"""The model check (optional): questions made from the summarized part's important facts, answered by a model
from the context after the compaction only, graded against the facts themselves.

The model only answers; it never grades. Each answer is judged against the fact it was
asked about with the audit's own comparison (core.audit.compare): numbers and units,
negation and modality, names in the same role. A question's topic is its fact with
what the answer must carry (numbers, negation and modality) taken out, so the question
does not give the answer away.

The cost is estimated before anything is sent: the prompt's tokens (chars/4, as the
chars4 counter counts) and the most the answers may take, times the configured prices
per million tokens (`inputPricePerMTok`, `outputPricePerMTok`) when known.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from cutline.core.audit.compare import FactView, judge, passages
from cutline.core.audit.verdicts import IMPORTANT_WEIGHT, AuditFact
from cutline.core.config.settings import CompactionSettings
from cutline.core.summarizers.base import Summarizer

Grade = Literal["right", "wrong", "missed"]
MAX_QUESTIONS = 10
OPEN_ERROR_WEIGHT = 2.5  # the weight core.audit.verdicts gives an error still unresolved at the cut
ANSWER_TOKENS = 80  # the most one answer may take
NO_MODEL = (
    "--probe needs a model: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or baseUrl (or OPENAI_BASE_URL) "
    "for an OpenAI-compatible server, a local one included"
)
SYSTEM_PROMPT = (
    "You are checking what an AI coding agent still knows after its conversation was compacted. "
    "Answer each question from the conversation given only, never from outside knowledge. "
    "Quote exact names, paths, numbers and units, and keep negations (never, must not). "
    "When the conversation does not say, answer UNKNOWN. "
    "Reply with one line per question, numbered as the questions are: `1. answer`."
)

_NUMBER = re.compile(r"\d[\d,._:]*")
_POLAR = re.compile(
    r"\b(never|always|not|no longer|don't|do not|doesn't|does not|mustn't|must|shouldn't|should|may|can't|cannot|"
    r"won't|only|instead of)\b",
    re.IGNORECASE,
)
_ANSWER = re.compile(r"^\s*(\d+)\s*[.):-]\s*(.*)$")


class ProbeQuestion(BaseModel):
    """One question, made from one fact."""

    number: int
    kind: str
    fact: str
    weight: float
    source_entry_id: str | None = None
    # an error the audit holds unresolved at the cut (weighed 2.5, core.audit.verdicts): an answer calling it fixed is wrong
    open_error: bool = False
    question: str


class ProbeAnswer(BaseModel):
    """A question, the model's answer and its grade against the fact (`reason`: how a wrong answer differs)."""

    question: ProbeQuestion
    answer: str
    grade: Grade
    reason: str = ""


class ProbeCost(BaseModel):
    """What a probe will cost at most: tokens in and out, and in money when the prices are configured."""

    input_tokens: int
    output_tokens: int
    input_price: float | None = None  # per million tokens
    output_price: float | None = None

    @property
    def amount(self) -> float | None:
        if self.input_price is None or self.output_price is None:
            return None
        return (self.input_tokens * self.input_price + self.output_tokens * self.output_price) / 1_000_000

    def line(self, model: str) -> str:
        tokens = f"~{self.input_tokens:,} tokens in, at most {self.output_tokens:,} out"
        amount = self.amount
        if amount is None:
            return f"probe with {model}: {tokens}; price unknown (set inputPricePerMTok and outputPricePerMTok)"
        return f"probe with {model}: {tokens}; about ${amount:.4f}"


class ProbeRun(BaseModel):
    """A probe's results, as stored with the proposal."""

    proposal_id: str
    version: int
    model: str
    created_at: str = ""
    cost: ProbeCost
    answers: list[ProbeAnswer] = Field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out = {"right": 0, "wrong": 0, "missed": 0}
        for answer in self.answers:
            out[answer.grade] += 1
        return out

    def text(self) -> str:
        counts = self.counts()
        lines = [
            f"model check of version {self.version} with {self.model}"
            + (f" ({self.created_at})" if self.created_at else "")
            + f": {counts['right']} right, {counts['wrong']} wrong, {counts['missed']} missed"
            f" of {len(self.answers)}"
        ]
        order = {"wrong": 0, "missed": 1, "right": 2}
        for answer in sorted(self.answers, key=lambda a: (order[a.grade], a.question.number)):
            lines.append(f"  {answer.grade:<6} [{answer.question.kind}] {answer.question.fact}")
            lines.append(f"         asked: {answer.question.question}")
            lines.append(
                f"         answer: {answer.answer or '(none)'}" + (f"  ({answer.reason})" if answer.reason else "")
            )
        return "\n".join(lines)


def topic(text: str) -> str:
    """The fact without what its answer must carry: numbers become `…`, negation and modality words go."""
    out = _POLAR.sub(" ", text)
    out = _NUMBER.sub("…", out)
    out = re.sub(r"\s+", " ", out).strip(" .,;:")
    return out[:160]


_ASK = {
    "instruction": "What did the user say about “{}”? State the rule exactly: names, numbers with units, "
    "and whether it must, may or must never be done.",
    "request": "What did the user ask regarding “{}”? State it exactly, and whether it is done or still open.",
    "error": "What error came up regarding “{}”? Quote it, and say whether it is fixed or still failing.",
    "decision": "What was decided about “{}”? State exactly what was chosen, and over what.",
    "identifier": "Which exact name or path was mentioned in connection with “{}”?",
}


def probe_questions(facts: Sequence[AuditFact], limit: int = MAX_QUESTIONS) -> list[ProbeQuestion]:
    """Questions on the most important facts (weight ≥ IMPORTANT_WEIGHT, heaviest first, then in order); none superseded."""
    chosen = [f for f in facts if f.weight >= IMPORTANT_WEIGHT and not f.superseded and topic(f.text)]
    ranked = sorted(range(len(chosen)), key=lambda i: (-chosen[i].weight, i))[:limit]
    out: list[ProbeQuestion] = []
    for i in sorted(ranked):
        fact = chosen[i]
        out.append(
            ProbeQuestion(
                number=len(out) + 1,
                kind=fact.kind,
                fact=fact.text,
                weight=fact.weight,
                source_entry_id=fact.source_entry_id,
                open_error=fact.kind == "error" and fact.origin == "conversation" and fact.weight >= OPEN_ERROR_WEIGHT,
                # an error is asked about by its own text: its state (fixed or not) is what the answer must carry
                question=_ASK.get(fact.kind, _ASK["instruction"]).format(
                    fact.text[:160] if fact.kind == "error" else topic(fact.text)
                ),
            )
        )
    return out


def probe_prompt(context: str, questions: Sequence[ProbeQuestion]) -> str:
    """The one user message: the context after the compaction, then the numbered questions."""
    asked = "\n".join(f"{q.number}. {q.question}" for q in questions)
    return f"<conversation>\n{context}\n</conversation>\n\nQuestions:\n{asked}"


def estimate(prompt: str, questions: Sequence[ProbeQuestion], settings: CompactionSettings) -> ProbeCost:
    """The cost at most, before anything is sent (prices from the settings, per million tokens)."""
    return ProbeCost(
        input_tokens=math.ceil((len(SYSTEM_PROMPT) + len(prompt)) / 4),
        output_tokens=max_answer_tokens(questions),
        input_price=settings.inputPricePerMTok,
        output_price=settings.outputPricePerMTok,
    )


def max_answer_tokens(questions: Sequence[ProbeQuestion]) -> int:
    return ANSWER_TOKENS * len(questions) + 50


def parse_answers(text: str, count: int) -> list[str]:
    """The answer to each question 1..count from the numbered reply ("" where none is given)."""
    found: dict[int, list[str]] = {}
    current: int | None = None
    for line in text.splitlines():
        match = _ANSWER.match(line)
        if match and 1 <= int(match.group(1)) <= count and int(match.group(1)) not in found:
            current = int(match.group(1))
            found[current] = [match.group(2).strip()]
        elif current is not None and line.strip():
            found[current].append(line.strip())
    return [" ".join(found.get(n, [])).strip() for n in range(1, count + 1)]


def grade(question: ProbeQuestion, answer: str) -> tuple[Grade, str]:
    """The answer judged against the fact with the audit's comparison: kept or reworded is right, contradicted wrong."""
    if not answer.strip() or answer.strip().upper().startswith("UNKNOWN"):
        return "missed", "not answered"
    view = FactView(
        text=question.fact,
        kind=question.kind,
        open_task=question.kind == "request",
        error_state="open" if question.open_error else None,
    )
    judgement = judge(view, passages([answer]))
    if judgement.verdict in ("kept", "reworded"):
        return "right", ""
    if judgement.verdict == "contradicted":
        return "wrong", judgement.reason
    # a short answer states part of the fact: what it says is then judged against the fact
    back = judge(FactView(text=answer, kind=question.kind), passages([question.fact]))
    if back.verdict == "contradicted":
        return "wrong", back.reason
    if back.verdict in ("kept", "reworded"):
        return "right", ""
    return "missed", "the answer does not state it"


def graded(questions: Sequence[ProbeQuestion], reply: str) -> list[ProbeAnswer]:
    answers = parse_answers(reply, len(questions))
    out: list[ProbeAnswer] = []
    for question, answer in zip(questions, answers, strict=True):
        verdict, reason = grade(question, answer)
        out.append(ProbeAnswer(question=question, answer=answer, grade=verdict, reason=reason))
    return out


def probe_model(settings: CompactionSettings, environ: Mapping[str, str]) -> Summarizer | None:
    """The model that answers: the configured model summarizer, else the provider whose key (or endpoint) is set; None when none is."""
    from cutline.core.summarizers import get_summarizer, summarizer_for
    from cutline.core.summarizers.openai_api import DEFAULT_OPENAI_MODEL

    openai_ready = bool(environ.get("OPENAI_API_KEY") or environ.get("OPENAI_BASE_URL") or settings.baseUrl)
    if settings.summarizer == "anthropic" and environ.get("ANTHROPIC_API_KEY"):
        return summarizer_for(settings)
    if settings.summarizer == "openai" and openai_ready:
        return summarizer_for(settings)
    timing = {"timeout": settings.requestTimeoutSeconds, "max_retries": settings.maxRetries}
    named = "model" in settings.model_fields_set
    if environ.get("ANTHROPIC_API_KEY"):
        return get_summarizer("anthropic", model=settings.model, **timing)
    if openai_ready:
        model = settings.model if named else DEFAULT_OPENAI_MODEL
        return get_summarizer("openai", model=model, base_url=settings.baseUrl, api=settings.api, **timing)
    return None


async def ask(model: Summarizer, prompt: str, questions: Sequence[ProbeQuestion]) -> str:
    """The model's reply to the probe (raises SummarizerError as a summary request would)."""
    from cutline.core.summarizers.base import SummaryRequest

    request = SummaryRequest(system_prompt=SYSTEM_PROMPT, prompt_text=prompt, max_tokens=max_answer_tokens(questions))
    return await model.summarize(request)
