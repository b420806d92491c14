"""The audit's semantic judge (`cutline audit --judge semantic`): a fact the words do not find kept is kept in
other words when a sentence or clause of the summary means the same.

The lexical judge (compare.py, verdicts.py) reads a restatement only in the forms its rules know. This
judge reads the rest: each fact the lexical judge reports lost (never an identifier: a path or a number is
kept by its own form or not at all) is embedded with all-MiniLM-L6-v2 (`embed.py`), and so is each
sentence and clause of the summary, once; a fact whose statement has a cosine of at least `THETA` with
one of them is reworded, that segment its `closest`. Contradictions stay the lexical judge's: a fact it
reports contradicted is not looked at, nor one it keeps. The work is bounded by the lost facts and the
summary's segments that share a word with one of them (a restatement names at least one thing the
fact does: a summary of thousands of lines is not embedded whole for a few lost facts); vectors are
cached per text for the process (the same fact is judged against several summaries of one session).

A sentence vector reads what a sentence is about, not three things a restatement must keep, so the
closeness counts only where the words agree on them (`restates`):
- a question is kept by its answer (the audit pairs them: verdicts.py), never by a sentence like it
  ("How many reminders bounced?" is not kept by "Some reminders bounced.");
- a negation: "Would it be possible to not renumber the songs?" is close to "Renumber the songs";
  the segment must be as negative as the fact (`compare.polarity`);
- a name or a number: "PMTiles instead of MBTiles" is close to "decided: MBTiles"; each of the fact's
  specific tokens (`compare.is_specific`: names, numbers, paths) must be in the segment.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from cutline.core.audit.compare import polarity, sentences, tokens
from cutline.core.choices import AUDIT_JUDGES as JUDGES

if TYPE_CHECKING:
    from cutline.core.audit.embed import Array, Encoder
    from cutline.core.audit.verdicts import AuditFact

# tuned on the truth set's main part and the implicit facts' rounds 1-4 (bench/README.md, "the semantic judge")
THETA = 0.8
# a segment shorter than this many words states nothing a fact could be kept by ("Done.", "Next steps")
MIN_WORDS = 3
CACHE_LIMIT = 50_000

_CLAUSE = re.compile(r"\s*(?:;|\s[-\u2013\u2014]+\s|:\s)\s*")
_WORD = re.compile(r"\w+")

_vectors: dict[str, Array] = {}


def segments(summary: str) -> list[str]:
    """The summary's sentences (line by line, list markers and headings off) and, where a sentence has several, its
    clauses (split at ";", ": " and a spaced dash), each once, in order; shorter than `MIN_WORDS` words left out."""
    out: dict[str, None] = {}
    for sentence in sentences(summary):
        sentence = sentence.strip()
        parts = [p for p in _CLAUSE.split(sentence) if p.strip()]
        for piece in [sentence, *parts] if len(parts) > 1 else [sentence]:
            if len(_WORD.findall(piece)) >= MIN_WORDS:
                out.setdefault(piece.strip(), None)
    return list(out)


def _specifics(text: str) -> set[str]:
    return {t.norm for t in tokens(text) if t.specific}


def _stems(text: str) -> set[str]:
    """A text's content words by their first five letters ("tests" and "testing" alike), its specific tokens whole."""
    return {t.norm if t.specific else t.norm[:5] for t in tokens(text) if t.specific or len(t.norm) >= 3}


def restates(fact: str, segment: str) -> bool:
    """Whether `segment` may restate `fact` as far as the words tell: the fact is no question, both are as negative,
    and the segment names each of the fact's specific tokens."""
    if "?" in fact:
        return False
    if (polarity(fact) == "negative") != (polarity(segment) == "negative"):
        return False
    return _specifics(fact) <= {t.norm for t in tokens(segment)}


def vectors(encoder: Encoder, texts: list[str]) -> Array:
    """The texts' vectors, from the process's cache where it has them; the others embedded in one batched pass."""
    import numpy as np

    missing = list(dict.fromkeys(t for t in texts if t not in _vectors))
    if missing:
        if len(_vectors) + len(missing) > CACHE_LIMIT:
            _vectors.clear()
        for text, vector in zip(missing, encoder.embed(missing), strict=True):
            _vectors[text] = vector
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack([_vectors[t] for t in texts])


def rejudge(
    facts: list[AuditFact],
    summary: str,
    theta: float = THETA,
    encoder: Encoder | None = None,
    skip: AbstractSet[int] = frozenset(),
) -> list[AuditFact]:
    """`facts` with each lost statement (not an identifier, not superseded, not a question, not in `skip`) reworded
    where a segment of `summary` restates it (cosine >= `theta` and `restates`); the others as they were."""
    lost = [
        n
        for n, f in enumerate(facts)
        if f.verdict == "lost" and f.kind != "identifier" and not f.superseded and "?" not in f.text and n not in skip
    ]
    parts = segments(summary)
    if not lost or not parts:
        return facts
    if encoder is None:
        from cutline.core.audit.embed import encoder as load

        encoder = load()
    statements = [facts[n].text for n in lost]
    stems = [_stems(t) for t in statements]
    by_stem: dict[str, list[int]] = {}
    for k, part in enumerate(parts):
        for stem in _stems(part):
            by_stem.setdefault(stem, []).append(k)
    near = [sorted({k for stem in mine for k in by_stem.get(stem, ())}) for mine in stems]
    asked = sorted({k for ks in near for k in ks})
    if not asked:
        return facts
    column = {k: c for c, k in enumerate(asked)}
    similarity = vectors(encoder, statements) @ vectors(encoder, [parts[k] for k in asked]).T
    out = list(facts)
    for row, n in enumerate(lost):
        close = [(float(similarity[row, column[k]]), k) for k in near[row] if similarity[row, column[k]] >= theta]
        found = max(((c, k) for c, k in close if restates(facts[n].text, parts[k])), default=None)
        if found is not None:
            cosine, best = found
            out[n] = facts[n].model_copy(
                update={
                    "verdict": "reworded",
                    "retained": True,
                    "rule": "semantic",
                    "score": round(cosine, 3),
                    "closest": parts[best],
                    "reason": f"means the same (cosine {cosine:.2f})",
                }
            )
    return out


def judge_for(name: str, summary: str) -> Callable[[list[AuditFact], AbstractSet[int]], list[AuditFact]] | None:
    """The pass the audit runs over its verdicts for judge `name`: None for the lexical judge alone."""
    if name == "lexical":
        return None
    if name != "semantic":
        raise ValueError(f"unknown judge {name!r}: one of {', '.join(JUDGES)}")
    from cutline.core.audit.embed import encoder

    model = encoder()  # loaded here, so a missing model is said before the audit runs

    def run(facts: list[AuditFact], skip: AbstractSet[int]) -> list[AuditFact]:
        return rejudge(facts, summary, THETA, model, skip)

    return run
