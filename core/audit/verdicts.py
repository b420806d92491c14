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
from collections.abc import Iterable, Iterator, Sequence
from typing import Literal

from pydantic import BaseModel

from cutline.core.audit.compare import FactView as View
from cutline.core.audit.compare import Judgement, Passages, Verdict, judge, judge_kept, polarity, sentences, tokens
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
# a path of which only the file name is visible, a URL of which only the host is, is partly kept
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
    """Retention weighted by importance: kept and reworded 1 (a path by its file name only, a URL by its host only 0.5),
    lost 0, contradicted -0.5.

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
    if fact.verdict == "reworded" and fact.rule in ("file-name", "host"):
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
    r"^(?:first,?\s+|before\s+[^,.;:]{1,40}?,?\s+)?(?:let me|let's|i'll|i will|i'd like to|i want to|i'm going to)\s+"
    r"(?:first\s+)?(?:look|read|check|see|inspect|open|have a look|take a look)\b",
    re.I,
)
# a statement that takes the two ways together and picks neither ("Both can work: …", "It could be either.", "There's a
# case for both; …", "I'll profile both."): "both" or "either" standing for the options (no noun after it, a verb or
# the clause's end), not naming what is chosen ("support both formats" picks both, a decision)
_BOTH_WAYS = re.compile(
    r"\b(?:both|either)\b(?=\s*(?:[.,;:!?)]|$)|\s+(?:are|is|can|could|would|will|might|may|work|works|have|has|of)\b)",
    re.I,
)
# a passage that keeps a fact this nearly word for word keeps it, whatever another passage says (`_judged`)
_NEAR_VERBATIM = 0.9
_ANSWER_WORDS = 8
_ANSWER_MAX_WORDS = 30


# a question that offers two ways after a comma ("…, or lower the K-factor?"): it asks which one, even in a polite form
_OFFERS_WAYS = re.compile(r",\s+or\s+[^?]*\?\s*$")


def _hedges(text: str) -> bool:
    """Whether a statement's first clause takes the two ways together and picks neither (`_BOTH_WAYS`): "Both can
    work: …", not "X runs one ILIKE, so accents and word order both have to match" (its own two things)."""
    first = re.split(r"[,;:]\s|(?<=[.!?])\s|\s[\u2014\u2013-]\s", text.strip(), maxsplit=1)[0]
    return _BOTH_WAYS.search(first + " ") is not None


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
    # a plan, a look announced ("Before choosing I want to see …") or both ways weighed without a pick is no answer yet
    if not said or _PLAN.match(said[0]) or _LOOK_FIRST.match(said[0]) or _hedges(said[0]):
        return None
    taken: list[str] = []
    for sentence in said:
        taken.append(sentence)
        if sum(len(t.split()) for t in taken) >= _ANSWER_WORDS:
            break
    answer = " ".join(" ".join(taken).split()[:_ANSWER_MAX_WORDS])
    return Fact(kind="decision", text=answer, key=normalize_sentence(answer), source_entry_id=entry.id)


# the assistant's remark on the output it just read ("That is the full build.", "There it is.", "There you go.", "That
# count covers every meter.", "It is set in the board's config header."): a deictic word or a pronoun standing for the
# output; what it says is that output, so it is kept where the output's numbers are
_POINTER = re.compile(r"^(?:that|this|these|those|there|here)\b|^(?:it|they)(?:'s|\s+(?:is|are|was|were)\b)", re.I)
# a number, with or without a unit's letters stuck to it ("6.4G", "412K")
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?=[A-Za-z]{0,3}(?!\w))")
_POINTED_NUMBERS = 12
_SHORT_OUTPUT = 40
# a remark is short: one that says more than this is a statement of its own, not a pointer at an output
_REMARK_WORDS = 16


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


# where an answer's consequence begins: "…, so the router build has to use `cross` …"
_SO = re.compile(r",\s+so\s+(?:that\s+)?")
_ASIDE = re.compile(r"\s*\([^()]*\)")


def _consequence(text: str) -> str:
    """What an answer says follows ("the router build has to use `cross` instead of plain cargo" of "The MIPS target
    has no prebuilt standard library, so the router build has to use `cross` (or nightly) instead of plain cargo"),
    asides in brackets left out; "" when there is none or it names fewer than three content words."""
    parts = _SO.split(text, maxsplit=1)
    if len(parts) < 2:
        return ""
    clause = _ASIDE.sub("", re.split(r"(?<=[.;])\s", parts[1], maxsplit=1)[0]).strip()
    return clause if len(content_words(clause)) >= 3 else ""


def _rescued(answer: Fact, said: Judgement, pointed: Sequence[str], seen: Passages) -> Judgement:
    """An answer the summary does not keep as a whole, kept by its point: the output a remark points at
    (`_pointed_kept`), its first clause ("A background queue." before the reasons for it), what it says follows
    (`_consequence`), or the one thing it names stated as chosen (`_chosen_line`)."""
    if said.verdict != "lost":
        return said
    line = _pointed_kept(pointed, seen)
    if line:
        return Judgement("reworded", "pointed", said.score, line, "the output it points at is kept")
    first = _first_clause(answer.text)
    names_identifier = any(t.specific for t in tokens(first))

    # an answer's first clause naming the way taken ("Server-sent events.") is kept where a passage states it as
    # chosen or says why: not by the which-way question copied ("Help me decide: WebSockets or server-sent
    # events …"), which names every way, nor by another statement that names it in passing (the latest ask "…
    # with an SSE stream …"); a first clause naming a file or host ("app/x.py is the upload endpoint") is a role
    # or a lesson, no choice
    def not_a_choice(text: str) -> bool:
        return _offers_ways(text) or (not names_identifier and _STATED_CHOICE.search(text.lower()) is None)

    for rule, clause, skip in (("first-clause", first, not_a_choice), ("consequence", _consequence(answer.text), None)):
        part = judge_kept(_view(answer.model_copy(update={"text": clause}), None), seen, skip) if clause else None
        if part is not None and part.verdict != "lost":
            return Judgement("reworded", rule, part.score, part.closest, f"its {rule.replace('-', ' ')} is kept")
    # an answer naming one thing ("Glicko-2." before the reasons): kept where the summary states that thing as chosen,
    # not where it only names it (the question copied names every option)
    chosen = _chosen_line(answer.text, seen)
    if chosen:
        return Judgement("reworded", "chosen", said.score, chosen, "what it chose is stated as chosen")
    return said


# a passage stating a choice (`_CHOSE`: what was chosen against what was not, or that it was decided) or why
_STATED_CHOICE = re.compile(_CHOSE.pattern + r"|\b(?:because|since|due to)\b")
# a passage that puts ways side by side: a question, or options joined by "or" / "vs"
_WAYS_SIDE_BY_SIDE = re.compile(r"\?|\b(?:or|vs|versus)\b", re.I)


def _offers_ways(text: str) -> bool:
    """Whether a passage asks or lists ways to choose from rather than stating one (`_WAYS_SIDE_BY_SIDE`)."""
    return _WAYS_SIDE_BY_SIDE.search(text) is not None


def _same_word(one: str, other: str) -> bool:
    """Two content words that are one word in two forms ("recompute" and "recomput" of "recomputes", as
    `content_words` stems them): one is the other, or a short extension of all but its last letter."""
    short, long_ = (one, other) if len(one) <= len(other) else (other, one)
    return long_.startswith(short[: max(3, len(short) - 1)]) and len(long_) - len(short) <= 3


def _share_a_word(one: set[str], other: set[str]) -> bool:
    """Whether two texts' content words hold one word in common, in any of its forms (`_same_word`)."""
    return bool(one & other) or any(_same_word(a, b) for a in one for b in other if a[:3] == b[:3])


def _is_rule(fact: Fact) -> bool:
    """A user's rule: an instruction, or a request that asks not to do something or to keep something as it is
    ("Could you not change the recipe URLs?", "Can the pickup times stay as they are?")."""
    if fact.kind == "instruction":
        return not _asks(fact)
    return fact.kind == "request" and not _asks(fact) and polarity(fact.text) == "negative"


def _reasons(facts: Sequence[Fact]) -> Iterator[tuple[int, int]]:
    """(index of a user's sentence, index of the rule it follows in the same message) for each sentence after a rule
    that asks nothing, names no identifier and is no rule itself: the rule's reason ("People know them by now.")."""
    rule_of: dict[str, int] = {}
    for n, fact in enumerate(facts):
        entry = fact.source_entry_id or ""
        if fact.kind not in ("request", "instruction") or not entry:
            continue
        if _is_rule(fact):
            rule_of.setdefault(entry, n)
        elif entry in rule_of and not _asks(fact) and not fact.identifiers:
            yield n, rule_of[entry]


# the answers a question asked again goes with, at most (its own and the next few askings')
_ASKED_AGAIN_ANSWERS = 4


def _which_way(fact: Fact) -> bool:
    """A user's question asking which way to go ("X or Y?", "So, which of the two?")."""
    return _asks(fact) and (" or " in fact.text.lower() or re.search(r"\bwhich\b", fact.text, re.I) is not None)


def _asked_again(facts: Sequence[Fact], position: dict[str, int]) -> dict[int, int]:
    """Which-way questions (index) -> the user's next which-way question that asks it again (index): one naming at most
    one thing ("so which way?") or sharing a content word with it ("Poll faster or the push feed, which one?")."""
    asking = sorted((position.get(f.source_entry_id or "", -1), n) for n, f in enumerate(facts) if _which_way(f))
    again: dict[int, int] = {}
    for i, (at, n) in enumerate(asking):
        if at < 0:
            continue
        words = content_words(facts[n].text)
        for later_at, m in asking[i + 1 :]:
            if later_at <= at:
                continue
            if _bare_question(facts[m]) or _share_a_word(words, content_words(facts[m].text)):
                again[n] = m
            break
    return again


# a passage stating what is chosen ("Go with X.", "X, decided.", "Use X."), and one putting a way aside
_PICKED = re.compile(
    r"\b(?:decided|decision|chose|chosen|picked|go with|going with|went with|settled on|opted|opt for|switch to|"
    r"switching to|move to|moving to|use|using|keep|keeping|stick with|focus on)\b"
)
_PUT_ASIDE = re.compile(
    r"\b(?:not|no|never|rejected|turned down|ruled out|dropped|instead of|rather than|over|whereas|unlike)\b|n't"
)


def _ways(question: str) -> tuple[set[str], set[str]] | None:
    """The content words of the two ways a which-way question offers ("poll the stations more often" and "subscribe to
    the operator's GBFS push feed"), the words they share left out; None when it offers no two ways."""
    text = question.strip().rstrip("?").strip()
    text = text.rsplit(": ", 1)[-1]  # "What do you recommend: A, or B?"
    parts = re.split(r"\s+or\s+", text, flags=re.IGNORECASE)
    if len(parts) < 2:
        return None
    first = re.split(r"(?<=[.!?])\s", parts[-2])[-1]
    second = re.split(r"\s[\u2014\u2013-]\s|,\s", parts[-1])[0]
    one, other = content_words(first), content_words(second)
    one, other = one - other, other - one
    return (one, other) if one and other else None


def _other_way_line(question: Fact, answer: Fact, seen: Passages) -> str:
    """The passage that states as chosen the way a which-way question's answer did not take ("Go with polling the
    stations more often." where the answer was "The push feed."): it names that way (two of its words, or all of one),
    none of the way taken, picks (`_PICKED`), asks nothing, puts nothing aside and is no statement of the conversation
    copied; "" when there is none or the answer takes no one way."""
    ways = _ways(question.text)
    if ways is None:
        return ""
    said = content_words(_CLAUSE_END.split(answer.text, maxsplit=1)[0])
    took = [w for w in ways if w & said]
    # the answer's point is one way: half its words or more are that way's ("The push feed."), not a statement that
    # happens to share a word with it ("lib/stations/fetch.dart keeps the dock map's numbers")
    if len(took) != 1 or 2 * len(took[0] & said) < len(said):
        return ""
    taken = took[0]
    other = ways[1] if taken is ways[0] else ways[0]
    for position in seen.candidates(t.norm for t in tokens(" ".join(sorted(other)))):
        passage = seen.items[position]
        lower = passage.text.lower()
        # a question, no pick, a way put aside, or the conversation's own statement copied (it argued, not decided)
        if "?" in lower or not _PICKED.search(lower) or _PUT_ASIDE.search(lower) or seen.restated(passage) is not None:
            continue
        words = content_words(passage.text)
        if len(words & other) >= min(2, len(other)) and not words & taken:
            return passage.text
    return ""


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
        self._question_pending = False
        self._following: dict[int, Fact | None] = {}
        # the user's turn (its entry id) each error or question came in
        self._turn = ""
        self._turn_of: dict[str, str] = {}
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
        if entry.message is not None and entry.message.role == "user" and _own_text(entry):
            self._turn = entry.id
        asks = False
        for fact in entry_facts(entry):
            if fact.kind == "decision" and (_LOOK_FIRST.match(fact.text.strip()) or _hedges(fact.text)):
                continue
            self._facts.add(fact)
            if fact.kind == "error" or _asks(fact):
                self._asking_ids.add(entry.id)
                asks = asks or _asks(fact)
        if entry.id in self._asking_ids:
            self._texts[entry.id] = _entry_text(entry)
            self._turn_of[entry.id] = self._turn
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
            self._question_pending = self._question_pending or asks
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
            # a short remark answering a question right after a tool output ("That count covers every meter.")
            remark = _POINTER.match(answer.text) is not None and len(answer.text.split()) <= _REMARK_WORDS
            if self._output and self._question_pending and remark:
                self._pointed[answer.key] = self._output
        for at in self._pending:
            self._following[at] = answer
        self._pending = []
        self._question_pending = False

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

    def outcomes(self, facts: Sequence[Fact], answered: Iterable[int]) -> list[tuple[int, int]]:
        """(index of a user's request, index of a failure or question of the same turn) for each request whose turn
        held a failure or a question the assistant answered (`answered`: their indexes)."""
        by_turn: dict[str, list[int]] = {}
        for n in answered:
            turn = self._turn_of.get(facts[n].source_entry_id or "")
            if turn:
                by_turn.setdefault(turn, []).append(n)
        return [
            (r, n)
            for r, fact in enumerate(facts)
            if fact.kind == "request" and not _asks(fact)
            for n in by_turn.get(fact.source_entry_id or "", ())
        ]

    def _judge_answers(self, facts: Sequence[Fact], judged: list[AuditFact]) -> dict[int, tuple[int, Fact]]:
        """Judge the answers to the questions and failures of `facts` (appended to `judged`, one fact each: a decision
        the conversation already has stays that fact, judged again by its point when lost: `_rescued`); returns, per
        question or failure answered (index), its answer's index in `judged` and the answer."""
        index = {(f.kind, f.key): n for n, f in enumerate(facts)}
        answered: dict[int, tuple[int, Fact]] = {}
        for n, answer in self.answers(facts):
            pointed = self._pointed.get(answer.key, ())
            a = index.get((answer.kind, answer.key))
            if a is None:
                a = index[(answer.kind, answer.key)] = len(judged)
                view = _view(answer, None, self.position.get(answer.source_entry_id or "", -1))
                judged.append(
                    _audit_fact(
                        answer,
                        "conversation",
                        _rescued(answer, judge_kept(view, self._seen), pointed, self._seen),
                        2.0,
                    )
                )
            elif judged[a].verdict == "lost":
                said = _rescued(answer, Judgement("lost", "none", judged[a].score), pointed, self._seen)
                if said.verdict != "lost":
                    judged[a] = _audit_fact(facts[a], "conversation", said, judged[a].weight)
            answered[n] = (a, answer)
        return answered

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
        answered = self._judge_answers(facts, judged)
        _linked(facts, judged, answered, self.outcomes(facts, answered.keys()), position, seen)
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


def _changed(fact: AuditFact, verdict: Verdict, rule: str, closest: str, reason: str) -> AuditFact:
    return fact.model_copy(
        update={
            "verdict": verdict,
            "retained": verdict in ("kept", "reworded"),
            "rule": rule,
            "closest": closest,
            "reason": reason,
        }
    )


def _linked(
    facts: Sequence[Fact],
    judged: list[AuditFact],
    answered: dict[int, tuple[int, Fact]],
    outcomes: Sequence[tuple[int, int]],
    position: dict[str, int],
    seen: Passages,
) -> None:
    """The verdicts that follow from what a fact led to (in place): a question or a failure goes with its answer (a
    question asked again with the answer to either), the answer to a which-way question is contradicted where the
    summary states the other way as chosen, a request goes with the answer its turn ended with, a rule's reason with
    the rule."""
    led_to = {n: [a] for n, (a, _) in answered.items()}
    # the last asked first, so that a question asked three times goes with each later answer (a few at most)
    for n, m in reversed(list(_asked_again(facts, position).items())):
        led_to[n] = [*led_to.get(n, []), *led_to.get(m, [])][:_ASKED_AGAIN_ANSWERS]
    said_by = dict(answered.values())
    for n, targets in led_to.items():
        for a in targets if _which_way(facts[n]) else ():
            other = _other_way_line(facts[n], said_by[a], seen)
            if other:
                judged[a] = _changed(
                    judged[a], "contradicted", "other-way", other, "the way not taken is stated as chosen"
                )
    for n, targets in led_to.items():
        kept = next((a for a in targets if judged[a].retained), None)
        # a failed command or a question copied without what it led to ("SMS_API_KEY is not set" without where the key
        # is, "How often does it refresh?" without the 90 s): the failure or the question is not carried, what it led to
        if (facts[n].kind == "error" or _asks(facts[n])) and judged[n].verdict == "kept" and kept is None:
            judged[n] = _changed(
                judged[n], "lost", "without-answer", judged[n].closest, "copied without what it led to"
            )
        if judged[n].verdict == "lost" and kept is not None:
            judged[n] = _changed(judged[n], "reworded", "answered", judged[kept].closest, "what it led to is kept")
    # a request whose turn ended in a failure or a question the assistant answered ("Run the inventory tests." then
    # "the tests have to run with settings_test.py"): kept where that answer is kept and speaks of what was asked
    for r, n in outcomes:
        a = answered[n][0]
        speaks_of = _share_a_word(content_words(facts[r].text), content_words(judged[a].text))
        if judged[r].verdict == "lost" and judged[a].retained and speaks_of:
            judged[r] = _changed(judged[r], "reworded", "outcome", judged[a].closest, "what it led to is kept")
    # the user's reason after a rule in the same message ("Could you not change the recipe URLs? Half our traffic comes
    # from Pinterest pins."): it goes with the rule, kept where the rule is kept
    for n, rule in _reasons(facts):
        if judged[n].verdict == "lost" and judged[rule].retained:
            reason = "the rule it gives the reason for is kept"
            judged[n] = _changed(judged[n], "reworded", "reason", judged[rule].closest, reason)


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
