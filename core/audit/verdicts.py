"""Every fact of a compaction's summarized part with its verdict, its importance, and whether it was read again.

The comparison itself is compare.py; here the facts are gathered (the conversation's and
those a previous summary carried), given what the comparison needs to know of them
(an error fixed later or not, an open task, the sentence an identifier was named in),
judged, weighed, and tied together: a preference the user revoked later is superseded
(losing it loses nothing), and a summary that keeps the revoked one while dropping the
revocation contradicts it.

Weights (importance): constraints and preferences in force and the latest request 3,
open TODOs and unresolved errors 2.5, decisions and other requests 2, facts a previous
summary carried 2, a fixed error 1.5, paths and URLs 1, other identifiers 0.75,
superseded facts 0.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Literal

from pydantic import BaseModel

from cutline.core.audit.compare import FactView as View
from cutline.core.audit.compare import Judgement, Passages, Verdict, judge, judge_kept, sentences, tokens
from cutline.core.engine.quality_guard import IDENTIFIER_SOURCE_MESSAGES
from cutline.core.facts import (
    Deduped,
    Fact,
    FactKind,
    IdentifierKind,
    carried_facts,
    content_words,
    dedupe,
    entry_facts,
    normalize_sentence,
    shell_output,
)
from cutline.core.models import Entry, Message, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock

IMPORTANT_WEIGHT = 2.0
# a correct rewording keeps the fact as fully as a verbatim copy (the truth set's judges credit both 1): crediting it
# less ranked an extractive summary, which copies sentences, above a model's summary that keeps more in its own words
CREDIT: dict[str, float] = {"kept": 1.0, "reworded": 1.0, "lost": 0.0, "contradicted": -0.5}
# a path of which only the file name is visible is partly kept
PARTLY_KEPT = 0.5


class AuditFact(BaseModel):
    """A fact of the summarized part with its verdict.

    `verdict`: kept, reworded (kept in other words; `closest` is the passage, for the
    person to confirm), lost, or contradicted (`closest` states it otherwise, `reason`
    says how). `retained` is kept or reworded (or superseded). `weight` is its
    importance (README "Verdicts, weights and the guard"); `recovered`: lost, but the
    agent read it again after the compaction; `superseded`: a later message of the user
    revoked it, so losing it loses nothing.
    """

    kind: FactKind
    text: str
    key: str = ""
    source_entry_id: str | None = None
    identifier_kind: IdentifierKind | None = None
    origin: Literal["conversation", "previous_summary"] = "conversation"
    retained: bool
    rule: str = "none"
    score: float = 0.0
    verdict: Verdict = "kept"
    closest: str = ""
    reason: str = ""
    weight: float = 1.0
    recovered: bool = False
    superseded: bool = False


def weighted_retention(facts: Sequence[AuditFact]) -> float:
    """Retention weighted by importance: kept and reworded 1 (a path by its file name only 0.5), lost 0, contradicted -0.5.

    Floored at 0; 1 with no fact.
    """
    total = sum(f.weight for f in facts)
    if total <= 0:
        return 1.0
    got = sum(f.weight * _credit(f) for f in facts)
    return max(0.0, got / total)


def _credit(fact: AuditFact) -> float:
    if fact.superseded:
        return 1.0
    if fact.verdict == "reworded" and fact.rule == "file-name":
        return PARTLY_KEPT
    return CREDIT[fact.verdict]


_FIX = re.compile(r"\b(fixed|resolved|passes|passing|green|works now)\b", re.IGNORECASE)
_REVOCATION = re.compile(
    r"\b(forget|scratch|drop|disregard|ignore|never mind|no longer|revoke|withdraw)\b", re.IGNORECASE
)
_REVOKE_WORDS = frozenset(
    [
        "forget",
        "scratch",
        "drop",
        "disregard",
        "ignore",
        "revoke",
        "withdraw",
        "preference",
        "instead",
        "fine",
        "rather",
    ]
)
_AFTER_REVOCATION = re.compile(
    r"\b(forget|scratch|drop|dropped|withdrawn|withdrew|revoked|taken back|no longer|after all|instead|is fine)\b",
    re.IGNORECASE,
)
_GENERIC_ERROR_TOKENS = frozenset({"error", "failed", "assert", "assertionerror", "typeerror", "exception", "fatal"})


def _entry_text(entry: Entry) -> str:
    message = entry.message
    if message is None:
        return ""
    return message.text()


def _telling(text: str) -> set[str]:
    return {t.norm for t in tokens(text) if t.specific and t.norm not in _GENERIC_ERROR_TOKENS and len(t.norm) >= 4}


def _fixes(message: Message, at: int, latest_fix: dict[str, int]) -> None:
    """Record in `latest_fix` the tokens of an assistant message's fixing sentences at its position `at`."""
    for sentence in re.split(r"(?<=[.!?;])\s+", message.text()):
        fixed = _FIX.search(sentence) and not re.search(r"\bnot (?:yet )?fixed\b|\bstill\b", sentence, re.I)
        if fixed:
            for t in tokens(sentence):
                latest_fix[t.norm] = at


def _error_states(
    facts: Sequence[Fact], position: dict[str, int], texts: dict[str, str], latest_fix: dict[str, int]
) -> dict[int, str]:
    """For each error fact (by index): "fixed" when a later assistant message says so about the same thing, else "open".

    The assistant messages' fixing sentences are read once (`_fixes`: the latest position each
    of their tokens appears at), not once per error fact: a long session has errors and
    assistant messages in proportion to its length, and the scan per fact was quadratic.
    `position` is each entry id's (last) place, `texts` the text of the entries error facts come from.
    """
    states: dict[int, str] = {}
    for n, fact in enumerate(facts):
        if fact.kind != "error":
            continue
        at = position.get(fact.source_entry_id or "", -1)
        source = texts.get(fact.source_entry_id or "") if at >= 0 else None
        telling = _telling(source if source is not None else fact.text) | _telling(fact.text)
        fixed_later = at >= 0 and any(latest_fix.get(norm, -1) > at for norm in telling)
        states[n] = "fixed" if fixed_later else "open"
    return states


def _view(fact: Fact, error_state: str | None, order: int = -1) -> View:
    return View(
        text=fact.text,
        kind=fact.kind,
        identifiers=tuple(fact.identifiers),
        context=fact.context,
        # a question put to the assistant ("Queue or faster library, then?") is answered, not done: it has no state
        open_task=fact.kind == "request" and not _asks(fact),
        error_state=error_state,
        fix=fact.kind == "decision" and re.match(r"(fixed|resolved)\b", fact.text, re.IGNORECASE) is not None,
        order=order,
    )


def _weight(fact: Fact, origin: str, error_state: str | None, latest: str | None) -> float:
    if origin == "previous_summary":
        return 1.0 if fact.kind == "identifier" else 2.0
    if fact.kind == "instruction":
        return 3.0
    if fact.kind == "request":
        if latest is not None and fact.source_entry_id == latest:
            return 3.0
        return 2.5 if fact.text.lower().startswith("todo") else 2.0
    if fact.kind == "error":
        return 1.5 if error_state == "fixed" else 2.5
    if fact.kind == "decision":
        return 2.0
    return 1.0 if fact.identifier_kind in ("path", "url") else 0.75


def _judged(fact: Fact, view: View, seen: Passages) -> Judgement:
    """`judge`, but a user's question (`_asks`) states nothing another passage could contradict, and a fact one passage
    keeps nearly word for word ("Set the key …" for "Now set the key …") is kept though another passage conflicts."""
    if _asks(fact):
        return judge_kept(view, seen)
    found = judge(view, seen)
    if found.verdict != "contradicted" or found.rule != "contradiction":
        return found
    kept = judge_kept(view, seen)
    if kept.verdict == "kept" or (kept.score >= _NEAR_VERBATIM and kept.closest != found.closest):
        return kept
    return found


def _audit_fact(
    fact: Fact, origin: Literal["conversation", "previous_summary"], j: Judgement, weight: float
) -> AuditFact:
    return AuditFact(
        kind=fact.kind,
        text=fact.text,
        key=fact.key,
        source_entry_id=fact.source_entry_id,
        identifier_kind=fact.identifier_kind,
        origin=origin,
        retained=j.verdict in ("kept", "reworded"),
        rule=j.rule,
        score=j.score,
        verdict=j.verdict,
        closest=j.closest if j.verdict != "lost" else "",
        reason=j.reason,
        weight=weight,
    )


def _revocations(facts: Sequence[Fact]) -> dict[int, int]:
    """Earlier instruction index -> index of the later user instruction that revokes it."""
    revoked: dict[int, int] = {}
    for r, later in enumerate(facts):
        if later.kind != "instruction" or not _REVOCATION.search(later.text):
            continue
        words = {t.norm for t in tokens(later.text)} - _REVOKE_WORDS
        for e, earlier in enumerate(facts[:r]):
            shared = words & ({t.norm for t in tokens(earlier.text)} - _REVOKE_WORDS)
            if earlier.kind == "instruction" and e not in revoked and shared:
                revoked[e] = r
    return revoked


def _statements(entry: Entry, at: int) -> Iterator[tuple[str, int]]:
    """Every sentence the user and the assistant wrote in an entry (their text and the assistant's thinking), with `at`."""
    message = entry.message
    if message is None or message.role not in ("user", "assistant"):
        return
    for block in message.content:
        text = (
            block.text if isinstance(block, TextBlock) else block.thinking if isinstance(block, ThinkingBlock) else ""
        )
        for sentence in sentences(text):
            yield sentence, at


# a request for work phrased as a question ("could you …?", "would you mind …?"): it asks for no answer
_POLITE = re.compile(r"^(?:please\s+)?(?:(?:can|could|would|will|may)\s+(?:you|we|i)\b|would you mind\b)", re.I)
_QUESTION_WORD = re.compile(
    r"^(?:(?:ok|okay|so|and|fine|right|well)\b[,.]?\s*)*(?:what|which|how|why|where|who)\b", re.I
)
# the assistant announcing what it will do, or acknowledging: not yet an answer
_PLAN = re.compile(
    r"^(?:let me|let's|i'll|i will|i'm going to|i'd like to|i want to|first\b|sure\b|ok\b|okay\b|on it\b|alright\b)",
    re.I,
)
# the assistant announcing that it will look at something first ("Let me read the handler before I choose.", "I'll
# look at the producer and the consumer before I answer."): a step of the work, not a decision the summary must keep
_LOOK_FIRST = re.compile(
    r"^(?:first,?\s+)?(?:let me|let's|i'll|i will|i'd like to|i want to|i'm going to)\s+(?:first\s+)?"
    r"(?:look|read|check|see|inspect|open|have a look|take a look)\b",
    re.I,
)
# a passage that keeps a fact this nearly word for word keeps it, whatever another passage says (`_judged`)
_NEAR_VERBATIM = 0.9
_ANSWER_WORDS = 8
_ANSWER_MAX_WORDS = 30


# a question that offers two ways after a comma ("…, or lower the K-factor?"): it asks which one, even in a polite form
_OFFERS_WAYS = re.compile(r",\s+or\s+[^?]*\?\s*$")


def _asks(fact: Fact) -> bool:
    """A user's question that wants an answer: "which one?", "so what's the fix?", "Should we X or Y?", "Would you X,
    or Y?" (a polite form asks for work, "Could you keep X?", unless it offers two ways to choose from)."""
    text = fact.text.strip()
    if fact.kind not in ("request", "instruction"):
        return False
    if _POLITE.match(text):
        return not text.lower().startswith("would you mind") and _OFFERS_WAYS.search(text) is not None
    if fact.kind == "instruction":  # "Should we move to X, or tune Y?": a choice put to the assistant
        return text.endswith("?") and " or " in text
    return text.endswith("?") or _QUESTION_WORD.match(text) is not None


def _own_text(entry: Entry) -> str:
    message = entry.message
    if message is None:
        return ""
    return "\n".join(b.text for b in message.content if isinstance(b, TextBlock) and b.text.strip())


def _statement_of(entry: Entry) -> Fact | None:
    """An assistant message's statement (its first sentences, plans skipped) as a fact, else None."""
    message = entry.message
    text = _own_text(entry)
    if message is None or message.role != "assistant" or not text:
        return None
    said = [s.strip() for s in sentences(text) if s.strip()]
    if not said or _PLAN.match(said[0]):
        return None
    taken: list[str] = []
    for sentence in said:
        taken.append(sentence)
        if sum(len(t.split()) for t in taken) >= _ANSWER_WORDS:
            break
    answer = " ".join(" ".join(taken).split()[:_ANSWER_MAX_WORDS])
    return Fact(kind="decision", text=answer, key=normalize_sentence(answer), source_entry_id=entry.id)


# the assistant's remark on the output it just read ("That is the full build.", "There it is."): what it says is that
# output, so it is kept where the output's numbers are
_POINTER = re.compile(
    r"^(?:that|this|these|those)(?:'s|\s+(?:is|are|was|were)\b)|^(?:there|here) (?:it|they) (?:is|are)\b", re.I
)
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?!\w)")
_POINTED_NUMBERS = 12
_SHORT_OUTPUT = 40


def _output_numbers(text: str) -> tuple[str, ...]:
    """A tool output's numbers of three digits or more (fewer say too little to find it by), the first few; of an
    output of one short line ("median games per member: 23", "71"), numbers of two digits too: the number is what it
    says."""
    digits = 2 if len(text.strip()) <= _SHORT_OUTPUT and "\n" not in text.strip() else 3
    found = dict.fromkeys(n.rstrip(",") for n in _NUMBER.findall(text) if len(re.sub(r"\D", "", n)) >= digits)
    return tuple(found)[:_POINTED_NUMBERS]


def _printed(text: str) -> str:
    """What the command printed: Codex's shell result is JSON (`{"output": "71", "metadata": {…}}`), the others' text."""
    output = shell_output(text) if text.startswith('{"output"') else None
    return text if output is None else output


def _number_forms(number: str) -> tuple[str, ...]:
    """A number as a summary may write it: as printed, without or with thousands separators ("1284507", "1,284,507")."""
    plain = number.replace(",", "")
    forms = [number, plain]
    if plain.isdigit() and len(plain) > 3:
        forms.append(f"{int(plain):,}")
    return tuple(dict.fromkeys(forms))


def _pointed_kept(numbers: Sequence[str], seen: Passages) -> str:
    """The passage that holds one of the numbers of the output a remark points at, else ""."""
    for number in numbers:
        for form in _number_forms(number):
            if seen.has_identifier(form):
                return seen.line_with(form)
    return ""


# where an answer's first clause ends: a colon or semicolon, a sentence's end, ", so", a dash
_CLAUSE_END = re.compile(r"(?<=\w)[:;.](?=\s)|,\s+so\s|\s[\u2014\u2013-]\s")


def _first_clause(text: str) -> str:
    """An answer's first clause ("A background queue." of "A background queue. The request then only …", "app/x.py is
    the upload endpoint itself" of "app/x.py is the upload endpoint itself: it decodes …"); "" when it is the whole
    text or names fewer than two content words."""
    clause = _CLAUSE_END.split(text, maxsplit=1)[0].strip()
    return clause if clause != text.strip() and len(content_words(clause)) >= 2 else ""


# a passage stating a choice: what was chosen against what was not, or that it was decided
_CHOSE = re.compile(
    r"\b(?:instead of|rather than|over|not|rejected|turned down|decided|decision|chose|chosen|picked|go with|going "
    r"with|went with|settled on|switch to|switching to|move to|moving to)\b"
)


def _chosen_line(text: str, seen: Passages) -> str:
    """For an answer whose first clause names one thing ("Glicko-2." of "Glicko-2. With around 23 games …"), the
    passage that holds that thing and states a choice (`_CHOSE`), being no question nor a list of options (no "?", no
    " or "); else ""."""
    clause = _CLAUSE_END.split(text, maxsplit=1)[0].strip()
    if clause == text.strip() or len(content_words(clause)) != 1:
        return ""
    named = {t.norm for t in tokens(clause)}
    for position in seen.candidates(named):
        passage = seen.items[position]
        lower = passage.text.lower()
        if named <= passage.norms and "?" not in lower and " or " not in lower and _CHOSE.search(lower):
            return passage.text
    return ""


def _bare_question(fact: Fact) -> bool:
    """A user's question that names at most one thing ("Which one?", "so which way?"): its answer is what it says."""
    return _asks(fact) and len(content_words(fact.text)) <= 1


def _answer_of(fact: Fact, at: int, following: dict[int, Fact | None], texts: dict[str, str]) -> Fact | None:
    """The answer to a question or a failed command's error at conversation position `at`, None when there is none."""
    if at < 0 or not (_asks(fact) or fact.kind == "error"):
        return None
    answer = following.get(at)
    if answer is None or not answer.key:
        return None
    # the reading of a failure speaks of what failed (a word of its output in common); the next thing the
    # assistant says may be about something else altogether
    if fact.kind == "error" and not content_words(answer.text) & content_words(
        texts.get(fact.source_entry_id or "", "")
    ):
        return None
    return answer


class ConversationScan:
    """What judging a summarized conversation needs of it, gathered in one walk over its entries (`add` each, in order).

    Why: a session with no compaction summarizes ~100,000 entries; holding each as a model for
    five walks (the facts, the errors fixed later, the statements, the answers, the guard's
    messages) cost ~1.3 GB. Each entry is read once here and let go; what is kept is the
    facts, the positions of the entry ids, the text of the entries an error or question came
    from, and the answer found for each of those.

    Answers: the answer at a position is the assistant's first statement after it and before
    the user's next turn (what the work learnt: "SQLite then: …", "This runner cannot reach
    the relay, so …"); positions wait (`_pending`) until an entry settles them.
    """

    def __init__(self, seen: Passages) -> None:
        self._seen = seen
        self._facts = Deduped()
        self.position: dict[str, int] = {}
        self._latest_fix: dict[str, int] = {}
        # ids of the entries an error or a question came from (their text is kept, their answer looked for)
        self._asking_ids: set[str] = set()
        self._texts: dict[str, str] = {}
        self._pending: list[int] = []
        self._following: dict[int, Fact | None] = {}
        # the numbers of the last tool output, and of the output each remark answering a question points at (by key)
        self._output: tuple[str, ...] = ()
        self._pointed: dict[str, tuple[str, ...]] = {}
        self._count = 0
        # the guard's inputs: the last ten messages and the text of the last user message with any
        self.last_messages: deque[Message] = deque(maxlen=IDENTIFIER_SOURCE_MESSAGES)
        self.latest_ask: str | None = None

    def add(self, entry: Entry, message: Message | None) -> None:
        """The next entry of the conversation, with the message it gives a summary (`entry_message`)."""
        at = self._count
        self._count += 1
        self.position[entry.id] = at
        for fact in entry_facts(entry):
            if fact.kind == "decision" and _LOOK_FIRST.match(fact.text.strip()):
                continue
            self._facts.add(fact)
            if fact.kind == "error" or _asks(fact):
                self._asking_ids.add(entry.id)
        if entry.id in self._asking_ids:
            self._texts[entry.id] = _entry_text(entry)
        own = entry.message
        if own is not None and own.role == "assistant":
            _fixes(own, at, self._latest_fix)
        if own is not None and (
            own.role in ("toolResult", "bashExecution") or any(isinstance(b, ToolResultBlock) for b in own.content)
        ):
            self._output = _output_numbers(_printed(own.text()))
        elif own is not None and own.role == "user" and _own_text(entry):
            self._output = ()
        self._seen.know(_statements(entry, at))
        self._settle(entry)
        if entry.id in self._asking_ids:
            self._pending.append(at)
        if message is not None:
            self.last_messages.append(message)
            if message.role == "user":
                text = "\n".join(b.text for b in message.content if isinstance(b, TextBlock)).strip()
                if text:
                    self.latest_ask = text

    def _settle(self, entry: Entry) -> None:
        """Give the waiting positions their answer where this entry settles it: a user's turn (none) or a statement."""
        if not self._pending:
            return
        if entry.message is not None and entry.message.role == "user" and _own_text(entry):
            answer: Fact | None = None
        else:
            answer = _statement_of(entry)
            if answer is None:
                return
            if self._output and _POINTER.match(answer.text):
                self._pointed[answer.key] = self._output
        for at in self._pending:
            self._following[at] = answer
        self._pending = []

    def error_states(self, facts: Sequence[Fact]) -> dict[int, str]:
        """`_error_states` of these facts (those of the entries read) against the entries read."""
        return _error_states(facts, self.position, self._texts, self._latest_fix)

    def answers(self, facts: Sequence[Fact]) -> list[tuple[int, Fact]]:
        """(index of a question or a failed command's error, its answer) for each of these facts the assistant answered."""
        out: list[tuple[int, Fact]] = []
        for n, fact in enumerate(facts):
            at = self.position.get(fact.source_entry_id or "", -1)
            answer = _answer_of(fact, at, self._following, self._texts)
            if answer is not None:
                out.append((n, answer))
        return out

    def facts(self) -> list[Fact]:
        """The facts of the entries read so far (deduplicated: `dedupe`)."""
        return self._facts.facts

    def judge(self, previous_summaries: Sequence[tuple[str, str]], latest_request_entry: str | None) -> list[AuditFact]:
        """Verdicts of every fact read and of the previous summaries (entry id, text)."""
        facts = self.facts()
        position = self.position
        known = {(f.kind, f.key) for f in facts}
        earlier = dedupe(
            f
            for entry_id, text in previous_summaries
            for f in carried_facts(text, entry_id)
            if (f.kind, f.key) not in known
        )
        states = self.error_states(facts)
        seen = self._seen
        judged: list[AuditFact] = []
        for n, fact in enumerate(facts):
            state = states.get(n)
            judged.append(
                _audit_fact(
                    fact,
                    "conversation",
                    _judged(fact, _view(fact, state, position.get(fact.source_entry_id or "", -1)), seen),
                    _weight(fact, "conversation", state, latest_request_entry),
                )
            )
        for fact in earlier:
            judged.append(
                _audit_fact(
                    fact,
                    "previous_summary",
                    judge(_view(fact, None), seen),
                    _weight(fact, "previous_summary", None, None),
                )
            )
        # answers: one fact each (a decision the conversation already has stays that fact); a question or an error
        # whose answer the summary keeps is kept in the answer's words
        index = {(f.kind, f.key): n for n, f in enumerate(facts)}
        answered: set[int] = set()
        for n, answer in self.answers(facts):
            answered.add(n)
            a = index.get((answer.kind, answer.key))
            if a is None:
                a = index[(answer.kind, answer.key)] = len(judged)
                view = _view(answer, None, position.get(answer.source_entry_id or "", -1))
                said = judge_kept(view, seen)
                line = _pointed_kept(self._pointed.get(answer.key, ()), seen) if said.verdict == "lost" else ""
                if line:
                    said = Judgement("reworded", "pointed", said.score, line, "the output it points at is kept")
                # an answer's point is its first clause ("A background queue." before the reasons for it)
                clause = _first_clause(answer.text) if said.verdict == "lost" else ""
                first = judge_kept(_view(answer.model_copy(update={"text": clause}), None), seen) if clause else None
                if first is not None and first.verdict != "lost":
                    said = Judgement("reworded", "first-clause", first.score, first.closest, "its first clause is kept")
                # an answer naming one thing ("Glicko-2." before the reasons): kept where the summary states that
                # thing as chosen, not where it only names it (the question copied names every option)
                chosen = _chosen_line(answer.text, seen) if said.verdict == "lost" else ""
                if chosen:
                    said = Judgement("reworded", "chosen", said.score, chosen, "what it chose is stated as chosen")
                judged.append(_audit_fact(answer, "conversation", said, 2.0))
            # a failed command copied without what it taught ("SMS_API_KEY is not set" without where the key is):
            # the failure is not carried, its lesson is
            if facts[n].kind == "error" and judged[n].verdict == "kept" and not judged[a].retained:
                judged[n] = judged[n].model_copy(
                    update={
                        "verdict": "lost",
                        "retained": False,
                        "rule": "without-answer",
                        "reason": "copied without what it led to",
                    }
                )
            if judged[n].verdict == "lost" and judged[a].retained:
                judged[n] = judged[n].model_copy(
                    update={
                        "verdict": "reworded",
                        "retained": True,
                        "rule": "answered",
                        "closest": judged[a].closest,
                        "reason": "what it led to is kept",
                    }
                )
        # a question naming nothing ("Which one?") that the assistant never answered: nothing of it to keep (answered,
        # it goes with its answer: kept with it, lost with it)
        for n, fact in enumerate(facts):
            if judged[n].verdict == "lost" and n not in answered and _bare_question(fact):
                judged[n] = judged[n].model_copy(
                    update={"retained": True, "weight": 0.0, "rule": "bare-question", "reason": "it names nothing"}
                )
        for e, r in _revocations(facts).items():
            old, new = judged[e], judged[r]
            judged[e] = old.model_copy(update={"superseded": True, "retained": True, "weight": 0.0})
            old_visible = old.verdict != "lost"
            if old_visible and (not new.retained or not _AFTER_REVOCATION.search(new.closest)):
                judged[r] = new.model_copy(
                    update={
                        "verdict": "contradicted",
                        "retained": False,
                        "rule": "revoked",
                        "closest": old.closest,
                        "reason": f"the summary keeps \u201c{old.text}\u201d, which the user revoked",
                    }
                )
        return judged


def mark_recovered(facts: list[AuditFact], after: Sequence[Entry]) -> list[AuditFact]:
    """Lost paths the agent read again after the compaction (a tool call naming them): recovered, at a cost."""
    named: list[str] = []
    for entry in after:
        message = entry.message
        if message is None or message.role != "assistant":
            continue
        for block in message.content:
            if isinstance(block, ToolCallBlock):
                named.append(str(block.arguments).lower())
    if not named:
        return facts
    out: list[AuditFact] = []
    for fact in facts:
        key = fact.key.lstrip("@")
        if not fact.retained and fact.identifier_kind == "path" and key and any(key in text for text in named):
            fact = fact.model_copy(update={"recovered": True})
        out.append(fact)
    return out


__all__ = [
    "IMPORTANT_WEIGHT",
    "AuditFact",
    "ConversationScan",
    "FactKind",
    "IdentifierKind",
    "Verdict",
    "mark_recovered",
    "weighted_retention",
]
